use proptest::prelude::*;

use super::*;

fn rating(rating: f64, deviation: f64) -> Rating {
    Rating {
        rating,
        deviation,
        ..Rating::new(&RatingConfig::default())
    }
}

/// Glickman's "Example of the Glicko-2 system": a 1500/200 player beats a 1400/30 player and
/// loses to a 1550/100 and a 1700/300 player in one rating period, with τ = 0.5.
fn glickman() -> (Rating, [(Rating, Outcome); 3]) {
    (
        rating(1500.0, 200.0),
        [
            (rating(1400.0, 30.0), Outcome::Win),
            (rating(1550.0, 100.0), Outcome::Loss),
            (rating(1700.0, 300.0), Outcome::Loss),
        ],
    )
}

#[test]
fn glickmans_worked_example_in_one_rating_period() {
    let (player, results) = glickman();
    let after = rate_period(&player, &results, &RatingConfig::default());
    // The paper rounds its intermediate values, so its figures hold within these tolerances.
    assert!((after.rating - 1464.06).abs() < 0.05, "{after:?}");
    assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
    assert!((after.volatility - 0.05999).abs() < 1e-5, "{after:?}");
    assert_eq!((after.games, after.wins, after.losses), (3, 1, 2));
}

#[test]
fn glickmans_games_rated_one_at_a_time() {
    // Rated as each game ends, the same three games give slightly different figures.
    let config = RatingConfig::default();
    let (mut player, results) = glickman();
    for (opponent, outcome) in results {
        player = rate(&player, &opponent, outcome, &config).0;
    }
    assert!((player.rating - 1463.79).abs() < 0.05, "{player:?}");
    assert!((player.deviation - 151.87).abs() < 0.01, "{player:?}");
    assert!((player.volatility - 0.0599975).abs() < 1e-6, "{player:?}");
}

#[test]
fn the_record_counts_results_streaks_and_the_highest_rating() {
    let config = RatingConfig::default();
    let opponent = Rating::new(&config);
    let mut bot = Rating::new(&config);
    let table = [
        (Outcome::Win, 1, 1),
        (Outcome::Win, 2, 2),
        (Outcome::Draw, 0, 2),
        (Outcome::Loss, -1, 2),
        (Outcome::Loss, -2, 2),
        (Outcome::Win, 1, 2),
    ];
    let mut high = bot.rating;
    for (outcome, streak, best) in table {
        bot = rate(&bot, &opponent, outcome, &config).0;
        high = high.max(bot.rating);
        assert_eq!(
            (bot.streak, bot.best_streak),
            (streak, best),
            "after {outcome:?}"
        );
        assert_eq!(bot.high, high);
    }
    assert_eq!((bot.games, bot.wins, bot.losses, bot.draws), (6, 3, 2, 1));
    assert!(bot.provisional(&config));
    assert_eq!(bot.official_progress(&config), 6);
}

#[test]
fn a_rating_is_official_after_fifty_games() {
    let config = RatingConfig::default();
    let mut bot = Rating::new(&config);
    for _ in 0..49 {
        bot = rate(&bot, &Rating::new(&config), Outcome::Draw, &config).0;
    }
    assert!(bot.provisional(&config));
    bot = rate(&bot, &Rating::new(&config), Outcome::Draw, &config).0;
    assert!(!bot.provisional(&config));
    bot = rate(&bot, &Rating::new(&config), Outcome::Draw, &config).0;
    assert_eq!(bot.official_progress(&config), 50);
}

#[test]
fn a_rating_round_trips_through_json() {
    let config = RatingConfig::default();
    let (bot, _) = rate(
        &Rating::new(&config),
        &Rating::new(&config),
        Outcome::Win,
        &config,
    );
    let text = serde_json::to_string(&bot).expect("serialize");
    assert_eq!(serde_json::from_str::<Rating>(&text).expect("parse"), bot);
}

fn any_rating() -> impl Strategy<Value = Rating> {
    (800.0..2800.0f64, 30.0..350.0f64, 0.03..0.1f64).prop_map(|(r, rd, vol)| Rating {
        volatility: vol,
        ..rating(r, rd)
    })
}

proptest! {
    #[test]
    fn winners_never_lose_points_and_losers_never_gain(a in any_rating(), b in any_rating()) {
        let config = RatingConfig::default();
        let (winner, loser) = rate(&a, &b, Outcome::Win, &config);
        prop_assert!(winner.rating >= a.rating && loser.rating <= b.rating);
        prop_assert!(winner.rating.is_finite() && loser.rating.is_finite());
        prop_assert!(winner.deviation > 0.0 && loser.deviation > 0.0);
        // Reversing the sides reverses the result.
        let (loser_again, winner_again) = rate(&b, &a, Outcome::Loss, &config);
        prop_assert_eq!(winner_again, winner);
        prop_assert_eq!(loser_again, loser);
    }

    #[test]
    fn a_draw_between_equals_moves_no_rating(a in any_rating()) {
        let config = RatingConfig::default();
        let (x, y) = rate(&a, &a, Outcome::Draw, &config);
        prop_assert!((x.rating - a.rating).abs() < 1e-9 && (y.rating - a.rating).abs() < 1e-9);
    }
}

#[test]
fn two_sides_ranked_are_rated_as_one_result() {
    let config = RatingConfig::default();
    let (a, b) = (rating(1500.0, 200.0), rating(1400.0, 80.0));
    for (ranks, outcome) in [
        ([1, 2], Outcome::Win),
        ([2, 1], Outcome::Loss),
        ([1, 1], Outcome::Draw),
    ] {
        let (first, second) = rate(&a, &b, outcome, &config);
        assert_eq!(
            rate_ranked(&[a.clone(), b.clone()], &ranks, None, &config),
            [first, second]
        );
    }
}

#[test]
fn a_ranked_match_of_four_rates_everyone_once_by_place() {
    let config = RatingConfig::default();
    let new = Rating::new(&config);
    let sides = vec![new.clone(); 4];
    let after = rate_ranked(&sides, &[1, 2, 3, 4], None, &config);
    // Equal ratings before, so the order of the places is the order of the ratings after.
    for pair in after.windows(2) {
        assert!(pair[0].rating > pair[1].rating, "{after:?}");
    }
    assert!(after[0].rating > new.rating && after[3].rating < new.rating);
    let records: Vec<(u32, u32, u32, u32)> = after
        .iter()
        .map(|r| (r.games, r.wins, r.losses, r.draws))
        .collect();
    assert_eq!(
        records,
        [(1, 1, 0, 0), (1, 0, 1, 0), (1, 0, 1, 0), (1, 0, 1, 0)]
    );
    // First place shared by two opponents is a draw for both.
    let shared = rate_ranked(&sides, &[1, 1, 3, 4], None, &config);
    assert_eq!((shared[0].draws, shared[1].draws), (1, 1));
    assert_eq!(shared[0].rating, shared[1].rating);
}

#[test]
fn teammates_are_never_rated_against_each_other() {
    let config = RatingConfig::default();
    let new = Rating::new(&config);
    let sides = vec![new.clone(); 4];
    let teams = [Some(0), Some(1), Some(0), Some(1)];
    let after = rate_ranked(&sides, &[1, 2, 1, 2], Some(&teams), &config);
    assert_eq!(after[0], after[2], "one team, one result");
    assert_eq!(after[1], after[3]);
    assert!(after[0].rating > new.rating && after[1].rating < new.rating);
    assert_eq!(
        (after[0].wins, after[1].losses),
        (1, 1),
        "teammates share first place"
    );
    // The same two-against-two result, rated as if teammates had played each other, differs.
    let alone = rate_ranked(&sides, &[1, 2, 1, 2], None, &config);
    assert_ne!(alone[0], after[0]);
    // A side whose every other side is a teammate has nobody to be rated against.
    let one_team = rate_ranked(&sides[..2], &[1, 1], Some(&[Some(0), Some(0)]), &config);
    assert_eq!(one_team, [new.clone(), new]);
}
