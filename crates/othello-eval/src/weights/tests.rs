use proptest::prelude::*;

use super::*;
use crate::patterns::FOLDED_STAGE_LEN;
use crate::test_support::{SplitMix, game_positions, image, random_weights};

#[test]
fn zero_weights_score_zero() {
    let weights = Weights::zero();
    assert_eq!(weights.stage_count(), DEFAULT_STAGES);
    for (p, o) in game_positions(1, 5) {
        assert_eq!(weights.evaluate(p, o), 0);
    }
}

#[test]
fn stages_cut_the_disc_counts_as_documented() {
    let weights = Weights::zero();
    assert_eq!(weights.stage_discs(0), Some(4..=8));
    assert_eq!(weights.stage_discs(1), Some(9..=12));
    assert_eq!(weights.stage_discs(13), Some(57..=60));
    assert_eq!(weights.stage_discs(14), Some(61..=64));
    assert_eq!(weights.stage_discs(15), None);
    assert_eq!(weights.stage(0), 0);
    assert_eq!(weights.stage(64), 14);
    for stages in 1..=MAX_STAGES {
        let weights = Weights::zero_with_stages(stages);
        let covered: u32 = (0..stages)
            .map(|s| weights.stage_discs(s).map_or(0, |d| d.count() as u32))
            .sum();
        assert_eq!(covered, 61, "{stages} stages");
        for discs in 0..=64 {
            assert_eq!(weights.stage(discs), stage_of(discs, stages));
        }
    }
    assert_eq!(Weights::zero_with_stages(61).stage_discs(60), Some(64..=64));
}

#[test]
fn evaluation_sums_the_stage_weights_and_clamps() {
    // Every folded weight 3: 49 features give 147 whatever the position.
    let weights = Weights::from_folded(2, &vec![3; 2 * FOLDED_STAGE_LEN]);
    for (p, o) in game_positions(2, 3) {
        assert_eq!(weights.evaluate(p, o), 147);
    }
    let weights = Weights::from_folded(1, &vec![i16::MAX; FOLDED_STAGE_LEN]);
    assert_eq!(weights.evaluate(1, 2), MAX_SCORE);
    let weights = Weights::from_folded(1, &vec![i16::MIN; FOLDED_STAGE_LEN]);
    assert_eq!(weights.evaluate(1, 2), -MAX_SCORE);
}

#[test]
fn each_stage_reads_its_own_weights() {
    let mut folded = vec![0i16; 15 * FOLDED_STAGE_LEN];
    for (stage, chunk) in folded.chunks_exact_mut(FOLDED_STAGE_LEN).enumerate() {
        // The parity table is the last two weights: both set, so every position reads one.
        let len = chunk.len();
        chunk[len - 2..].fill(stage as i16 + 1);
    }
    let weights = Weights::from_folded(15, &folded);
    for (p, o) in game_positions(3, 3) {
        let discs = (p | o).count_ones();
        assert_eq!(weights.evaluate(p, o), weights.stage(discs) as i32 + 1);
    }
}

#[test]
fn weights_round_trip_through_bytes() {
    let weights = random_weights(3, 7, i16::MAX);
    let bytes = weights.to_bytes();
    assert_eq!(bytes.len(), HEADER_LEN + 3 * 2 * WEIGHTS_PER_STAGE);
    assert_eq!(&bytes[..HEADER_LEN], b"AOEW\x01\x00\x01\x00\x03\x00");
    let back = Weights::from_bytes(&bytes).expect("valid weights");
    assert_eq!(back, weights);
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.folded(), weights.folded());
    assert_eq!(Weights::zero().to_bytes().len(), 3_418_300);
    assert_eq!(
        Weights::from_bytes(&Weights::zero().to_bytes()),
        Ok(Weights::zero())
    );
}

#[test]
fn bad_bytes_are_refused_with_the_reason() {
    let good = random_weights(2, 8, 100).to_bytes();
    let with = |at: usize, value: &[u8]| {
        let mut bytes = good.clone();
        bytes[at..at + value.len()].copy_from_slice(value);
        Weights::from_bytes(&bytes)
    };
    assert_eq!(Weights::from_bytes(&[]), Err(WeightsError::TooShort(0)));
    assert_eq!(
        Weights::from_bytes(&good[..9]),
        Err(WeightsError::TooShort(9))
    );
    assert_eq!(with(0, b"AOEX"), Err(WeightsError::BadMagic(*b"AOEX")));
    assert_eq!(with(4, &[2, 0]), Err(WeightsError::UnsupportedVersion(2)));
    assert_eq!(with(6, &[0, 1]), Err(WeightsError::UnknownPatternSet(256)));
    assert_eq!(with(8, &[0, 0]), Err(WeightsError::BadStageCount(0)));
    assert_eq!(with(8, &[62, 0]), Err(WeightsError::BadStageCount(62)));
    let expected = HEADER_LEN + 2 * 2 * WEIGHTS_PER_STAGE;
    assert_eq!(
        with(8, &[3, 0]),
        Err(WeightsError::BadLength {
            expected: HEADER_LEN + 3 * 2 * WEIGHTS_PER_STAGE,
            found: expected
        })
    );
    assert_eq!(
        Weights::from_bytes(&good[..good.len() - 1]),
        Err(WeightsError::BadLength {
            expected,
            found: expected - 1
        })
    );
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(
        Weights::from_bytes(&longer),
        Err(WeightsError::BadLength {
            expected,
            found: expected + 1
        })
    );
    assert_eq!(
        WeightsError::BadMagic(*b"AOEX").to_string(),
        "not an Othello weights file (magic [41, 4f, 45, 58])"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The eight symmetric images of a position score the same under any weights.
    #[test]
    fn symmetric_positions_score_the_same(seed in any::<u64>(), p in any::<u64>(), o in any::<u64>(), sparse in any::<u64>(), games in 0usize..3) {
        // Weights small enough that sums rarely reach the clamp, which would hide differences.
        let weights = random_weights(3, seed, 150);
        let mut positions = vec![(p, o & !p), (p & sparse, o & !sparse & !p)];
        let mut rng = SplitMix(seed);
        let played = game_positions(seed, games);
        for _ in 0..8.min(played.len()) {
            positions.push(played[rng.below(played.len() as u64) as usize]);
        }
        for (p, o) in positions {
            let score = weights.evaluate(p, o);
            for g in 1..8 {
                prop_assert_eq!(weights.evaluate(image(p, g), image(o, g)), score, "image {}", g);
            }
        }
    }
}
