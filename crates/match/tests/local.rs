//! Whole matches between real engine processes, through the connector's adapters.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use arbiter_connector::EngineSpec;
use arbiter_match::stats::{Score, Sprt, SprtVerdict};
use arbiter_match::{
    Entrant, GameRecord, MatchError, MatchOptions, Openings, Player, Report, TimeControl, run,
};
use arbiter_plugin::{Family, HouseLevel, Opening};
use tokio::sync::mpsc;

const TEST_ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/test_engine.py");
const GREEDY_ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/engine.py");

fn entrant(name: &str, command: String) -> Entrant {
    Entrant {
        name: name.to_owned(),
        player: Player::Engine(EngineSpec::Json { command }),
    }
}

fn options(family: &'static Family, variant: &str, entrants: Vec<Entrant>) -> MatchOptions {
    MatchOptions {
        family,
        variant: variant.to_owned(),
        entrants,
        games: 6,
        concurrency: 2,
        time_control: TimeControl {
            base_ms: 60_000,
            increment_ms: 0,
        },
        openings: Openings::Drawn(Opening::Random),
        seed: "test-seed".to_owned(),
        sprt: None,
    }
}

async fn play(options: MatchOptions) -> (Report, Vec<GameRecord>) {
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let report = run(options, sender, Arc::new(AtomicBool::new(false)))
        .await
        .expect("the match is played");
    let mut games = Vec::new();
    while let Ok(update) = receiver.try_recv() {
        games.push(update.game);
    }
    games.sort_by_key(|g| g.number);
    (report, games)
}

#[tokio::test]
async fn each_opening_is_played_in_both_colours() {
    let entrants = vec![
        entrant("first", format!("python3 {TEST_ENGINE}")),
        entrant("greedy", format!("python3 {GREEDY_ENGINE}")),
    ];
    let (report, games) = play(options(&arbiter_othello_plugin::FAMILY, "std", entrants)).await;
    assert_eq!(games.len(), 6);
    assert_eq!(report.standing.games, 6);
    let mut by_opening: HashMap<u32, Vec<&GameRecord>> = HashMap::new();
    for game in &games {
        assert_eq!(game.failed, None, "{game:?}");
        by_opening.entry(game.opening).or_default().push(game);
    }
    assert_eq!(by_opening.len(), 3, "three openings, a pair each");
    for pair in by_opening.values() {
        let [a, b] = pair.as_slice() else {
            panic!("not a pair: {pair:?}");
        };
        assert_eq!(a.config, b.config, "one opening");
        assert_eq!(a.seed, b.seed);
        assert_eq!(
            a.seats,
            [b.seats[1].clone(), b.seats[0].clone()],
            "colours swapped"
        );
    }
    let configs: std::collections::HashSet<String> =
        games.iter().map(|g| g.config.to_string()).collect();
    assert_eq!(configs.len(), 3, "the openings differ");
    // The results add up, from the first engine's side.
    let result = &report.standing.pairings[0];
    assert_eq!(result.tally.games(), 6);
    assert_eq!(result.pairs.pairs(), 3);
    let first_points: f64 = games
        .iter()
        .map(|g| {
            let seat = usize::from(g.seats[1] == "first");
            match g.scores[seat] {
                Score::Win => 1.0,
                Score::Draw => 0.5,
                Score::Loss => 0.0,
            }
        })
        .sum();
    assert_eq!(result.tally.points(), first_points);
    // Every move but each game's first had its overhead measured.
    let moves: usize = games.iter().map(|g| g.moves.len()).sum();
    assert_eq!(report.overheads.len(), moves - games.len());
}

#[tokio::test]
async fn the_same_seed_plays_the_same_games() {
    let entrants = || {
        vec![
            entrant("first", format!("python3 {TEST_ENGINE}")),
            entrant("greedy", format!("python3 {GREEDY_ENGINE}")),
        ]
    };
    let (_, once) = play(options(&arbiter_othello_plugin::FAMILY, "std", entrants())).await;
    let (_, again) = play(options(&arbiter_othello_plugin::FAMILY, "std", entrants())).await;
    let moves = |games: &[GameRecord]| -> Vec<Vec<String>> {
        games.iter().map(|g| g.moves.clone()).collect()
    };
    assert_eq!(moves(&once), moves(&again));
}

#[tokio::test]
async fn a_crashing_engine_loses_its_game_and_the_match_goes_on() {
    let entrants = vec![
        entrant("steady", format!("python3 {TEST_ENGINE}")),
        entrant("crashy", format!("python3 {TEST_ENGINE} --crash-on 3")),
    ];
    let mut options = options(&arbiter_othello_plugin::FAMILY, "std", entrants);
    options.concurrency = 1;
    let (report, games) = play(options).await;
    assert_eq!(games.len(), 6, "every game is played");
    for game in &games {
        let crashed = game.number == 3;
        assert_eq!(game.failed.is_some(), crashed, "{game:?}");
        if crashed {
            let seat = game.failed.expect("a seat");
            assert_eq!(game.seats[seat], "crashy");
            assert_eq!(game.scores[seat], Score::Loss);
            assert_eq!(game.scores[1 - seat], Score::Win);
            assert!(game.reason.contains("exited"), "{}", game.reason);
        } else {
            assert!(game.moves.len() > 20, "{game:?}");
        }
    }
    assert!(!report.stopped_early);
}

#[tokio::test]
async fn a_simultaneous_game_is_played_through_the_generic_protocol() {
    let entrants = vec![
        entrant("one", format!("python3 {TEST_ENGINE}")),
        Entrant {
            name: "practice".to_owned(),
            player: Player::Engine(EngineSpec::Practice),
        },
    ];
    let mut options = options(&arbiter_goofspiel::FAMILY, "short", entrants);
    options.games = 2;
    let (report, games) = play(options).await;
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(game.failed, None, "{game:?}");
        // Five rounds of two bids.
        assert_eq!(game.moves.len(), 10, "{game:?}");
    }
    assert_eq!(report.standing.pairings[0].tally.games(), 2);
}

#[tokio::test]
async fn the_sprt_stops_the_match_at_the_bound_it_crosses() {
    let entrants = vec![
        entrant("greedy", format!("python3 {GREEDY_ENGINE}")),
        entrant("first", format!("python3 {TEST_ENGINE}")),
    ];
    let mut options = options(&arbiter_othello_plugin::FAMILY, "std", entrants);
    options.games = 400;
    // The greedy engine is some 100 Elo stronger: a test of 0 against 40 decides soon.
    let sprt = Sprt::new(0.0, 40.0, 0.05, 0.05).expect("a test");
    options.sprt = Some(sprt);
    let (report, games) = play(options).await;
    let standing = &report.standing;
    assert!(report.stopped_early, "{standing:?}");
    assert_eq!(standing.verdict, Some(SprtVerdict::H1), "{standing:?}");
    assert!(standing.games < 400 && games.len() as u64 == standing.games);
    // The verdict is the bound the pairs' ratio crosses.
    let llr = sprt.llr(&standing.pairings[0].pairs);
    assert_eq!(standing.llr, Some(llr));
    assert!(llr >= sprt.bounds().1, "{llr}");
}

#[tokio::test]
async fn chess_games_are_recorded_as_pgn_and_othello_games_as_ggf() {
    let entrants = || {
        vec![
            entrant("first", format!("python3 {TEST_ENGINE}")),
            Entrant {
                name: "practice".to_owned(),
                player: Player::Engine(EngineSpec::Practice),
            },
        ]
    };
    let table: [(&'static Family, &str, &str, &str); 2] = [
        (
            &arbiter_chess::FAMILY,
            "standard",
            "pgn",
            "[Event \"test\"]",
        ),
        (
            &arbiter_othello_plugin::FAMILY,
            "std",
            "ggf",
            "(;GM[Othello]",
        ),
    ];
    for (family, variant, extension, opening) in table {
        let mut options = options(family, variant, entrants());
        options.games = 2;
        options.openings = Openings::Drawn(Opening::Start);
        let time_control = options.time_control;
        let (_, games) = play(options).await;
        let format = family.record.expect("a record format");
        assert_eq!(format.extension(), extension);
        for game in &games {
            let text = game
                .in_format(format, "test", "2026-12-04", time_control)
                .expect("a record");
            assert!(text.starts_with(opening), "{text}");
            assert!(
                text.contains(&game.seats[0]) && text.contains(&game.seats[1]),
                "{text}"
            );
            // Every move is in the record, in the game's notation.
            for mv in game.moves.iter().take(5) {
                assert!(text.contains(mv.as_str()), "{mv} in {text}");
            }
        }
    }
}

#[tokio::test]
async fn an_opening_book_is_played_in_order_each_line_in_both_colours() {
    let book = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"open\";",
    ];
    let entrants = vec![
        entrant("first", format!("python3 {TEST_ENGINE}")),
        Entrant {
            name: "practice".to_owned(),
            player: Player::Engine(EngineSpec::Practice),
        },
    ];
    let mut options = options(&arbiter_chess::FAMILY, "standard", entrants);
    options.openings = Openings::Book(book.iter().map(|l| (*l).to_owned()).collect());
    options.games = 6;
    options.concurrency = 1;
    let (_, games) = play(options).await;
    let starts: Vec<String> = games
        .iter()
        .map(|g| g.config["fen"].as_str().unwrap_or("").to_owned())
        .collect();
    // Three pairs: the book's two lines, then the first again; the EPD line's operations
    // dropped and its counters added.
    let epd = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(starts, [book[0], book[0], epd, epd, book[0], book[0]]);
    for pair in games.chunks(2) {
        assert_eq!(pair[0].seats[0], pair[1].seats[1], "colours swapped");
        assert_eq!(pair[0].start["initial_fen"], pair[1].start["initial_fen"]);
    }
}

#[tokio::test]
async fn an_engine_that_overruns_its_clock_loses_on_time() {
    let entrants = vec![
        entrant("steady", format!("python3 {TEST_ENGINE}")),
        entrant("slow", format!("python3 {TEST_ENGINE} --stall-on 2")),
    ];
    let mut options = options(&arbiter_othello_plugin::FAMILY, "std", entrants);
    options.games = 2;
    options.concurrency = 1;
    // Three seconds each, which starting Python leaves plenty of: the stalled answer would
    // come five seconds late.
    options.time_control = TimeControl {
        base_ms: 3_000,
        increment_ms: 0,
    };
    let (_, games) = play(options).await;
    let slow = &games[1];
    let seat = slow.failed.expect("a seat lost");
    assert_eq!(slow.seats[seat], "slow");
    assert_eq!(
        (slow.reason.as_str(), slow.scores[seat]),
        ("time", Score::Loss)
    );
    assert_eq!(games[0].failed, None, "{:?}", games[0]);
}

fn house(name: &str, level: HouseLevel) -> Entrant {
    Entrant {
        name: name.to_owned(),
        player: Player::House(level),
    }
}

#[tokio::test]
async fn the_house_player_plays_in_process_within_its_clock() {
    // Othello's house player and Goofspiel's, a game of simultaneous bids: the match plays
    // any family's house player the same way.
    let cases: [(&'static Family, &str); 2] = [
        (&arbiter_othello_plugin::FAMILY, "std"),
        (&arbiter_goofspiel::FAMILY, "short"),
    ];
    for (family, variant) in cases {
        let entrants = vec![
            house("medium", HouseLevel::Medium),
            Entrant {
                name: "practice".to_owned(),
                player: Player::Engine(EngineSpec::Practice),
            },
        ];
        let mut options = options(family, variant, entrants);
        options.games = 2;
        options.time_control = TimeControl {
            base_ms: 5_000,
            increment_ms: 0,
        };
        let (report, games) = play(options).await;
        assert_eq!(games.len(), 2);
        for game in &games {
            assert_eq!(game.failed, None, "{game:?}");
        }
        if family.id() == "othello" {
            // Six plies of search against the first legal move win both colours.
            assert_eq!(report.standing.pairings[0].tally.wins, 2, "{games:?}");
        }
    }
}

#[tokio::test]
async fn a_house_entrant_needs_a_family_with_a_house_player() {
    let family: &'static Family = Box::leak(Box::new(Family {
        house: None,
        ..arbiter_othello_plugin::FAMILY
    }));
    let entrants = vec![
        house("hard", HouseLevel::Hard),
        house("easy", HouseLevel::Easy),
    ];
    let (sender, _receiver) = mpsc::unbounded_channel();
    let refused = run(
        options(family, "std", entrants),
        sender,
        Arc::new(AtomicBool::new(false)),
    )
    .await;
    assert!(
        matches!(refused, Err(MatchError::NoHousePlayer { ref engine, .. }) if engine == "hard"),
        "{refused:?}"
    );
}
