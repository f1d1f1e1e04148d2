//! A small seeded random generator (SplitMix64). Its output is fixed by its algorithm, so the
//! same seed gives the same games on every build and platform, which tournaments rely on.

/// The SplitMix64 finaliser: a bijection on 64 bits with full avalanche (also the search's
/// hash step).
#[inline]
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64: fast, 64 bits of state, and stable output for a given seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// A number in `0..n` (`n` > 0), without modulo bias worth speaking of for small `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// A seed for one purpose, derived from the tournament seed and two numbers (for example the
/// game index and the seat), so that it never depends on which thread plays the game.
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mut rng = Rng::new(seed);
    let x = rng.next_u64() ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng::new(x);
    let y = rng.next_u64() ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    Rng::new(y).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            let x = a.below(10);
            assert_eq!(x, b.below(10));
            assert!(x < 10);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
