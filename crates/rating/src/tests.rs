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
