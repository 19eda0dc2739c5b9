//! Fitting weights to scored positions: ridge least squares per stage, solved by conjugate
//! gradients preconditioned by each weight's number of occurrences.

use std::ops::RangeInclusive;

use arbiter_othello::Kernels;

use crate::patterns::{FEATURES, FOLDED_OFFSET, FOLDED_STAGE_LEN, FOLDING, SLOT_TABLE, features};
use crate::weights::{DEFAULT_STAGES, MAX_STAGES, SCALE, Weights, stage_discs};

/// One scored position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The side to move's discs.
    pub p: u64,
    /// The opponent's discs; must not overlap `p`.
    pub o: u64,
    /// The final disc margin from the mover's side, −64 to 64; it may be fractional (an
    /// average of several scores, say).
    pub margin: f32,
}

/// How to fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The number of stages, 1 to [`MAX_STAGES`] (see the crate root for how disc counts map
    /// to stages).
    pub stages: usize,
    /// Each stage also learns from positions up to this many discs outside its own disc counts,
    /// so that neighbouring stages agree and thinly sampled stages borrow data.
    pub blend: u32,
    /// The most conjugate-gradient iterations per stage; each is one pass over the stage's
    /// samples.
    pub iterations: u32,
    /// The L2 penalty: `l2` times the sum of the squared weights (in discs) is added to the
    /// squared error, so each weight is shrunk towards zero as if `l2` more samples had wanted
    /// it zero, which keeps rarely seen pattern entries small. Must be finite and not negative.
    pub l2: f64,
    /// A stage stops early once its normal equations' residual is this small relative to
    /// where it started. Must be finite and not negative.
    pub tolerance: f64,
    /// Every `validation_every`-th sample (the last of each run of that many, by position) is
    /// held out of the fit and reported as validation; 0 holds none out.
    pub validation_every: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            stages: DEFAULT_STAGES,
            blend: 2,
            iterations: 200,
            l2: 2.0,
            tolerance: 1e-6,
            validation_every: 10,
        }
    }
}

/// Errors of the fitted weights (as quantised, through [`Weights::evaluate`]) on some samples,
/// in discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorStats {
    /// The number of samples.
    pub samples: usize,
    /// The root mean square error.
    pub rmse: f64,
    /// The mean absolute error.
    pub mae: f64,
}

/// How one stage's fit went.
#[derive(Clone, Debug, PartialEq)]
pub struct StageReport {
    /// The stage.
    pub stage: usize,
    /// The disc counts it evaluates.
    pub discs: RangeInclusive<u32>,
    /// The training samples it learnt from, blended ones included.
    pub samples: usize,
    /// The iterations it ran.
    pub iterations: u32,
    /// The root mean square error on those samples before quantisation, in discs.
    pub rmse: f64,
}

/// What a fit reports.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    /// Errors on the training samples, each through its own stage.
    pub training: ErrorStats,
    /// Errors on the held-out samples, if any were held out.
    pub validation: Option<ErrorStats>,
    /// Each stage's fit.
    pub stages: Vec<StageReport>,
}

/// Where a running fit is, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitProgress {
    /// The stage being fitted.
    pub stage: usize,
    /// The number of stages.
    pub stages: usize,
    /// The iteration just finished, from 1.
    pub iteration: u32,
    /// The stage's root mean square training error so far, in discs.
    pub rmse: f64,
}

/// Why a fit cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A stage count outside 1 to [`MAX_STAGES`].
    #[error("a stage count of {0} is outside 1 to {MAX_STAGES}")]
    StageCount(usize),
    /// A negative or non-finite L2 penalty.
    #[error("the L2 penalty {0} is not a finite, non-negative number")]
    L2(f64),
    /// A negative or non-finite tolerance.
    #[error("the tolerance {0} is not a finite, non-negative number")]
    Tolerance(f64),
    /// A sample whose margin is not a number from −64 to 64.
    #[error("sample {index} has margin {margin}, outside −64 to 64")]
    Margin {
        /// The sample's position in the slice.
        index: usize,
        /// Its margin.
        margin: f32,
    },
    /// A sample whose sides share squares.
    #[error("sample {index} has discs of both sides on the same squares")]
    Overlap {
        /// The sample's position in the slice.
        index: usize,
    },
    /// No sample is left to fit once validation samples are held out.
    #[error("no training samples")]
    NoTrainingSamples,
}

/// Where each feature slot's table starts in a stage's folded weights.
const SLOT_FOLDED_OFFSET: [usize; FEATURES] = {
    let mut out = [0; FEATURES];
    let mut k = 0;
    while k < FEATURES {
        out[k] = FOLDED_OFFSET[SLOT_TABLE[k]];
        k += 1;
    }
    out
};

/// Fits weights to `samples`; see [`fit_with_progress`].
pub fn fit(samples: &[Sample], options: &FitOptions) -> Result<(Weights, FitReport), FitError> {
    fit_with_progress(samples, options, &mut |_| {})
}

/// Fits weights to `samples`, calling `progress` after every iteration.
///
/// Each stage's weights minimise the squared error on its samples plus `l2` times the sum of
/// its squared weights, in discs; the solver is the conjugate gradient method on the normal
/// equations, with each weight's equation scaled by its occurrences plus `l2` (the per-weight
/// normalisation Edax-style trainers use, here as a preconditioner). Samples are visited in
/// order by one thread and every sum runs in that order, so the same samples and options give
/// the same weights to the bit.
pub fn fit_with_progress(
    samples: &[Sample],
    options: &FitOptions,
    progress: &mut dyn FnMut(&FitProgress),
) -> Result<(Weights, FitReport), FitError> {
    check(samples, options)?;
    let holdout = |i: usize| {
        options.validation_every > 0 && i % options.validation_every == options.validation_every - 1
    };
    if (0..samples.len()).all(holdout) {
        return Err(FitError::NoTrainingSamples);
    }
    let stages = options.stages;
    let kernels = Kernels::best();
    let mut folded = Vec::with_capacity(stages * FOLDED_STAGE_LEN);
    let mut reports = Vec::with_capacity(stages);
    for stage in 0..stages {
        // Every stage has disc counts (see `stage_discs`); the fallback is never taken.
        let discs = stage_discs(stage, stages).unwrap_or(4..=64);
        let low = discs.start().saturating_sub(options.blend);
        let high = discs.end() + options.blend;
        let mut rows = Vec::new();
        let mut targets = Vec::new();
        for (i, sample) in samples.iter().enumerate() {
            let count = (sample.p | sample.o).count_ones().clamp(4, 64);
            if holdout(i) || count < low || count > high {
                continue;
            }
            rows.push(folded_row(sample.p, sample.o, kernels));
            targets.push(f64::from(sample.margin));
        }
        let solved = solve(&rows, &targets, options, &mut |iteration, rmse| {
            progress(&FitProgress {
                stage,
                stages,
                iteration,
                rmse,
            });
        });
        folded.extend(solved.weights.iter().map(|&w| quantise(w)));
        reports.push(StageReport {
            stage,
            discs,
            samples: rows.len(),
            iterations: solved.iterations,
            rmse: solved.rmse,
        });
    }
    let weights = Weights::from_folded(stages, &folded);
    let training = errors(
        &weights,
        samples.iter().enumerate().filter(|(i, _)| !holdout(*i)),
    );
    let validation = errors(
        &weights,
        samples.iter().enumerate().filter(|(i, _)| holdout(*i)),
    );
    let report = FitReport {
        training,
        validation: (validation.samples > 0).then_some(validation),
        stages: reports,
    };
    Ok((weights, report))
}

fn check(samples: &[Sample], options: &FitOptions) -> Result<(), FitError> {
    if options.stages == 0 || options.stages > MAX_STAGES {
        return Err(FitError::StageCount(options.stages));
    }
    if !options.l2.is_finite() || options.l2 < 0.0 {
        return Err(FitError::L2(options.l2));
    }
    if !options.tolerance.is_finite() || options.tolerance < 0.0 {
        return Err(FitError::Tolerance(options.tolerance));
    }
    for (index, sample) in samples.iter().enumerate() {
        if !(-64.0..=64.0).contains(&sample.margin) {
            return Err(FitError::Margin {
                index,
                margin: sample.margin,
            });
        }
        if sample.p & sample.o != 0 {
            return Err(FitError::Overlap { index });
        }
    }
    Ok(())
}

/// A position's features as indices into their tables' folded weights. Local indices fit in 16
/// bits (the largest table has 3^10 entries), which halves what a stage keeps per sample.
fn folded_row(p: u64, o: u64, kernels: Kernels) -> [u16; FEATURES] {
    let folding = &*FOLDING;
    let full = features(p, o, kernels);
    let mut row = [0u16; FEATURES];
    for k in 0..FEATURES {
        row[k] = (folding.folded_of[full[k] as usize] as usize - SLOT_FOLDED_OFFSET[k]) as u16;
    }
    row
}

/// A weight in discs as stored: the nearest 1/128th of a disc that fits in 16 bits.
fn quantise(w: f64) -> i16 {
    (w * f64::from(SCALE))
        .round()
        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// One stage's solution, in discs.
struct Solved {
    weights: Vec<f64>,
    iterations: u32,
    rmse: f64,
}

/// Solves `(XᵀX + l2·I) w = Xᵀy` for one stage, `X` being the 0/1 matrix whose rows hold a
/// one at each feature of a sample.
fn solve(
    rows: &[[u16; FEATURES]],
    targets: &[f64],
    options: &FitOptions,
    progress: &mut dyn FnMut(u32, f64),
) -> Solved {
    let n = FOLDED_STAGE_LEN;
    let at = |k: usize, local: u16| SLOT_FOLDED_OFFSET[k] + usize::from(local);
    // The right-hand side Xᵀy and the occurrences of each weight, the diagonal of XᵀX.
    let mut r = vec![0.0f64; n];
    let mut occurrences = vec![0.0f64; n];
    for (row, &y) in rows.iter().zip(targets) {
        for (k, &local) in row.iter().enumerate() {
            r[at(k, local)] += y;
            occurrences[at(k, local)] += 1.0;
        }
    }
    let inverse: Vec<f64> = occurrences
        .iter()
        .map(|&c| {
            let d = c + options.l2;
            if d > 0.0 { 1.0 / d } else { 0.0 }
        })
        .collect();
    let start = dot(&r, &r).sqrt();
    let mut w = vec![0.0f64; n];
    // The search direction and its image under the normal matrix share one array, so that the
    // gather and the scatter of a feature touch one cache line.
    let mut direction: Vec<[f64; 2]> = r.iter().zip(&inverse).map(|(r, i)| [r * i, 0.0]).collect();
    let mut rz: f64 = r.iter().zip(&direction).map(|(r, d)| r * d[0]).sum();
    // Residuals of the samples, kept up to date so that progress costs nothing extra.
    let mut residual: Vec<f64> = targets.to_vec();
    let mut projected = vec![0.0f64; rows.len()];
    let rmse = |residual: &[f64]| {
        if residual.is_empty() {
            0.0
        } else {
            (dot(residual, residual) / residual.len() as f64).sqrt()
        }
    };
    let mut iterations = 0;
    while iterations < options.iterations {
        if rz <= 0.0 || dot(&r, &r).sqrt() <= options.tolerance * start {
            break;
        }
        for entry in &mut direction {
            entry[1] = options.l2 * entry[0];
        }
        for (row, t) in rows.iter().zip(&mut projected) {
            let mut sum = 0.0;
            for (k, &local) in row.iter().enumerate() {
                sum += direction[at(k, local)][0];
            }
            for (k, &local) in row.iter().enumerate() {
                direction[at(k, local)][1] += sum;
            }
            *t = sum;
        }
        let curvature: f64 = direction.iter().map(|d| d[0] * d[1]).sum();
        if curvature <= 0.0 {
            break;
        }
        let alpha = rz / curvature;
        for ((w, r), d) in w.iter_mut().zip(&mut r).zip(&direction) {
            *w += alpha * d[0];
            *r -= alpha * d[1];
        }
        for (e, t) in residual.iter_mut().zip(&projected) {
            *e -= alpha * t;
        }
        let next: f64 = r.iter().zip(&inverse).map(|(r, i)| r * r * i).sum();
        let beta = next / rz;
        rz = next;
        for ((d, r), i) in direction.iter_mut().zip(&r).zip(&inverse) {
            d[0] = r * i + beta * d[0];
        }
        iterations += 1;
        progress(iterations, rmse(&residual));
    }
    Solved {
        weights: w,
        iterations,
        rmse: rmse(&residual),
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// Errors of `weights` on the samples, through evaluation as a search would see it.
fn errors<'a>(weights: &Weights, samples: impl Iterator<Item = (usize, &'a Sample)>) -> ErrorStats {
    let (mut count, mut squares, mut absolute) = (0usize, 0.0f64, 0.0f64);
    for (_, sample) in samples {
        let predicted = f64::from(weights.evaluate(sample.p, sample.o)) / f64::from(SCALE);
        let error = predicted - f64::from(sample.margin);
        count += 1;
        squares += error * error;
        absolute += error.abs();
    }
    let n = count.max(1) as f64;
    ErrorStats {
        samples: count,
        rmse: (squares / n).sqrt(),
        mae: absolute / n,
    }
}

#[cfg(test)]
mod tests;
