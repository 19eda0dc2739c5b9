use super::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() < tolerance
}

#[test]
fn elo_and_score_are_inverse() {
    for elo in [-400.0, -120.0, 0.0, 35.5, 191.0, 800.0] {
        assert!(close(elo_of_score(score_of_elo(elo)), elo, 1e-9), "{elo}");
    }
    // 120 points: about two games in three.
    assert!(close(score_of_elo(120.0), 0.666_139, 1e-6));
}

#[test]
fn the_elo_interval_is_cutechess_clis() {
    // 30 wins, 40 draws, 20 losses: the score is 50/90 = 0.5556, the variance per game
    // (30 × 0.4444² + 40 × 0.0556² + 20 × 0.5556²) / 90 = 0.13580, its standard error
    // √(0.13580 / 90) = 0.038845, so the score lies in 0.5556 ± 1.96 × 0.038845 =
    // [0.47942, 0.63169], which is [−14.34, +93.70] Elo around 38.76: ±54.01.
    let tally = Tally {
        wins: 30,
        draws: 40,
        losses: 20,
    };
    let estimate = tally.elo().expect("an estimate");
    assert!(close(estimate.elo, 38.764, 1e-3), "{estimate:?}");
    assert!(close(estimate.margin, 54.012, 1e-3), "{estimate:?}");
    // LOS = ½(1 + erf((30 − 20) / √(2 × 50))) = ½(1 + erf(1)) = 0.92135.
    assert!(close(tally.los().expect("decisive games"), 0.921_350, 1e-6));
    assert!(close(tally.draw_ratio().expect("games"), 4.0 / 9.0, 1e-12));
    // All wins or all losses have no finite Elo.
    let sweep = Tally {
        wins: 5,
        ..Tally::default()
    };
    assert_eq!(sweep.elo(), None);
    assert_eq!(Tally::default().score(), None);
}

#[test]
fn pairs_are_counted_by_their_points() {
    let mut pairs = Pentanomial::default();
    let table = [
        (Score::Loss, Score::Loss, 0),
        (Score::Loss, Score::Draw, 1),
        (Score::Win, Score::Loss, 2),
        (Score::Draw, Score::Draw, 2),
        (Score::Draw, Score::Win, 3),
        (Score::Win, Score::Win, 4),
    ];
    for (first, second, slot) in table {
        let before = pairs.0[slot];
        pairs.add(first, second);
        assert_eq!(pairs.0[slot], before + 1, "{first:?} + {second:?}");
    }
    assert_eq!(pairs, Pentanomial([1, 1, 2, 1, 1]));
}

#[test]
fn the_log_likelihood_ratio_is_the_generalised_sprts() {
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("a test");
    // ln(0.05 / 0.95) and ln(0.95 / 0.05).
    let (lower, upper) = sprt.bounds();
    assert!(close(lower, -2.944_439, 1e-6) && close(upper, 2.944_439, 1e-6));
    // Games: s₀ = 0.5, s₁ = 1 / (1 + 10^(−5/400)) = 0.507195; with the tally above,
    // 0.007195 × (2 × 0.5556 − 1.007195) / (2 × 0.13580 / 90) = 0.24776.
    let tally = Tally {
        wins: 30,
        draws: 40,
        losses: 20,
    };
    assert!(close(sprt.llr_of_games(&tally), 0.247_755, 1e-5));
    // Pairs [2, 10, 20, 12, 6]: mean 0.55, variance 0.065 per pair, so
    // 0.007195 × (1.1 − 1.007195) / (2 × 0.065 / 50) = 0.25682.
    let pairs = Pentanomial([2, 10, 20, 12, 6]);
    assert!(close(sprt.llr(&pairs), 0.256_823, 1e-5));
    let estimate = pairs.elo().expect("an estimate");
    assert!(close(estimate.elo, 34.860, 1e-3) && close(estimate.margin, 49.953, 1e-3));
    // Nothing decided yet, and no information at all in identical pairs.
    assert_eq!(sprt.verdict(sprt.llr(&pairs)), SprtVerdict::Continue);
    assert_eq!(sprt.llr(&Pentanomial([0, 0, 7, 0, 0])), 0.0);
}

/// Pairs of games whose points (in halves) repeat `pattern`, fed to `sprt` until it decides:
/// the number of pairs it took, and the verdict.
fn run_until_decided(sprt: &Sprt, pattern: &[usize]) -> (usize, SprtVerdict) {
    let mut pairs = Pentanomial::default();
    for n in 1..100_000 {
        pairs.0[pattern[(n - 1) % pattern.len()]] += 1;
        let verdict = sprt.verdict(sprt.llr(&pairs));
        if verdict != SprtVerdict::Continue {
            return (n, verdict);
        }
    }
    panic!("undecided after 100,000 pairs");
}

#[test]
fn the_test_stops_at_the_bound_the_results_cross() {
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("a test");
    // Computed by hand, pair by pair, from the same formula: alternating pairs of 2 and 1
    // points first reach 2.9508 ≥ 2.9444 at the 103rd pair; alternating 0 and 1 first reach
    // −2.9777 at the 101st; a pattern of eight pairs scoring exactly half reaches −2.94493
    // at the 8,885th.
    let table: [(&[usize], usize, SprtVerdict); 3] = [
        (&[4, 2], 103, SprtVerdict::H1),
        (&[0, 2], 101, SprtVerdict::H0),
        (&[2, 3, 1, 2, 2, 4, 0, 2], 8_885, SprtVerdict::H0),
    ];
    for (pattern, pairs, verdict) in table {
        assert_eq!(
            run_until_decided(&sprt, pattern),
            (pairs, verdict),
            "{pattern:?}"
        );
    }
}

#[test]
fn a_test_with_impossible_parameters_is_refused() {
    assert!(matches!(
        Sprt::new(5.0, 0.0, 0.05, 0.05),
        Err(SprtError::Order { .. })
    ));
    assert_eq!(
        Sprt::new(0.0, 5.0, 0.0, 0.05),
        Err(SprtError::Rate("alpha"))
    );
    assert_eq!(Sprt::new(0.0, 5.0, 0.05, 1.0), Err(SprtError::Rate("beta")));
}
