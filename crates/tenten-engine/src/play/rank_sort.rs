//! The sort of a rank player's order keys, a quarter of a forecast's time.
//!
//! The keys of one move are distinct (each carries its option's index), so
//! every correct sort leaves them in the same order: which sort runs can
//! never change a draw, a figure or a cohort. Where the processor has
//! AVX-512 (checked at run time), up to 128 keys are sorted by a bitonic
//! network held in vector registers, without a branch on the data; more
//! keys, or another processor, take the library's `sort_unstable`.

/// Sorts `keys` ascending.
pub(crate) fn sort_keys(keys: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if (2..=network::MAX).contains(&keys.len()) && std::is_x86_feature_detected!("avx512f") {
        // SAFETY: `network::sort` needs AVX-512F, which the processor was
        // just found to have; it reads and writes `keys` only through safe
        // slices.
        #[allow(unsafe_code)]
        unsafe {
            network::sort(keys)
        };
        return;
    }
    keys.sort_unstable();
}

#[cfg(target_arch = "x86_64")]
mod network {
    use std::arch::x86_64::{
        __m512i, __mmask8, _mm512_mask_blend_epi64, _mm512_max_epu64, _mm512_min_epu64,
        _mm512_permutexvar_epi64, _mm512_set_epi64, _mm512_setzero_si512,
    };

    /// The most keys the network sorts: 16 vectors of 8.
    pub const MAX: usize = 128;

    /// Sorts up to `MAX` keys: padded with `u64::MAX` to a power of two
    /// of vectors, which the network carries to the end.
    #[target_feature(enable = "avx512f")]
    pub fn sort(keys: &mut [u64]) {
        match keys.len() {
            0..=8 => sort_in::<1>(keys),
            9..=16 => sort_in::<2>(keys),
            17..=32 => sort_in::<4>(keys),
            33..=64 => sort_in::<8>(keys),
            _ => sort_in::<16>(keys),
        }
    }

    #[target_feature(enable = "avx512f")]
    fn sort_in<const V: usize>(keys: &mut [u64]) {
        let mut lanes = [[u64::MAX; 8]; V];
        bytemuck::cast_slice_mut::<[u64; 8], u64>(&mut lanes)[..keys.len()].copy_from_slice(keys);
        let mut v = [_mm512_setzero_si512(); V];
        for (v, lane) in v.iter_mut().zip(&lanes) {
            *v = bytemuck::cast(*lane);
        }
        bitonic(&mut v);
        for (lane, v) in lanes.iter_mut().zip(&v) {
            *lane = bytemuck::cast(*v);
        }
        let n = keys.len();
        keys.copy_from_slice(&bytemuck::cast_slice::<[u64; 8], u64>(&lanes)[..n]);
    }

    /// Bitonic sort of `V` vectors (8 V keys), every step putting the
    /// smaller key at the lower place: each vector sorted alone, then
    /// sorted runs of 16, 32, ... keys, each made from two halves by a
    /// flip (key i against key 2s-1-i) and half-cleaners at distances
    /// s/2, s/4, ..., 1.
    #[target_feature(enable = "avx512f")]
    fn bitonic<const V: usize>(v: &mut [__m512i; V]) {
        let reverse = partner(7);
        for x in v.iter_mut() {
            *x = sort8(*x);
        }
        let mut run = 2;
        while run <= V {
            for start in (0..V).step_by(run) {
                for k in 0..run / 2 {
                    let (i, j) = (start + k, start + run - 1 - k);
                    let flipped = _mm512_permutexvar_epi64(reverse, v[j]);
                    let high = _mm512_max_epu64(v[i], flipped);
                    v[i] = _mm512_min_epu64(v[i], flipped);
                    v[j] = _mm512_permutexvar_epi64(reverse, high);
                }
            }
            let mut d = run / 4;
            while d >= 1 {
                for i in (0..V).filter(|i| i & d == 0) {
                    let (a, b) = (v[i], v[i + d]);
                    v[i] = _mm512_min_epu64(a, b);
                    v[i + d] = _mm512_max_epu64(a, b);
                }
                d /= 2;
            }
            for x in v.iter_mut() {
                *x = clean8(*x);
            }
            run *= 2;
        }
    }

    /// The 8 keys of one vector sorted: runs of 2, 4 and 8.
    #[target_feature(enable = "avx512f")]
    fn sort8(v: __m512i) -> __m512i {
        let v = exchange(v, 1, 0b1010_1010);
        let v = exchange(v, 3, 0b1100_1100);
        let v = exchange(v, 1, 0b1010_1010);
        let v = exchange(v, 7, 0b1111_0000);
        clean8(v)
    }

    /// A bitonic vector made sorted: half-cleaners at distances 4, 2, 1.
    #[target_feature(enable = "avx512f")]
    fn clean8(v: __m512i) -> __m512i {
        let v = exchange(v, 4, 0b1111_0000);
        let v = exchange(v, 2, 0b1100_1100);
        exchange(v, 1, 0b1010_1010)
    }

    /// Lane i against lane i ^ `d`: the lanes in `upper` (those above
    /// their partner) keep the larger key, the others the smaller.
    #[target_feature(enable = "avx512f")]
    fn exchange(v: __m512i, d: i64, upper: __mmask8) -> __m512i {
        let other = _mm512_permutexvar_epi64(partner(d), v);
        _mm512_mask_blend_epi64(upper, _mm512_min_epu64(v, other), _mm512_max_epu64(v, other))
    }

    /// The lane indices i ^ `d`.
    #[target_feature(enable = "avx512f")]
    fn partner(d: i64) -> __m512i {
        _mm512_set_epi64(7 ^ d, 6 ^ d, 5 ^ d, 4 ^ d, 3 ^ d, 2 ^ d, 1 ^ d, d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_keys_sort_as_the_library_sorts_them(
            keys in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..200),
            small in proptest::collection::vec(0u64..8, 0..140),
        ) {
            // Any keys (the network's padding value among them), and many
            // repeats of a few.
            for mut keys in [keys, small] {
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_keys(&mut keys);
                proptest::prop_assert_eq!(keys, expected);
            }
        }
    }

    #[test]
    fn every_length_the_network_takes_sorts() {
        for n in 0..=130u64 {
            let mut keys: Vec<u64> = (0..n)
                .map(|i| {
                    if i % 5 == 0 {
                        u64::MAX
                    } else {
                        i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    }
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_keys(&mut keys);
            assert_eq!(keys, expected, "{n} keys");
        }
    }
}
