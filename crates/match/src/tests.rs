use super::*;

#[test]
fn time_controls_are_read_in_seconds() {
    let table = [
        ("10+0.1", Some((10_000, 100))),
        ("60", Some((60_000, 0))),
        ("0.5+0", Some((500, 0))),
        (" 3 + 2 ", Some((3_000, 2_000))),
        ("0", None),
        ("-1+1", None),
        ("ten", None),
        ("10+", None),
    ];
    for (text, expected) in table {
        let read = text.parse::<TimeControl>().ok();
        assert_eq!(
            read.map(|tc| (tc.base_ms, tc.increment_ms)),
            expected,
            "{text:?}"
        );
    }
}

#[test]
fn pairings_take_turns_and_each_pair_is_played_together() {
    let jobs = schedule(3, 3);
    // Three games per pairing round up to two pairs: 3 pairings × 2 openings × 2 games.
    assert_eq!(jobs.len(), 12);
    let order: Vec<(u32, usize, u8)> = jobs.iter().map(|j| (j.opening, j.pairing, j.leg)).collect();
    assert_eq!(
        &order[..6],
        &[
            (0, 0, 0),
            (0, 0, 1),
            (0, 1, 0),
            (0, 1, 1),
            (0, 2, 0),
            (0, 2, 1)
        ]
    );
    let numbers: Vec<u64> = jobs.iter().map(|j| j.number).collect();
    assert_eq!(numbers, (1..=12).collect::<Vec<u64>>());
}

fn entrant(name: &str) -> Entrant {
    Entrant {
        name: name.to_owned(),
        player: Player::Engine(EngineSpec::Practice),
    }
}

fn options(entrants: Vec<Entrant>) -> MatchOptions {
    MatchOptions {
        family: &arbiter_othello_plugin::FAMILY,
        variant: "std".to_owned(),
        entrants,
        games: 2,
        concurrency: 1,
        time_control: TimeControl {
            base_ms: 1_000,
            increment_ms: 0,
        },
        openings: Openings::Drawn(Opening::Random),
        seed: "s".to_owned(),
        sprt: None,
    }
}

#[test]
fn matches_that_cannot_be_played_are_refused() {
    assert!(matches!(
        pairings(&options(vec![entrant("a")])),
        Err(MatchError::TooFewEngines)
    ));
    assert!(matches!(
        pairings(&options(vec![entrant("a"), entrant("a")])),
        Err(MatchError::DuplicateName(_))
    ));
    let mut unknown = options(vec![entrant("a"), entrant("b")]);
    unknown.variant = "huge".to_owned();
    assert!(matches!(pairings(&unknown), Err(MatchError::Variant(_))));
    let uci = Entrant {
        name: "fish".to_owned(),
        player: Player::Engine(EngineSpec::Uci {
            command: "stockfish".to_owned(),
            options: Vec::new(),
        }),
    };
    assert!(matches!(
        pairings(&options(vec![entrant("a"), uci])),
        Err(MatchError::Unplayable { .. })
    ));
    // An opening book is checked line by line before anything is played.
    let mut book = options(vec![entrant("a"), entrant("b")]);
    book.openings = Openings::Book(vec!["f5d6".to_owned(), "f5f5".to_owned()]);
    assert!(matches!(
        pairings(&book),
        Err(MatchError::Opening { line: 2, .. })
    ));
    book.openings = Openings::Book(vec!["f5 d6 c3".to_owned(), "e6f4".to_owned()]);
    assert_eq!(pairings(&book).map(|p| p.len()).ok(), Some(1));
    book.openings = Openings::Book(Vec::new());
    assert!(matches!(pairings(&book), Err(MatchError::EmptyBook)));
    let mut three = options(vec![entrant("a"), entrant("b"), entrant("c")]);
    assert_eq!(pairings(&three).map(|p| p.len()).ok(), Some(3));
    three.sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).ok();
    assert!(matches!(pairings(&three), Err(MatchError::SprtNeedsTwo(3))));
}

#[tokio::test]
async fn identical_pairs_tell_the_test_nothing() {
    // The practice engine plays the same game from the same opening whichever side it plays,
    // so each pair scores 1 point of 2 for each engine: no variance, no information.
    let mut decided = options(vec![entrant("a"), entrant("b")]);
    decided.games = 200;
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("a test");
    decided.sprt = Some(sprt);
    let (sender, _receiver) = mpsc::unbounded_channel();
    let report = run(decided, sender, Arc::new(AtomicBool::new(false)))
        .await
        .expect("played");
    // Identical pairs carry no information: the ratio stays 0 and every game is played.
    assert_eq!(report.standing.llr, Some(0.0));
    assert_eq!(report.standing.games, 200);
    assert!(!report.stopped_early);
}
