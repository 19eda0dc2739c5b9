//! Runtime CPU-feature dispatch for the hot paths.
//!
//! The perft recursion (and later the house bot's search) is compiled once per
//! [`SimdLevel`], each copy with its own CPU features, and the right copy is picked at run
//! time. The whole recursion has to be compiled per level: a SIMD kernel called from code
//! built without its features cannot be inlined, and the call overhead costs a third or more
//! of the speed.
//!
//! # Why this module contains `unsafe`
//! Calling a function compiled for CPU features from code compiled without them is `unsafe`,
//! because running it on a CPU that lacks the features is undefined behaviour. A [`Kernels`]
//! value can only be created for a level the running CPU supports (checked with CPUID), and
//! every such call goes through one, so the calls below are sound. The only other `unsafe` is
//! one aligned vector load from a `#[repr(align(64))]` table. The rest of the crate contains
//! no `unsafe` code.
#![allow(unsafe_code)]

use std::fmt;
use std::str::FromStr;

/// A set of CPU features a copy of the hot paths is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// Portable code for the baseline target, no vector instructions.
    Scalar,
    /// x86-64 with AVX2, BMI1/2, LZCNT and POPCNT (x86-64-v3).
    Avx2,
    /// The AVX2 kernels compiled with AVX-512 (F, VL, BW, DQ, CD) enabled, which gives the
    /// compiler three-operand logic, 32 vector registers and masked operations.
    Avx512,
}

impl SimdLevel {
    /// Every level, slowest first.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512];

    /// The level's name as accepted by `--simd` and `ARBITER_SIMD`.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Whether the running CPU supports this level.
    pub fn is_supported(self) -> bool {
        match self {
            SimdLevel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("lzcnt")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                SimdLevel::Avx2.is_supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512cd")
            }
            #[cfg(not(target_arch = "x86_64"))]
            SimdLevel::Avx2 | SimdLevel::Avx512 => false,
        }
    }
}

impl fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A SIMD level name that is not one of ours.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown SIMD level {0:?} (expected scalar, avx2 or avx512)")]
pub struct UnknownSimdLevel(pub String);

impl FromStr for SimdLevel {
    type Err = UnknownSimdLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SimdLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownSimdLevel(s.to_owned()))
    }
}

/// The running CPU lacks the features of a requested level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("this CPU does not support the {0} level")]
pub struct UnsupportedLevel(pub SimdLevel);

/// The hot paths compiled for one [`SimdLevel`] that the running CPU supports.
///
/// Holding a `Kernels` is the proof that its level is safe to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernels {
    level: SimdLevel,
}

impl Kernels {
    /// The fastest level this CPU supports.
    pub fn best() -> Kernels {
        let level = SimdLevel::ALL
            .into_iter()
            .rev()
            .find(|l| l.is_supported())
            .unwrap_or(SimdLevel::Scalar);
        Kernels { level }
    }

    /// A specific level, if this CPU supports it.
    pub fn with_level(level: SimdLevel) -> Result<Kernels, UnsupportedLevel> {
        if level.is_supported() {
            Ok(Kernels { level })
        } else {
            Err(UnsupportedLevel(level))
        }
    }

    /// The portable level, available everywhere.
    pub fn scalar() -> Kernels {
        Kernels {
            level: SimdLevel::Scalar,
        }
    }

    /// Every level this CPU supports, slowest first.
    pub fn all_supported() -> Vec<Kernels> {
        SimdLevel::ALL
            .into_iter()
            .filter_map(|l| Kernels::with_level(l).ok())
            .collect()
    }

    /// The level.
    pub fn level(self) -> SimdLevel {
        self.level
    }
}

/// Calls `$function` in the copy compiled for the level of `$kernels`.
macro_rules! dispatch {
    ($kernels:expr, $function:ident($($arg:expr),*)) => {
        match $kernels.level {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernels` holds this level only if the CPU supports it.
            SimdLevel::Avx512 => unsafe { avx512_level::$function($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            SimdLevel::Avx2 => unsafe { avx2_level::$function($($arg),*) },
            _ => scalar_level::$function($($arg),*),
        }
    };
}

impl Kernels {
    /// Legal moves on 8x8 for the player owning `p` against `o`.
    pub fn moves8(self, p: u64, o: u64) -> u64 {
        dispatch!(self, moves8(p, o))
    }

    /// The discs flipped on 8x8 when the player owning `p` plays `sq` against `o`.
    pub fn flips8(self, p: u64, o: u64, sq: u32) -> u64 {
        dispatch!(self, flips8(p, o, sq))
    }

    /// Perft below an 8x8 position (`p` to move); `passed` says whether the previous ply was a
    /// pass. `depth` must be at least 1.
    pub(crate) fn perft8(self, p: u64, o: u64, depth: u32, passed: bool) -> u64 {
        dispatch!(self, perft8(p, o, depth, passed))
    }

    /// Perft below a 10x10 position; `free` holds the playable squares (blocked ones removed).
    pub(crate) fn perft10(self, p: u128, o: u128, free: u128, depth: u32, passed: bool) -> u64 {
        dispatch!(self, perft10(p, o, free, depth, passed))
    }

    /// Perft below a classic Reversi position; `placed` counts the discs the player to move and
    /// the opponent have placed.
    pub(crate) fn perft_reversi(
        self,
        p: u64,
        o: u64,
        placed: [u16; 2],
        depth: u32,
        passed: bool,
    ) -> u64 {
        dispatch!(self, perft_reversi(p, o, placed, depth, passed))
    }
}

/// Stamps out the perft recursions for one level. Everything inside is compiled with the
/// level's features, and the kernels it names are inlined into it.
macro_rules! level {
    ($(#[$features:meta])* mod $name:ident uses $kernel:path) => {
        mod $name {
            use $kernel as kernel;
            use crate::kernel10;
            use crate::variant::{CENTRE_8X8, REVERSI_DISCS_PER_COLOUR};

            const CENTRE: u64 =
                1 << CENTRE_8X8[0] | 1 << CENTRE_8X8[1] | 1 << CENTRE_8X8[2] | 1 << CENTRE_8X8[3];

            $(#[$features])*
            pub(super) fn moves8(p: u64, o: u64) -> u64 {
                kernel::moves(p, o)
            }

            $(#[$features])*
            pub(super) fn flips8(p: u64, o: u64, sq: u32) -> u64 {
                kernel::flips(p, o, sq)
            }

            // Convention: a pass is a ply and a finished game is one leaf at any depth.
            $(#[$features])*
            pub(super) fn perft8(p: u64, o: u64, depth: u32, passed: bool) -> u64 {
                let mut moves = kernel::moves(p, o);
                if moves == 0 {
                    return if passed || depth == 1 { 1 } else { perft8(o, p, depth - 1, true) };
                }
                if depth == 1 {
                    return u64::from(moves.count_ones());
                }
                let mut leaves = 0;
                if depth == 2 {
                    // Bulk-count the last ply: a child without moves passes, one leaf.
                    while moves != 0 {
                        let sq = moves.trailing_zeros();
                        moves &= moves - 1;
                        let flipped = kernel::flips(p, o, sq);
                        let replies = kernel::moves(o ^ flipped, p ^ flipped ^ 1 << sq);
                        leaves += u64::from(replies.count_ones().max(1));
                    }
                    return leaves;
                }
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let flipped = kernel::flips(p, o, sq);
                    leaves += perft8(o ^ flipped, p ^ flipped ^ 1 << sq, depth - 1, false);
                }
                leaves
            }

            $(#[$features])*
            pub(super) fn perft10(p: u128, o: u128, free: u128, depth: u32, passed: bool) -> u64 {
                let mut moves = kernel10::moves(p, o, free & !(p | o));
                if moves == 0 {
                    return if passed || depth == 1 { 1 } else { perft10(o, p, free, depth - 1, true) };
                }
                if depth == 1 {
                    return u64::from(moves.count_ones());
                }
                let mut leaves = 0;
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let flipped = kernel10::flips(p, o, sq);
                    let (np, no) = (o ^ flipped, p ^ flipped ^ 1 << sq);
                    leaves += if depth == 2 {
                        u64::from(kernel10::moves(np, no, free & !(np | no)).count_ones().max(1))
                    } else {
                        perft10(np, no, free, depth - 1, false)
                    };
                }
                leaves
            }

            $(#[$features])*
            pub(super) fn perft_reversi(p: u64, o: u64, placed: [u16; 2], depth: u32, passed: bool) -> u64 {
                let centre = CENTRE & !(p | o);
                let mut moves = if centre != 0 {
                    centre
                } else if placed[0] >= REVERSI_DISCS_PER_COLOUR {
                    0
                } else {
                    kernel::moves(p, o)
                };
                if moves == 0 {
                    let swapped = [placed[1], placed[0]];
                    return if passed || depth == 1 { 1 } else { perft_reversi(o, p, swapped, depth - 1, true) };
                }
                if depth == 1 {
                    return u64::from(moves.count_ones());
                }
                let mut leaves = 0;
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let flipped = if centre != 0 { 0 } else { kernel::flips(p, o, sq) };
                    let next = [placed[1], placed[0] + 1];
                    leaves += perft_reversi(o ^ flipped, p ^ flipped ^ 1 << sq, next, depth - 1, false);
                }
                leaves
            }
        }
    };
}

level!(mod scalar_level uses crate::kernel8);

#[cfg(target_arch = "x86_64")]
level!(#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")] mod avx2_level uses super::avx2);

#[cfg(target_arch = "x86_64")]
level!(
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx2,bmi1,bmi2,lzcnt,popcnt")]
    mod avx512_level uses super::avx2
);

/// The 8x8 kernels in AVX2: four directions per 256-bit register.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use crate::kernel8::{NOT_EDGE_FILES, RAYS};

    /// OR of the four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_lanes(v: __m256i) -> u64 {
        let half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
    }

    /// Legal moves: Kogge-Stone fills along +1, +8, +9, +7 (one lane each) and back.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) fn moves(p: u64, o: u64) -> u64 {
        let edge = NOT_EDGE_FILES as i64;
        let player = _mm256_set1_epi64x(p as i64);
        let opp = _mm256_and_si256(
            _mm256_set1_epi64x(o as i64),
            _mm256_set_epi64x(edge, edge, -1, edge),
        );
        let shift = _mm256_set_epi64x(7, 9, 8, 1);
        let double = _mm256_add_epi64(shift, shift);
        let mut up = _mm256_and_si256(opp, _mm256_sllv_epi64(player, shift));
        let mut down = _mm256_and_si256(opp, _mm256_srlv_epi64(player, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(opp, _mm256_sllv_epi64(up, shift)));
        down = _mm256_or_si256(down, _mm256_and_si256(opp, _mm256_srlv_epi64(down, shift)));
        let pairs_up = _mm256_and_si256(opp, _mm256_sllv_epi64(opp, shift));
        let pairs_down = _mm256_srlv_epi64(pairs_up, shift);
        up = _mm256_or_si256(
            up,
            _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, double)),
        );
        down = _mm256_or_si256(
            down,
            _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, double)),
        );
        up = _mm256_or_si256(
            up,
            _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, double)),
        );
        down = _mm256_or_si256(
            down,
            _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, double)),
        );
        let found = _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift));
        or_lanes(found) & !(p | o)
    }

    /// Flips: per direction, the run of opponent discs from `sq` to the first other square
    /// flips when that square is ours.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let rays = &RAYS[sq as usize & 63];
        // SAFETY: `SquareRays` is `repr(C, align(64))` and starts with `pos: [u64; 4]` followed
        // by `neg: [u64; 4]`, so both arrays are 32-byte aligned and 32 bytes long.
        let (pos, neg) = unsafe {
            (
                _mm256_load_si256(rays.pos.as_ptr().cast()),
                _mm256_load_si256(rays.neg.as_ptr().cast()),
            )
        };
        let player = _mm256_set1_epi64x(p as i64);
        let opp = _mm256_set1_epi64x(o as i64);
        let zero = _mm256_setzero_si256();

        // Towards higher indices the first stop square is the lowest set bit of the ray's
        // non-opponent squares; the run below it flips when that bit is ours.
        let stops = _mm256_andnot_si256(opp, pos);
        let first = _mm256_and_si256(stops, _mm256_sub_epi64(zero, stops));
        let outflank = _mm256_and_si256(first, player);
        let none = _mm256_cmpeq_epi64(outflank, zero);
        let run = _mm256_sub_epi64(outflank, _mm256_set1_epi64x(1));
        let up = _mm256_and_si256(_mm256_andnot_si256(none, run), pos);

        // Towards lower indices the first stop is the highest set bit. Smear the stops down
        // the ray; the ray squares above the smear are the opponent run. It flips when the
        // first stop is ours, that is when our highest ray square is above every other stop
        // (a signed compare is exact because bit 63 is never on such a ray).
        let stops = _mm256_andnot_si256(opp, neg);
        let step = _mm256_set_epi64x(7, 9, 8, 1);
        let mut smear = _mm256_or_si256(stops, _mm256_srlv_epi64(stops, step));
        smear = _mm256_or_si256(
            smear,
            _mm256_srlv_epi64(smear, _mm256_add_epi64(step, step)),
        );
        smear = _mm256_or_si256(
            smear,
            _mm256_srlv_epi64(smear, _mm256_slli_epi64::<2>(step)),
        );
        let run = _mm256_andnot_si256(smear, neg);
        let ours = _mm256_and_si256(player, neg);
        let others = _mm256_andnot_si256(player, stops);
        let down = _mm256_and_si256(run, _mm256_cmpgt_epi64(ours, others));

        or_lanes(_mm256_or_si256(up, down))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    #[test]
    fn every_supported_level_matches_the_reference() {
        let levels = Kernels::all_supported();
        for level in SimdLevel::ALL {
            if !level.is_supported() {
                println!("notice: this CPU lacks the {level} level; it is not tested here");
            }
        }
        for kernels in levels {
            for (p, o) in naive::random_positions(20_000, 3) {
                assert_eq!(
                    kernels.moves8(p, o),
                    naive::moves8(p, o),
                    "{} moves",
                    kernels.level()
                );
                for sq in 0..64 {
                    if (p | o) >> sq & 1 == 0 {
                        assert_eq!(
                            kernels.flips8(p, o, sq),
                            naive::flips8(p, o, sq),
                            "{} flips sq {sq}",
                            kernels.level()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn levels_parse_and_scalar_is_always_there() {
        for level in SimdLevel::ALL {
            assert_eq!(level.name().parse::<SimdLevel>(), Ok(level));
        }
        assert!("sse".parse::<SimdLevel>().is_err());
        assert_eq!(
            Kernels::with_level(SimdLevel::Scalar),
            Ok(Kernels::scalar())
        );
        assert!(Kernels::best().level() >= SimdLevel::Scalar);
        assert_eq!(Kernels::all_supported()[0].level(), SimdLevel::Scalar);
    }
}
