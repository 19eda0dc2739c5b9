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

/// A Weng-Lin rating from a skill and an uncertainty in Weng-Lin's own units.
fn skill(mu: f64, sigma: f64) -> Rating {
    let config = RatingConfig::default();
    let (rating, deviation) = weng_lin::shown(
        skillratings::weng_lin::WengLinRating {
            rating: mu,
            uncertainty: sigma,
        },
        &config,
    );
    Rating {
        rating,
        deviation,
        ..Rating::new_in(RatingSystem::WengLin, &config)
    }
}

/// `rating`'s skill and uncertainty in Weng-Lin's own units.
fn units(rating: &Rating) -> (f64, f64) {
    let skill = weng_lin::skill(rating, &RatingConfig::default());
    (skill.rating, skill.uncertainty)
}

#[test]
fn modes_of_more_than_two_seats_are_rated_by_weng_lin() {
    let table = [
        (2, RatingSystem::Glicko2),
        (3, RatingSystem::WengLin),
        (4, RatingSystem::WengLin),
        (8, RatingSystem::WengLin),
    ];
    for (seats, system) in table {
        assert_eq!(RatingSystem::for_seats(seats), system, "{seats} seats");
    }
    let config = RatingConfig::default();
    let new = Rating::new_in(RatingSystem::WengLin, &config);
    assert_eq!(units(&new), (25.0, 25.0 / 3.0));
    assert_eq!(new.rating, config.initial_rating);
}

#[test]
fn a_team_result_matches_the_published_weng_lin_figures() {
    // skillratings' `test_weng_multi_team_two`: two teams of three, the first team wins.
    let first = [skill(25.0, 25.0 / 3.0), skill(30.0, 1.2), skill(21.0, 6.5)];
    let second = [skill(25.0, 25.0 / 3.0), skill(41.0, 1.4), skill(19.2, 4.3)];
    let sides: Vec<Rating> = first.iter().chain(&second).cloned().collect();
    let teams = [Some(0), Some(0), Some(0), Some(1), Some(1), Some(1)];
    let after = rate_match(
        RatingSystem::WengLin,
        &sides,
        &[1, 1, 1, 2, 2, 2],
        Some(&teams),
        &RatingConfig::default(),
    );
    let published = [
        (27.904_443_970_057_24, 8.138_803_466_450_47),
        (30.060_226_550_163_108, 1.199_425_779_255_630_7),
        (22.767_063_711_382_825, 6.408_113_466_768_933),
        (22.095_556_029_942_76, 8.160_155_338_979_159),
        (40.918_024_973_389_1, 1.399_187_149_975_365_4),
        (18.426_674_366_308_44, 4.276_389_807_576_043),
    ];
    for (i, (mu, sigma)) in published.into_iter().enumerate() {
        let (got_mu, got_sigma) = units(&after[i]);
        assert!((got_mu - mu).abs() < 1e-9, "side {i}: {got_mu} ≠ {mu}");
        assert!(
            (got_sigma - sigma).abs() < 1e-9,
            "side {i}: {got_sigma} ≠ {sigma}"
        );
    }
    let records: Vec<(u32, u32)> = after.iter().map(|r| (r.wins, r.losses)).collect();
    assert_eq!(records, [(1, 0), (1, 0), (1, 0), (0, 1), (0, 1), (0, 1)]);
}

#[test]
fn a_team_result_of_three_teams_matches_the_published_figures() {
    // skillratings' example for `weng_lin_multi_team`: three teams of three placed 2, 1, 3.
    let sides = [
        skill(25.0, 25.0 / 3.0),
        skill(30.0, 1.2),
        skill(21.0, 6.5),
        skill(25.0, 25.0 / 3.0),
        skill(41.0, 1.4),
        skill(19.2, 4.3),
        skill(25.0, 25.0 / 3.0),
        skill(29.4, 1.6),
        skill(17.2, 2.1),
    ];
    let teams = [0, 0, 0, 1, 1, 1, 2, 2, 2].map(Some);
    let after = rate_match(
        RatingSystem::WengLin,
        &sides,
        &[2, 2, 2, 1, 1, 1, 3, 3, 3],
        Some(&teams),
        &RatingConfig::default(),
    );
    let published = [
        25.38, 30.01, 21.23, 27.96, 41.08, 19.99, 21.66, 29.28, 16.99,
    ];
    for (i, mu) in published.into_iter().enumerate() {
        let (got, _) = units(&after[i]);
        assert!(
            ((got * 100.0).round() / 100.0 - mu).abs() < 1e-9,
            "side {i}: {got}"
        );
    }
}

/// Weng and Lin's Algorithm 1 (the Bradley-Terry model, every pair compared) for players
/// alone, written out from the paper's formulas, with β = 25/6 and κ = 10⁻⁶.
fn bradley_terry_by_hand(players: &[(f64, f64)], ranks: &[u8]) -> Vec<(f64, f64)> {
    let beta: f64 = 25.0 / 6.0;
    players
        .iter()
        .enumerate()
        .map(|(i, &(mu_i, sigma_i))| {
            let (mut omega, mut delta) = (0.0, 0.0);
            for (q, &(mu_q, sigma_q)) in players.iter().enumerate() {
                if q == i {
                    continue;
                }
                let c = (sigma_i * sigma_i + sigma_q * sigma_q + 2.0 * beta * beta).sqrt();
                let p = (mu_i / c).exp() / ((mu_i / c).exp() + (mu_q / c).exp());
                let s = match ranks[i].cmp(&ranks[q]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                let gamma = sigma_i / c;
                omega += sigma_i * sigma_i / c * (s - p);
                delta += gamma * sigma_i * sigma_i / (c * c) * p * (1.0 - p);
            }
            let mu = mu_i + omega;
            let sigma = sigma_i * f64::max(1.0 - delta, 1e-6).sqrt();
            (mu, sigma)
        })
        .collect()
}

#[test]
fn a_six_player_result_matches_the_papers_formulas() {
    let players = [
        (25.0, 25.0 / 3.0),
        (31.5, 4.0),
        (20.0, 7.5),
        (28.0, 2.5),
        (25.0, 25.0 / 3.0),
        (18.0, 6.0),
    ];
    // A tie for third place.
    let ranks = [4, 1, 3, 2, 3, 6];
    let sides: Vec<Rating> = players
        .iter()
        .map(|&(mu, sigma)| skill(mu, sigma))
        .collect();
    let after = rate_match(
        RatingSystem::WengLin,
        &sides,
        &ranks,
        None,
        &RatingConfig::default(),
    );
    let expected = bradley_terry_by_hand(&players, &ranks);
    for (i, (mu, sigma)) in expected.into_iter().enumerate() {
        let (got_mu, got_sigma) = units(&after[i]);
        assert!((got_mu - mu).abs() < 1e-9, "player {i}: {got_mu} ≠ {mu}");
        assert!(
            (got_sigma - sigma).abs() < 1e-9,
            "player {i}: {got_sigma} ≠ {sigma}"
        );
    }
    // The winner gains, the last loses, and everyone is surer than before.
    assert!(after[1].rating > sides[1].rating && after[5].rating < sides[5].rating);
    assert!(
        after
            .iter()
            .zip(&sides)
            .all(|(a, s)| a.deviation < s.deviation)
    );
    let wins: Vec<u32> = after.iter().map(|r| r.wins).collect();
    assert_eq!(wins, [0, 1, 0, 0, 0, 0]);
}

#[test]
fn a_glicko_rating_carries_into_weng_lin_with_its_record() {
    let config = RatingConfig::default();
    let (old, _) = rate(
        &rating(1650.0, 120.0),
        &rating(1500.0, 80.0),
        Outcome::Win,
        &config,
    );
    let carried = old.in_system(RatingSystem::WengLin, &config);
    assert_eq!(carried.system, RatingSystem::WengLin);
    assert_eq!(
        (carried.rating, carried.games, carried.wins),
        (old.rating, 1, 1)
    );
    assert_eq!(carried.deviation, old.deviation);
    // A deviation wider than a new Weng-Lin rating's is narrowed to it.
    let unsure = rating(1200.0, 350.0).in_system(RatingSystem::WengLin, &config);
    assert_eq!(units(&unsure).1, 25.0 / 3.0);
    // A match rates a stored Glicko-2 rating in the mode's system.
    let after = rate_match(
        RatingSystem::WengLin,
        &[old.clone(), Rating::new(&config), Rating::new(&config)],
        &[1, 2, 3],
        None,
        &config,
    );
    assert!(after.iter().all(|r| r.system == RatingSystem::WengLin));
    assert_eq!(after[0].games, 2);
}

#[test]
fn a_stored_rating_names_its_system_only_when_it_is_not_glicko2() {
    let config = RatingConfig::default();
    let glicko = serde_json::to_value(Rating::new(&config)).expect("serialize");
    assert!(glicko.get("system").is_none(), "{glicko}");
    let weng_lin =
        serde_json::to_value(Rating::new_in(RatingSystem::WengLin, &config)).expect("serialize");
    assert_eq!(weng_lin["system"], "weng-lin");
    let back: Rating = serde_json::from_value(weng_lin).expect("parse");
    assert_eq!(back.system, RatingSystem::WengLin);
}

fn any_skill() -> impl Strategy<Value = Rating> {
    (10.0..40.0f64, 0.5..8.4f64).prop_map(|(mu, sigma)| skill(mu, sigma))
}

proptest! {
    #[test]
    fn in_weng_lin_the_first_never_loses_and_the_last_never_gains(
        sides in proptest::collection::vec(any_skill(), 3..=8),
    ) {
        let config = RatingConfig::default();
        let ranks: Vec<u8> = (1..=sides.len() as u8).collect();
        let after = rate_match(RatingSystem::WengLin, &sides, &ranks, None, &config);
        let last = sides.len() - 1;
        prop_assert!(after[0].rating >= sides[0].rating);
        prop_assert!(after[last].rating <= sides[last].rating);
        prop_assert!(after.iter().all(|r| r.rating.is_finite() && r.deviation > 0.0));
    }
}
