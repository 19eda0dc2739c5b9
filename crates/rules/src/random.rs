//! The randomness the arena hands to the rules, and the exact ways the rules consume it.
//!
//! Games never touch a global or operating-system generator: every random element comes from
//! a [`Random`] the arena derives from the match seed (see the `arbiter-fair` crate), so a
//! match can be replayed and verified from its revealed seed. The helpers here use fixed,
//! documented algorithms that depend only on the generator's raw `u32` output, so that a
//! verifier in another language can reproduce every draw, and no upgrade of a library's
//! distribution code can silently change a replay.

/// A deterministic source of random numbers.
///
/// Implemented for every [`rand_core::Rng`], in particular for the ChaCha8 streams the arena
/// derives from match seeds.
pub trait Random {
    /// The next 32 random bits.
    fn next_u32(&mut self) -> u32;
}

impl<R: rand_core::Rng + ?Sized> Random for R {
    fn next_u32(&mut self) -> u32 {
        rand_core::Rng::next_u32(self)
    }
}

/// A uniform integer in `0..n`.
///
/// Algorithm (stable, part of the replay format): let `m` be the largest multiple of `n` not
/// above 2³²; draw 32-bit values until one is below `m`, and return it modulo `n`.
///
/// # Panics
/// Panics if `n` is zero, which is a bug in the calling game.
pub fn below<R: Random + ?Sized>(rng: &mut R, n: u32) -> u32 {
    assert!(n > 0, "below(0) has no possible value");
    let span = 1u64 << 32;
    let accept = span - span % u64::from(n);
    loop {
        let x = u64::from(rng.next_u32());
        if x < accept {
            // The remainder is below `n`, which fits in u32.
            return (x % u64::from(n)) as u32;
        }
    }
}

/// Shuffles `items` in place.
///
/// Algorithm (stable, part of the replay format): Fisher–Yates from the back; for `i` from
/// `len - 1` down to 1, swap item `i` with item `below(i + 1)`.
pub fn shuffle<R: Random + ?Sized, T>(rng: &mut R, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let bound = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let j = below(rng, bound) as usize;
        items.swap(i, j);
    }
}

/// Picks one element of a non-empty slice uniformly (`items[below(len)]`).
pub fn choose<'a, R: Random + ?Sized, T>(rng: &mut R, items: &'a [T]) -> Option<&'a T> {
    let len = u32::try_from(items.len()).ok().filter(|&n| n > 0)?;
    items.get(below(rng, len) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator replaying a fixed list of values, to pin the algorithms down exactly.
    struct Script(Vec<u32>);

    impl Random for Script {
        fn next_u32(&mut self) -> u32 {
            self.0.remove(0)
        }
    }

    #[test]
    fn below_rejects_the_biased_tail() {
        // For n = 3, 2^32 mod 3 = 1, so the single value 2^32 - 1 is rejected.
        let mut rng = Script(vec![u32::MAX, 7]);
        assert_eq!(below(&mut rng, 3), 1);
        assert!(rng.0.is_empty());
    }

    #[test]
    fn below_is_uniform_enough_and_in_range() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[below(&mut rng, 6) as usize] += 1;
        }
        for count in counts {
            assert!((9_400..10_600).contains(&count), "{counts:?}");
        }
    }

    #[test]
    fn shuffle_follows_the_documented_algorithm() {
        // len 3: i = 2 swaps with below(3), then i = 1 swaps with below(2).
        let mut rng = Script(vec![0, 1]);
        let mut items = ['a', 'b', 'c'];
        shuffle(&mut rng, &mut items);
        // i=2, j=0: [c, b, a]; i=1, j=1: unchanged.
        assert_eq!(items, ['c', 'b', 'a']);
    }

    #[test]
    fn choose_handles_empty_slices() {
        let mut rng = Script(vec![5]);
        let empty: [u8; 0] = [];
        assert_eq!(choose(&mut rng, &empty), None);
        assert_eq!(choose(&mut rng, &[10, 20, 30]), Some(&30));
    }
}
