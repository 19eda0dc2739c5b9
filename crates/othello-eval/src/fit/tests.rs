use super::*;
use crate::patterns::{DIAG4, DIAG5, DIAG6, FOLDED_LEN, MOBILITY_MOVER, MOBILITY_OPPONENT, PARITY};
use crate::test_support::{SplitMix, game_positions};

/// Weights in whole 1/128ths of a disc (so that scores in discs are exact), zero but on the
/// tables `planted` chooses: there, random up to `range` 128ths of a disc, or smooth in the
/// mobility and parity tables.
fn planted(stages: usize, seed: u64, planted: &[usize], range: i16) -> Weights {
    let mut rng = SplitMix(seed);
    let mut folded = Vec::new();
    for _ in 0..stages {
        for (table, &len) in FOLDED_LEN.iter().enumerate() {
            for entry in 0..len {
                let random = rng.below(2 * range as u64 + 1) as i16 - range;
                let w = match table {
                    _ if !planted.contains(&table) => 0,
                    MOBILITY_MOVER => (entry as i16 - 8) * 24,
                    MOBILITY_OPPONENT => (8 - entry as i16) * 24,
                    PARITY => [-64, 64][entry],
                    _ => random,
                };
                folded.push(w);
            }
        }
    }
    Weights::from_folded(stages, &folded)
}

fn samples_from(weights: &Weights, positions: &[(u64, u64)], noise: f32, seed: u64) -> Vec<Sample> {
    let mut rng = SplitMix(seed);
    positions
        .iter()
        .map(|&(p, o)| {
            let exact = weights.evaluate(p, o) as f32 / SCALE as f32;
            let jitter = (rng.below(2001) as f32 - 1000.0) / 1000.0 * noise;
            Sample {
                p,
                o,
                margin: (exact + jitter).clamp(-64.0, 64.0),
            }
        })
        .collect()
}

fn spread(samples: &[Sample]) -> f64 {
    let squares: f64 = samples.iter().map(|s| f64::from(s.margin).powi(2)).sum();
    (squares / samples.len() as f64).sqrt()
}

#[test]
fn fitting_recovers_planted_weights() {
    // Planted on tables that every position reads many times over (the shortest diagonals,
    // mobility and parity), so that held-out positions meet what training saw; the corner,
    // edge and line tables, far richer than the samples, must learn next to nothing.
    let truth = planted(
        2,
        11,
        &[DIAG4, MOBILITY_MOVER, MOBILITY_OPPONENT, PARITY],
        256,
    );
    let samples = samples_from(&truth, &game_positions(12, 150), 0.0, 0);
    let options = FitOptions {
        stages: 2,
        blend: 0,
        iterations: 100,
        l2: 1.0,
        tolerance: 1e-9,
        validation_every: 5,
    };
    let (weights, report) = fit(&samples, &options).expect("fit");
    let spread = spread(&samples);
    assert!(spread > 3.0, "targets should vary: {spread}");
    let validation = report.validation.expect("held out");
    // Zero weights would miss by `spread`; what is left comes from the shrinkage of entries
    // seen a few times only (the largest mobility counts, the rarest diagonals).
    assert!(report.training.rmse < 0.03 * spread, "{report:?}");
    assert!(validation.rmse < 0.12 * spread, "{report:?}");
    // Weights are not unique: what a square adds alone, any pattern through it may carry, and
    // a constant may move from one table to another. Predictions are, and those of fresh
    // positions agree.
    let fresh = game_positions(13, 40);
    let close = fresh
        .iter()
        .filter(|&&(p, o)| (weights.evaluate(p, o) - truth.evaluate(p, o)).abs() <= SCALE / 2)
        .count();
    assert!(
        close * 100 >= fresh.len() * 85,
        "{close} of {}",
        fresh.len()
    );
    let total: i32 = fresh
        .iter()
        .map(|&(p, o)| (weights.evaluate(p, o) - truth.evaluate(p, o)).abs())
        .sum();
    assert!(
        total < fresh.len() as i32 * SCALE / 4,
        "mean error {total}/128 over {}",
        fresh.len()
    );
}

#[test]
fn fitting_is_deterministic() {
    let truth = planted(3, 21, &[DIAG6, DIAG5, DIAG4, PARITY], 96);
    let samples = samples_from(&truth, &game_positions(22, 40), 4.0, 1);
    let options = FitOptions {
        stages: 3,
        iterations: 25,
        ..FitOptions::default()
    };
    let (first, first_report) = fit(&samples, &options).expect("fit");
    let (second, second_report) = fit(&samples, &options).expect("fit");
    assert_eq!(first.to_bytes(), second.to_bytes());
    assert_eq!(first_report, second_report);
}

#[test]
fn fitting_lowers_the_error_and_reports_progress() {
    let truth = planted(1, 31, &[DIAG6, DIAG5, DIAG4, MOBILITY_MOVER], 128);
    let samples = samples_from(&truth, &game_positions(32, 80), 3.0, 2);
    let options = FitOptions {
        stages: 2,
        iterations: 30,
        l2: 3.0,
        ..FitOptions::default()
    };
    let before = errors(&Weights::zero_with_stages(2), samples.iter().enumerate());
    let mut calls = Vec::new();
    let (_, report) =
        fit_with_progress(&samples, &options, &mut |progress| calls.push(*progress)).expect("fit");
    let validation = report.validation.expect("held out");
    assert!(
        report.training.rmse < 0.5 * before.rmse,
        "{report:?} {before:?}"
    );
    assert!(validation.rmse < 0.8 * before.rmse, "{report:?} {before:?}");
    assert_eq!(report.stages.len(), 2);
    assert_eq!(validation.samples + report.training.samples, samples.len());
    assert_eq!(validation.samples, samples.len() / 10);
    for stage in &report.stages {
        let seen: Vec<_> = calls.iter().filter(|c| c.stage == stage.stage).collect();
        assert_eq!(seen.len() as u32, stage.iterations);
        assert!(seen.iter().all(|c| c.stages == 2));
        let (first, last) = (seen[0].rmse, seen[seen.len() - 1].rmse);
        assert!(last < first, "stage {}: {first} to {last}", stage.stage);
        assert_eq!(last, stage.rmse);
    }
}

#[test]
fn blending_widens_what_a_stage_learns_from() {
    let samples = samples_from(&Weights::zero(), &game_positions(41, 10), 2.0, 3);
    let options = FitOptions {
        stages: 15,
        iterations: 3,
        validation_every: 0,
        ..FitOptions::default()
    };
    let count = |blend: u32| -> Vec<usize> {
        let (_, report) = fit(
            &samples,
            &FitOptions {
                blend,
                ..options.clone()
            },
        )
        .expect("fit");
        report.stages.iter().map(|s| s.samples).collect()
    };
    let (alone, blended) = (count(0), count(2));
    assert_eq!(alone.iter().sum::<usize>(), samples.len());
    assert!(alone.iter().zip(&blended).all(|(a, b)| a < b));
}

#[test]
fn bad_options_and_samples_are_refused() {
    let sample = Sample {
        p: 1,
        o: 2,
        margin: 0.0,
    };
    let options = FitOptions::default();
    let with = |options: FitOptions| fit(&[sample; 3], &options).map(|_| ());
    assert_eq!(
        with(FitOptions {
            stages: 0,
            ..options.clone()
        }),
        Err(FitError::StageCount(0))
    );
    assert_eq!(
        with(FitOptions {
            stages: 62,
            ..options.clone()
        }),
        Err(FitError::StageCount(62))
    );
    assert_eq!(
        with(FitOptions {
            l2: -1.0,
            ..options.clone()
        }),
        Err(FitError::L2(-1.0))
    );
    assert!(matches!(
        with(FitOptions {
            tolerance: f64::NAN,
            ..options.clone()
        }),
        Err(FitError::Tolerance(_))
    ));
    assert_eq!(
        with(FitOptions {
            validation_every: 1,
            ..options.clone()
        }),
        Err(FitError::NoTrainingSamples)
    );
    assert_eq!(
        fit(&[], &options).map(|_| ()),
        Err(FitError::NoTrainingSamples)
    );
    let bad = [
        sample,
        Sample {
            margin: 65.0,
            ..sample
        },
    ];
    assert_eq!(
        fit(&bad, &options).map(|_| ()),
        Err(FitError::Margin {
            index: 1,
            margin: 65.0
        })
    );
    let nan = [Sample {
        margin: f32::NAN,
        ..sample
    }];
    assert!(matches!(
        fit(&nan, &options),
        Err(FitError::Margin { index: 0, .. })
    ));
    let overlap = [
        sample,
        sample,
        Sample {
            p: 3,
            o: 2,
            margin: 0.0,
        },
    ];
    assert_eq!(
        fit(&overlap, &options).map(|_| ()),
        Err(FitError::Overlap { index: 2 })
    );
}
