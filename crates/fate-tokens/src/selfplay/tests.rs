use std::sync::atomic::{AtomicU64, Ordering};

use arbiter_rules::{Game, Random, Seat, Viewer};

use super::*;
use crate::setup::{MAX_PLAYERS, MIN_PLAYERS, SetupRow};

/// Players that never decide: every decision is the deadline's default (section 21).
struct Idle;

impl Players for Idle {
    fn decide(&self, _view: &FateView, _rng: &mut dyn Random) -> Option<FateAction> {
        None
    }

    fn claims(&self, _view: &FateView, _rng: &mut dyn Random) -> Vec<FateAction> {
        Vec::new()
    }
}

/// Players whose every decision quotes a phase that has passed, and who claim what they may
/// not: everything they send is refused.
struct Stale;

impl Players for Stale {
    fn decide(&self, view: &FateView, _rng: &mut dyn Random) -> Option<FateAction> {
        Some(FateAction::Ready {
            phase: view.phase_number.saturating_sub(1),
        })
    }

    fn claims(&self, _view: &FateView, _rng: &mut dyn Random) -> Vec<FateAction> {
        vec![FateAction::Claim {
            pair: [Seat(0), Seat(0)],
            bad: 0,
        }]
    }
}

fn no_progress(_: u64) {}

#[test]
fn the_same_seed_plays_the_same_game() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..5 {
            let first = play(players, seed, &RandomPlayers).expect("a game");
            let again = play(players, seed, &RandomPlayers).expect("a game");
            assert_eq!(first, again, "{players} players, seed {seed}");
        }
    }
}

#[test]
fn different_seeds_play_different_games() {
    let reports: Vec<GameReport> = (0..30)
        .map(|seed| play(6, seed, &RandomPlayers).expect("a game"))
        .collect();
    let rounds: std::collections::BTreeSet<u32> = reports.iter().map(|r| r.rounds).collect();
    assert!(rounds.len() > 1, "every game lasted {rounds:?} rounds");
    assert!(reports.iter().any(|r| r.good_won));
    assert!(reports.iter().any(|r| !r.good_won));
}

#[test]
fn every_random_game_ends_with_nothing_refused() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        let cap = SetupRow::for_players(players).expect("a setup").round_cap;
        for seed in 0..40 {
            let report = play(players, seed, &RandomPlayers)
                .unwrap_or_else(|e| panic!("{players} players, seed {seed}: {e}"));
            assert_eq!(report.refused, 0, "{players} players, seed {seed}");
            assert!(
                (1..=cap).contains(&report.rounds),
                "{players} players, seed {seed}: {report:?}"
            );
            assert_eq!(report.good_won, report.ending.good_wins(), "{report:?}");
            // Rule 18.4: only the last round can end at the cap.
            if report.ending == Ending::RoundCap {
                assert_eq!(report.rounds, cap, "{report:?}");
            }
        }
    }
}

#[test]
fn a_view_offers_exactly_the_legal_decisions() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..6 {
            let mut checked = 0;
            let mut check = |state: &FateState| {
                for seat in (0..players).map(Seat) {
                    let view = FateTokens::view(state, Viewer::Seat(seat));
                    assert_eq!(
                        decisions(&view),
                        FateTokens::legal_actions(state, seat),
                        "{players} players, seed {seed}, seat {}, phase {:?}",
                        seat.0,
                        state.phase_kind()
                    );
                }
                checked += 1;
            };
            play_observed(players, seed, &RandomPlayers, &[], &mut check).expect("a game");
            assert!(checked > 20, "only {checked} states seen");
        }
    }
}

#[test]
fn a_spectator_is_offered_nothing() {
    let mut seen_pending = false;
    let mut check = |state: &FateState| {
        seen_pending |= !FateTokens::view(state, Viewer::Seat(Seat(0)))
            .pending
            .is_empty();
        assert!(decisions(&FateTokens::view(state, Viewer::Spectator)).is_empty());
    };
    play_observed(5, 3, &RandomPlayers, &[], &mut check).expect("a game");
    assert!(seen_pending);
}

#[test]
fn players_who_never_decide_get_every_default() {
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        let report = play(players, 11, &Idle).expect("a game");
        let cap = SetupRow::for_players(players).expect("a setup").round_cap;
        // Nobody accuses by default (rule 10.5) and nobody pathfinds (rule 11.16), so nobody
        // is exiled or becomes a ghost, and the GMs win at the round cap (rule 18.4).
        assert_eq!(
            (
                report.good_won,
                report.rounds,
                report.ending,
                report.refused
            ),
            (false, cap, Ending::RoundCap, 0)
        );
    }
}

#[test]
fn refused_actions_are_counted_and_the_game_still_ends() {
    let report = play(4, 5, &Stale).expect("a game");
    let idle = play(4, 5, &Idle).expect("a game");
    assert!(report.refused > 0);
    // Each refused seat waits for the deadline, as an idle one does: the same game.
    assert_eq!(
        (report.good_won, report.rounds, report.ending),
        (idle.good_won, idle.rounds, idle.ending)
    );
}

#[test]
fn a_player_count_the_rules_refuse_is_an_error() {
    for players in [0, 3, 9] {
        assert!(matches!(
            play(players, 1, &RandomPlayers),
            Err(PlayError::Config(_))
        ));
    }
}

#[test]
fn endings_are_the_rules_reasons_one_to_one() {
    let reasons = [
        WinReason::Pathfinder,
        WinReason::Counter,
        WinReason::NoGreatMisfortune,
        WinReason::Parity,
        WinReason::RoundCap,
    ];
    let endings: Vec<Ending> = reasons.iter().map(|&r| Ending::of(r)).collect();
    assert_eq!(endings, Ending::ALL);
    for (i, ending) in Ending::ALL.iter().enumerate() {
        assert_eq!(ending.index(), i);
    }
}

#[test]
fn game_seeds_are_fixed_and_distinct() {
    // SplitMix64's first output from state 0, its published reference value.
    assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    // Pinned: a change would make every published run unrepeatable.
    assert_eq!(game_seed(1, 6, 0), 0x0518_9471_0f16_a51f);
    let mut seen = std::collections::BTreeSet::new();
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for index in 0..200 {
            assert!(seen.insert(game_seed(1, players, index)));
        }
    }
    assert_ne!(game_seed(1, 6, 0), game_seed(2, 6, 0));
}

#[test]
fn totals_do_not_depend_on_the_number_of_threads() {
    let finished = AtomicU64::new(0);
    let count = |n: u64| {
        finished.fetch_add(n, Ordering::Relaxed);
    };
    let one = simulate(4..=5, 24, 7, 1, &RandomPlayers, &count).expect("reports");
    let three = simulate(4..=5, 24, 7, 3, &RandomPlayers, &count).expect("reports");
    assert_eq!(one, three);
    assert_eq!(finished.load(Ordering::Relaxed), 2 * 2 * 24);
    assert_eq!(one.iter().map(|r| r.players).collect::<Vec<_>>(), [4, 5]);
    for report in &one {
        assert_eq!(report.games, 24);
        assert_eq!(report.endings.iter().map(|(_, n)| n).sum::<u32>(), 24);
        assert_eq!(report.refused, 0);
    }
}

#[test]
fn a_report_sums_the_games_it_was_given() {
    let mut by_hand = CountReport::new(6);
    for index in 0..4 {
        by_hand.add(&play(6, game_seed(9, 6, index), &RandomPlayers).expect("a game"));
    }
    let simulated = simulate(6..=6, 4, 9, 2, &RandomPlayers, &no_progress).expect("reports");
    assert_eq!(simulated, [by_hand]);
}

#[test]
fn a_game_that_cannot_be_played_stops_the_simulation() {
    let error = simulate(3..=4, 5, 1, 2, &RandomPlayers, &no_progress).expect_err("3 players");
    assert_eq!((error.players, error.index), (3, 0));
    assert_eq!(error.seed, game_seed(1, 3, 0));
    assert!(matches!(error.error, PlayError::Config(_)));
}

#[test]
fn wilson_intervals_match_hand_computed_values() {
    // (successes, trials, low, high), worked out from the formula with z = 1.959964.
    let cases = [
        (5, 10, 0.236_593, 0.763_407),
        (0, 10, 0.0, 0.277_533),
        (10, 10, 0.722_467, 1.0),
        (1, 1, 0.206_549, 1.0),
        (45, 100, 0.356_145, 0.547_554),
        (520, 1000, 0.489_018, 0.550_829),
        (81, 263, 0.255_289, 0.366_210),
        (0, 0, 0.0, 1.0),
    ];
    for (successes, trials, low, high) in cases {
        let interval = wilson(successes, trials, Z95);
        assert!(
            (interval.low - low).abs() < 1e-6 && (interval.high - high).abs() < 1e-6,
            "{successes}/{trials}: {interval:?}, not [{low}, {high}]"
        );
    }
}

#[test]
fn report_figures_follow_from_the_counts() {
    let mut report = CountReport::new(5);
    assert_eq!((report.win_rate(), report.average_rounds()), (0.0, 0.0));
    let games = [
        (true, 4, Ending::NoGreatMisfortune),
        (false, 6, Ending::RoundCap),
        (false, 3, Ending::Pathfinder),
        (true, 5, Ending::NoGreatMisfortune),
    ];
    for (good_won, rounds, ending) in games {
        report.add(&GameReport {
            good_won,
            rounds,
            ending,
            refused: 1,
        });
    }
    assert_eq!(report.win_rate(), 0.5);
    assert_eq!(report.average_rounds(), 4.5);
    assert_eq!(report.refused, 4);
    assert_eq!(report.endings.count(Ending::NoGreatMisfortune), 2);
    assert_eq!(report.endings.count(Ending::Counter), 0);
    assert_eq!(report.interval(), wilson(2, 4, Z95));
}

/// Checks that `text` is well-formed XML as far as an SVG writer can get it wrong: every tag
/// closed in order, one root, quoted attributes, no stray `<` or `&` in text. Returns the
/// element names in document order.
fn check_well_formed(text: &str) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let between = &rest[..start];
        assert!(!between.contains('>'), "stray > in {between:?}");
        assert!(!between.contains('&'), "unescaped & in {between:?}");
        let end = rest[start..].find('>').expect("an unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "< inside tag {tag:?}");
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in {tag:?}"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "misnested </{name}>");
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            assert!(!name.is_empty(), "a tag without a name: {tag:?}");
            if open.is_empty() {
                roots += 1;
            }
            names.push(name.clone());
            if !tag.ends_with('/') {
                open.push(name);
            }
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed elements {open:?}");
    assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
    assert_eq!(roots, 1, "one root element");
    names
}

#[test]
fn the_chart_is_well_formed_with_a_bar_per_count() {
    let reports = simulate(4..=6, 10, 3, 2, &RandomPlayers, &no_progress).expect("reports");
    let text = svg(&reports);
    let names = check_well_formed(&text);
    assert_eq!(names.first().map(String::as_str), Some("svg"));
    assert!(text.contains(r#"xmlns="http://www.w3.org/2000/svg""#));
    assert_eq!(text.matches(r#"class="bar""#).count(), reports.len());
    assert_eq!(text.matches(r#"class="whisker""#).count(), reports.len());
    assert_eq!(text.matches(r#"class="target""#).count(), 1);
    for report in &reports {
        assert!(text.contains(&format!(r#"data-players="{}""#, report.players)));
        assert!(text.contains(&format!(">{} players<", report.players)));
        assert!(text.contains(&format!(">{:.1} %<", report.win_rate() * 100.0)));
    }
}

#[test]
fn the_chart_of_no_reports_is_still_a_chart() {
    let text = svg(&[]);
    check_well_formed(&text);
    assert_eq!(text.matches(r#"class="bar""#).count(), 0);
    assert_eq!(text.matches(r#"class="target""#).count(), 1);
}

#[test]
fn the_chart_draws_rates_and_intervals_to_scale() {
    let mut report = CountReport::new(7);
    for good_won in [true, true, true, false] {
        report.add(&GameReport {
            good_won,
            rounds: 5,
            ending: if good_won {
                Ending::NoGreatMisfortune
            } else {
                Ending::Parity
            },
            refused: 0,
        });
    }
    let text = svg(&[report]);
    check_well_formed(&text);
    assert!(text.contains(">75.0 %<"), "{text}");
    // The plot runs from y = 56 (100 %) to y = 268 (0 %): a 75 % bar starts at y = 109.
    assert!(
        text.contains(r#"y="109.0" width="44.0" height="159.0""#),
        "{text}"
    );
}
