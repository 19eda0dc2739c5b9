//! The weights: game stages, evaluation, and the binary format.

use std::fmt;
use std::ops::RangeInclusive;

use arbiter_othello::Kernels;

use crate::patterns::{FOLDED_STAGE_LEN, FOLDING, FULL_LEN, for_each_feature};

/// The first four bytes of a weights file.
pub const MAGIC: [u8; 4] = *b"AOEW";
/// The format version this crate reads and writes.
pub const FORMAT_VERSION: u16 = 1;
/// The pattern set this crate evaluates: the tables and their folded layout, as documented in
/// the crate root. Weights fitted for another set are refused rather than misread.
pub const PATTERN_SET: u16 = 1;
/// Bytes before the weights: magic, version, pattern set, stage count.
pub const HEADER_LEN: usize = 10;
/// Score units per disc: [`Weights::evaluate`] returns 1/128ths of a disc.
pub const SCALE: i32 = 128;
/// The largest score [`Weights::evaluate`] returns, 64 discs; scores are clamped to ±this.
pub const MAX_SCORE: i32 = 64 * SCALE;
/// The stage count [`Weights::zero`] uses and fitting defaults to.
pub const DEFAULT_STAGES: usize = 15;
/// The most stages weights may have: one per disc count from 4 to 64.
pub const MAX_STAGES: usize = 61;
/// Distinct weights per stage, as stored: the folded pattern tables, then the scalar tables.
pub const WEIGHTS_PER_STAGE: usize = FOLDED_STAGE_LEN;

/// Why bytes are not weights of this crate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// Fewer bytes than the header.
    #[error("weights need at least a {HEADER_LEN}-byte header, got {0} bytes")]
    TooShort(usize),
    /// The bytes do not start with [`MAGIC`].
    #[error("not an Othello weights file (magic {0:02x?})")]
    BadMagic([u8; 4]),
    /// A format version this crate does not read.
    #[error("weights format version {0} is not supported (this build reads {FORMAT_VERSION})")]
    UnsupportedVersion(u16),
    /// Weights for another pattern set.
    #[error("weights are for pattern set {0}, this build evaluates pattern set {PATTERN_SET}")]
    UnknownPatternSet(u16),
    /// A stage count outside 1 to [`MAX_STAGES`].
    #[error("a stage count of {0} is outside 1 to {MAX_STAGES}")]
    BadStageCount(u16),
    /// The length does not match the header's stage count.
    #[error("weights of this stage count take {expected} bytes, got {found}")]
    BadLength {
        /// The length the header implies.
        expected: usize,
        /// The length given.
        found: usize,
    },
}

/// The room each stage takes in the expanded weights: a power of two above [`FULL_LEN`], so
/// that evaluation can mask an index into range instead of checking it. The padding is never
/// read, so it costs address space but no cache.
const STAGE_STRIDE: usize = 1 << 18;
const _: () = assert!(STAGE_STRIDE >= FULL_LEN);

/// The stage of each disc count, 0 to 64, for `stages` stages: discs 4 to 64 are cut into
/// `stages` runs as even as can be (`(discs - 4) * stages / 61`); fewer discs count as 4.
fn stage_table(stages: usize) -> [u8; 65] {
    let mut table = [0u8; 65];
    for (discs, stage) in table.iter_mut().enumerate() {
        *stage = ((discs.max(4) - 4) * stages / MAX_STAGES) as u8;
    }
    table
}

/// The stage a position with `discs` discs on the board belongs to, for `stages` stages.
pub(crate) fn stage_of(discs: u32, stages: usize) -> usize {
    (discs.clamp(4, 64) as usize - 4) * stages / MAX_STAGES
}

/// The disc counts, 4 to 64, of one stage of `stages`; `None` past the last stage. Every
/// stage of 1 to 61 has at least one disc count.
pub(crate) fn stage_discs(stage: usize, stages: usize) -> Option<RangeInclusive<u32>> {
    let mut discs = (4..=64).filter(|&d| stage_of(d, stages) == stage);
    let first = discs.next()?;
    Some(first..=discs.next_back().unwrap_or(first))
}

/// A trained evaluation: per game stage, one weight per folded pattern entry and scalar value.
///
/// Weights are kept expanded, every reading of a pattern holding its folded entry's weight, so
/// that evaluation is one load per feature; the folded form is what is stored and fitted.
#[derive(Clone)]
pub struct Weights {
    stages: usize,
    stage_of: [u8; 65],
    /// `stages * STAGE_STRIDE` weights, stage after stage, each stage's `FULL_LEN` weights
    /// followed by zeros.
    full: Vec<i16>,
    kernels: Kernels,
}

impl fmt::Debug for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Weights")
            .field("stages", &self.stages)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Weights {
    fn eq(&self, other: &Self) -> bool {
        self.stages == other.stages && self.full == other.full
    }
}

impl Eq for Weights {}

impl Weights {
    /// Weights of [`DEFAULT_STAGES`] stages, all zero: every position evaluates to 0.
    pub fn zero() -> Weights {
        Weights::zero_with_stages(DEFAULT_STAGES)
    }

    /// Weights of `stages` stages (clamped to 1 to [`MAX_STAGES`]), all zero.
    pub fn zero_with_stages(stages: usize) -> Weights {
        let stages = stages.clamp(1, MAX_STAGES);
        Weights {
            stages,
            stage_of: stage_table(stages),
            full: vec![0; stages * STAGE_STRIDE],
            kernels: Kernels::best(),
        }
    }

    /// Weights from their folded form: `stages` runs of [`WEIGHTS_PER_STAGE`] weights.
    pub(crate) fn from_folded(stages: usize, folded: &[i16]) -> Weights {
        let folding = &*FOLDING;
        let mut full = Vec::with_capacity(stages * STAGE_STRIDE);
        for stage in folded.chunks_exact(FOLDED_STAGE_LEN).take(stages) {
            full.extend(folding.folded_of.iter().map(|&c| stage[c as usize]));
            full.resize(full.len() + STAGE_STRIDE - FULL_LEN, 0);
        }
        Weights {
            stages,
            stage_of: stage_table(stages),
            full,
            kernels: Kernels::best(),
        }
    }

    /// The folded form: `stages` runs of [`WEIGHTS_PER_STAGE`] weights.
    pub(crate) fn folded(&self) -> Vec<i16> {
        let folding = &*FOLDING;
        let mut folded = Vec::with_capacity(self.stages * FOLDED_STAGE_LEN);
        for stage in self.full.chunks_exact(STAGE_STRIDE) {
            folded.extend(folding.representative.iter().map(|&i| stage[i as usize]));
        }
        folded
    }

    /// The number of stages.
    pub fn stage_count(&self) -> usize {
        self.stages
    }

    /// The stage whose weights evaluate a position with `discs` discs on the board.
    pub fn stage(&self, discs: u32) -> usize {
        usize::from(self.stage_of[discs.min(64) as usize])
    }

    /// The disc counts (4 to 64) that `stage` covers; `None` past the last stage.
    pub fn stage_discs(&self, stage: usize) -> Option<RangeInclusive<u32>> {
        stage_discs(stage, self.stages)
    }

    /// The score of the position where the side to move owns `p` and the opponent `o`: an
    /// estimate of the final disc margin from the mover's side, in 1/[`SCALE`]ths of a disc,
    /// clamped to ±[`MAX_SCORE`].
    ///
    /// The score is the same for the eight symmetric images of a position. Squares in both `p`
    /// and `o` count as the mover's.
    pub fn evaluate(&self, p: u64, o: u64) -> i32 {
        let o = o & !p;
        let stage = usize::from(self.stage_of[(p | o).count_ones() as usize]);
        let Some(Ok(table)) = self
            .full
            .get(stage * STAGE_STRIDE..(stage + 1) * STAGE_STRIDE)
            .map(<&[i16; STAGE_STRIDE]>::try_from)
        else {
            // Every stage has its stride of weights, so this is never taken.
            return 0;
        };
        let mut sum = 0i32;
        for_each_feature(p, o, self.kernels, |_, i| {
            sum += i32::from(table[i as usize & (STAGE_STRIDE - 1)]);
        });
        sum.clamp(-MAX_SCORE, MAX_SCORE)
    }

    /// The weights in the binary format documented in the crate root.
    pub fn to_bytes(&self) -> Vec<u8> {
        let folded = self.folded();
        let mut bytes = Vec::with_capacity(HEADER_LEN + 2 * folded.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&PATTERN_SET.to_le_bytes());
        bytes.extend_from_slice(&(self.stages as u16).to_le_bytes());
        for w in folded {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes
    }

    /// Reads weights in the binary format documented in the crate root.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        let Some((header, body)) = bytes.split_first_chunk::<HEADER_LEN>() else {
            return Err(WeightsError::TooShort(bytes.len()));
        };
        let magic = [header[0], header[1], header[2], header[3]];
        if magic != MAGIC {
            return Err(WeightsError::BadMagic(magic));
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version != FORMAT_VERSION {
            return Err(WeightsError::UnsupportedVersion(version));
        }
        let set = u16::from_le_bytes([header[6], header[7]]);
        if set != PATTERN_SET {
            return Err(WeightsError::UnknownPatternSet(set));
        }
        let stages = u16::from_le_bytes([header[8], header[9]]);
        if stages == 0 || usize::from(stages) > MAX_STAGES {
            return Err(WeightsError::BadStageCount(stages));
        }
        let expected = HEADER_LEN + 2 * usize::from(stages) * FOLDED_STAGE_LEN;
        if bytes.len() != expected {
            return Err(WeightsError::BadLength {
                expected,
                found: bytes.len(),
            });
        }
        let folded: Vec<i16> = body
            .chunks_exact(2)
            .map(|w| i16::from_le_bytes([w[0], w[1]]))
            .collect();
        Ok(Weights::from_folded(usize::from(stages), &folded))
    }
}

#[cfg(test)]
mod tests;
