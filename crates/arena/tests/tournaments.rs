//! Tournaments of house players played to their end on the injected clock, across a restart:
//! every game of a round plays from the round's one committed seed, which stays sealed until
//! the round's last game ends, and every game then verifies against it.

use std::path::Path;
use std::sync::Arc;

use arbiter_arena::{
    Arena, ArenaConfig, BotProfile, Games, ManualClock, Organiser, Reader, Tournament,
    TournamentAction, TournamentFormat, TournamentRequest, TournamentStatus, Verdict,
};
use arbiter_store_sqlite::SqliteStore;

const T0: i64 = 1_795_900_000_000;

const HOUSE: [&str; 4] = ["house-random", "house-greedy", "house-easy", "house-medium"];

async fn arena(path: &Path, clock: &Arc<ManualClock>) -> Arena {
    let store = SqliteStore::open(path).await.expect("store");
    let games = Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY);
    Arena::start(
        ArenaConfig::default(),
        games,
        clock.clone(),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts")
}

fn request(format: TournamentFormat, rated: bool) -> TournamentRequest {
    TournamentRequest {
        name: "Winter cup".to_owned(),
        game: "goofspiel".to_owned(),
        variant: Some("short".to_owned()),
        format,
        time_control: Default::default(),
        rated,
        people: false,
    }
}

/// Drives the tournament and lets the house players play until `done` holds of it, a bounded
/// number of times: the clock does not move meanwhile.
async fn drive_until(arena: &Arena, id: i64, done: impl Fn(&Tournament) -> bool) -> Tournament {
    for _ in 0..1_000 {
        arena.drive_tournaments().await;
        let tournament = arena.tournament(id).await.expect("the tournament");
        if done(&tournament) {
            return tournament;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!(
        "the tournament never got there: {:?}",
        arena.tournament(id).await
    );
}

/// Every game of every ended round exports the round's commitment and seed and verifies;
/// returns how many games were checked.
async fn check_rounds(arena: &Arena, tournament: &Tournament) -> usize {
    let mut checked = 0;
    for round in tournament.rounds.iter().filter(|round| round.ended) {
        let seed = round
            .seed
            .as_deref()
            .expect("an ended round shows its seed");
        for game in &round.games {
            let export = arena.export(game.match_id).await.expect("export");
            assert_eq!(
                export.commitment, round.commitment,
                "round {}",
                round.number
            );
            assert_eq!(export.seed.as_deref(), Some(seed), "round {}", round.number);
            assert_eq!(export.details["tournament"]["round"], round.number);
            let verdict = arena.verify(game.match_id).await.expect("verify");
            assert!(
                matches!(verdict, Verdict::Verified { .. }),
                "match {}: {verdict:?}",
                game.match_id
            );
            checked += 1;
        }
    }
    checked
}

#[tokio::test]
async fn a_round_robin_of_house_players_is_played_to_its_end_across_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let first = arena(&path, &clock).await;
    let by = Organiser::Administrator;
    let created = first
        .create_tournament(
            by,
            request(TournamentFormat::RoundRobin { cycles: 1 }, true),
        )
        .await
        .expect("created");
    let id = created.id;
    for name in HOUSE {
        first.enter_house_bot(by, id, name).await.expect("entered");
    }
    let started = first
        .control_tournament(by, id, TournamentAction::Start)
        .await
        .expect("started");
    assert_eq!(started.status, TournamentStatus::Running);
    assert_eq!(started.rounds.len(), 1, "the first round is paired at once");
    assert_eq!(started.rounds[0].games.len(), 2);
    assert_eq!(started.rounds[0].seed, None, "sealed while under way");
    // Two rounds in, the server stops and another starts on the same store.
    drive_until(&first, id, |t| t.rounds.len() >= 2).await;
    first.shutdown().await;

    let second = arena(&path, &clock).await;
    let done = drive_until(&second, id, |t| t.status == TournamentStatus::Finished).await;
    assert_eq!(done.rounds.len(), 3, "four entrants meet in three rounds");
    assert!(done.rounds.iter().all(|round| round.ended));
    let standings = done.standings();
    assert_eq!(standings.len(), 4);
    assert!(
        standings.iter().all(|line| line.games == 3),
        "{standings:?}"
    );
    let points: f64 = standings.iter().map(|line| line.points).sum();
    assert_eq!(points, 6.0, "one point for each of the six games");
    let table = done.crosstable();
    for (entrant, row) in table.iter().enumerate() {
        let opponents = row.iter().filter(|games| !games.is_empty()).count();
        assert_eq!(opponents, 3, "entrant {entrant} met everyone once");
    }
    assert_eq!(check_rounds(&second, &done).await, 6);
    // Every game was rated: each house player has three rated games of the mode.
    let leaderboard = second
        .leaderboard("goofspiel", "short")
        .await
        .expect("leaderboard");
    let rated_games: u64 = leaderboard["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| entry["games"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(rated_games, 12, "{leaderboard}");
}

#[tokio::test]
async fn a_swiss_forfeits_an_absent_entrant_and_keeps_the_round_sealed_until_it_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let first = arena(&path, &clock).await;
    let by = Organiser::Administrator;
    let id = first
        .create_tournament(by, request(TournamentFormat::Swiss { rounds: 3 }, false))
        .await
        .expect("created")
        .id;
    for name in HOUSE {
        first.enter_house_bot(by, id, name).await.expect("entered");
    }
    // A registered bot enters and never connects.
    let (absent, _token) = first
        .register_bot(
            "absent",
            BotProfile {
                supported_variants: vec!["goofspiel".to_owned()],
                ..BotProfile::default()
            },
        )
        .await
        .expect("registered");
    first.enter_tournament(&absent, id).await.expect("entered");
    let entrant = 4;
    first
        .control_tournament(by, id, TournamentAction::Start)
        .await
        .expect("started");
    // Round by round until the absent entrant has a game that waits for it while the rest
    // of its round has ended.
    let waiting = loop {
        let t = drive_until(&first, id, |t| {
            t.rounds.last().is_some_and(|round| {
                round.games.iter().all(|game| {
                    game.end.is_some() || game.first == entrant || game.second == entrant
                })
            })
        })
        .await;
        let round = t.rounds.last().expect("a round").clone();
        if !round.ended {
            break round;
        }
        assert!(round.byes.contains(&entrant) || round.games.is_empty());
    };
    assert_eq!(waiting.seed, None);
    let ended_game = waiting
        .games
        .iter()
        .find(|game| game.end.is_some())
        .expect("another game of the round has ended");
    let export = first.export(ended_game.match_id).await.expect("export");
    assert_eq!(export.seed, None, "sealed until the round ends");
    assert!(
        export.events.iter().all(|event| {
            let data: serde_json::Value = serde_json::from_str(event.data.get()).expect("json");
            data.get("seed").is_none()
        }),
        "no event carries the seed"
    );
    let snapshot = first
        .snapshot(ended_game.match_id, Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(snapshot.seed, None);

    // The server restarts while the absent entrant's game waits for its first move; each
    // time only its games are left, the clock moves past the first move's deadline.
    first.shutdown().await;
    let second = arena(&path, &clock).await;
    let ended = |t: &Tournament| {
        t.rounds
            .iter()
            .flat_map(|round| &round.games)
            .filter(|game| game.end.is_some())
            .count()
    };
    let mut done = None;
    let mut before = ended(&second.tournament(id).await.expect("the tournament"));
    for _ in 0..3 {
        clock.advance(ArenaConfig::default().first_move_ms + 1);
        let t = drive_until(&second, id, |t| {
            t.status == TournamentStatus::Finished
                || ended(t) > before
                    && t.live_games()
                        .all(|(_, game)| game.first == entrant || game.second == entrant)
        })
        .await;
        if t.status == TournamentStatus::Finished {
            done = Some(t);
            break;
        }
        before = ended(&t);
    }
    let done = done.expect("finished");
    assert_eq!(done.rounds.len(), 3);
    let absent_line = done
        .standings()
        .into_iter()
        .find(|line| line.entrant == entrant)
        .expect("its line");
    assert!(absent_line.losses >= 1, "{absent_line:?}");
    assert_eq!(absent_line.wins, 0);
    let games = check_rounds(&second, &done).await;
    assert_eq!(
        games,
        done.rounds.iter().map(|r| r.games.len()).sum::<usize>()
    );
    // Nobody met anyone twice.
    for row in done.crosstable() {
        assert!(row.iter().all(|games| games.len() <= 1));
    }
}

#[tokio::test]
async fn only_the_organiser_runs_a_tournament_and_entries_are_checked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let arena = arena(&path, &clock).await;
    let owner = Organiser::Account { id: 7 };
    let stranger = Organiser::Account { id: 8 };
    let id = arena
        .create_tournament(owner, request(TournamentFormat::Swiss { rounds: 2 }, false))
        .await
        .expect("created")
        .id;
    let refused = arena
        .control_tournament(stranger, id, TournamentAction::Start)
        .await
        .expect_err("not the organiser");
    assert_eq!(refused.code(), "not_organiser");
    let too_few = arena
        .control_tournament(owner, id, TournamentAction::Start)
        .await
        .expect_err("nobody entered");
    assert_eq!(too_few.code(), "tournament_refused");
    let (othello_only, _) = arena
        .register_bot(
            "reversi",
            BotProfile {
                supported_variants: vec!["othello".to_owned()],
                ..BotProfile::default()
            },
        )
        .await
        .expect("registered");
    let refused = arena
        .enter_tournament(&othello_only, id)
        .await
        .expect_err("plays another game");
    assert_eq!(refused.code(), "unsupported_variant");
    let house = arena.find_bot("house-easy").expect("a house bot");
    assert_eq!(
        arena
            .enter_tournament(&house, id)
            .await
            .expect_err("house bots are entered")
            .code(),
        "tournament_refused"
    );
    arena
        .enter_house_bot(owner, id, "house-easy")
        .await
        .expect("entered");
    assert_eq!(
        arena
            .enter_house_bot(owner, id, "house-easy")
            .await
            .expect_err("twice")
            .code(),
        "tournament_refused"
    );
    let bad = [
        (
            TournamentFormat::Swiss { rounds: 0 },
            "goofspiel",
            "invalid_request",
        ),
        (
            TournamentFormat::RoundRobin { cycles: 3 },
            "goofspiel",
            "invalid_request",
        ),
        (
            TournamentFormat::Arena { minutes: 0 },
            "goofspiel",
            "invalid_request",
        ),
        (
            TournamentFormat::Swiss { rounds: 3 },
            "chess",
            "unsupported_variant",
        ),
    ];
    for (format, game, code) in bad {
        let mut asked = request(format, false);
        asked.game = game.to_owned();
        asked.variant = None;
        let error = arena
            .create_tournament(owner, asked)
            .await
            .expect_err("refused");
        assert_eq!(error.code(), code, "{format:?} {game}: {error}");
    }
    assert_eq!(arena.tournaments().await.expect("listed").len(), 1);
}

#[tokio::test]
async fn an_arena_pairs_free_players_within_its_window() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let arena = arena(&path, &clock).await;
    let by = Organiser::Administrator;
    let id = arena
        .create_tournament(by, request(TournamentFormat::Arena { minutes: 1 }, false))
        .await
        .expect("created")
        .id;
    for name in HOUSE {
        arena.enter_house_bot(by, id, name).await.expect("entered");
    }
    arena
        .control_tournament(by, id, TournamentAction::Start)
        .await
        .expect("started");
    // The house players finish each wave at once and are paired again while the clock
    // stands inside the window.
    let t = drive_until(&arena, id, |t| t.rounds.len() >= 3).await;
    assert_eq!(t.status, TournamentStatus::Running);
    assert!(
        t.rounds
            .iter()
            .all(|round| (1..=2).contains(&round.games.len()))
    );
    // Past the window nobody is paired and the arena ends once its games have.
    clock.advance(60_000);
    let done = drive_until(&arena, id, |t| t.status == TournamentStatus::Finished).await;
    // Each game counts for both its players; a wave pairs whoever is free, so it may hold one
    // game or two.
    let games: u32 = done.standings().iter().map(|line| line.games).sum();
    let played: usize = done.rounds.iter().map(|round| round.games.len()).sum();
    assert_eq!(games as usize, 2 * played);
    check_rounds(&arena, &done).await;
}

/// The first prize card turned up in an exported match's events.
fn first_prize(export: &arbiter_arena::MatchExport) -> Option<String> {
    export.events.iter().find_map(|event| {
        let text = event.data.get();
        let at = text.find("\"prize\":")? + "\"prize\":".len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty()).then_some(digits)
    })
}

#[tokio::test]
async fn a_tournament_at_tables_deals_every_table_of_a_round_the_same_cards() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let first = arena(&path, &clock).await;
    let by = Organiser::Administrator;
    let mut asked = request(
        TournamentFormat::Tables {
            rounds: 3,
            seats: 2,
        },
        false,
    );
    asked.variant = Some("standard".to_owned());
    let id = first
        .create_tournament(by, asked)
        .await
        .expect("created")
        .id;
    for name in HOUSE {
        first.enter_house_bot(by, id, name).await.expect("entered");
    }
    let started = first
        .control_tournament(by, id, TournamentAction::Start)
        .await
        .expect("started");
    assert_eq!(started.rounds[0].tables.len(), 2, "{started:?}");
    drive_until(&first, id, |t| t.rounds.len() >= 2).await;
    first.shutdown().await;

    let second = arena(&path, &clock).await;
    let done = drive_until(&second, id, |t| t.status == TournamentStatus::Finished).await;
    assert_eq!(done.rounds.len(), 3);
    for round in &done.rounds {
        let seed = round.seed.as_deref().expect("revealed");
        let mut prizes = Vec::new();
        for table in &round.tables {
            assert_eq!(table.seats.len(), 2);
            let export = second.export(table.match_id).await.expect("export");
            assert_eq!(export.commitment, round.commitment);
            assert_eq!(export.seed.as_deref(), Some(seed));
            let verdict = second.verify(table.match_id).await.expect("verify");
            assert!(matches!(verdict, Verdict::Verified { .. }), "{verdict:?}");
            prizes.push(first_prize(&export).expect("a prize turned up"));
        }
        assert!(
            prizes.windows(2).all(|pair| pair[0] == pair[1]),
            "round {}: {prizes:?}",
            round.number
        );
    }
    // Each table gives its two seats one point between them.
    let standings = done.standings();
    let points: f64 = standings.iter().map(|line| line.points).sum();
    assert_eq!(points, 6.0, "{standings:?}");
    assert!(standings.iter().all(|line| line.games == 3));
    assert!(done.crosstable().is_empty());
}

#[tokio::test]
async fn tables_are_refused_where_the_variant_does_not_seat_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(T0));
    let arena = arena(&dir.path().join("arbiter.sqlite"), &clock).await;
    let by = Organiser::Administrator;
    let error = arena
        .create_tournament(
            by,
            request(
                TournamentFormat::Tables {
                    rounds: 2,
                    seats: 6,
                },
                false,
            ),
        )
        .await
        .expect_err("goofspiel seats at most four");
    assert_eq!(error.code(), "unsupported_variant");
    let id = arena
        .create_tournament(
            by,
            request(
                TournamentFormat::Tables {
                    rounds: 2,
                    seats: 4,
                },
                false,
            ),
        )
        .await
        .expect("created")
        .id;
    arena
        .enter_house_bot(by, id, "house-easy")
        .await
        .expect("entered");
    let error = arena
        .control_tournament(by, id, TournamentAction::Start)
        .await
        .expect_err("one cannot fill a table");
    assert_eq!(error.code(), "tournament_refused");
}
