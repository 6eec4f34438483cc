//! The payload generator of SPEC.md section 4: `gen(s, P)` is the first P
//! bytes of the splitmix64 stream seeded with `s`, each 64-bit block
//! little-endian; `respond(x)` XORs every byte with 0x5A. Everything works
//! on whole 8-byte blocks, with the last block cut to fit.

/// The splitmix64 increment.
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
/// The response mask, as one byte and as a whole 8-byte block.
pub const MASK: u8 = 0x5A;
pub const MASK64: u64 = 0x5A5A_5A5A_5A5A_5A5A;

#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Advances the state and returns the next block of the stream.
#[inline(always)]
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GAMMA);
    mix(*state)
}

#[inline(always)]
fn fill_with(out: &mut [u8], seq: u64, mask: u64) {
    let mut state = seq;
    let mut chunks = out.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&(next(&mut state) ^ mask).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let b = (next(&mut state) ^ mask).to_le_bytes();
        let n = rest.len();
        rest.copy_from_slice(&b[..n]);
    }
}

#[inline(always)]
fn check_with(p: &[u8], seq: u64, mask: u64) -> bool {
    let mut state = seq;
    let mut chunks = p.chunks_exact(8);
    let mut diff = 0u64;
    for c in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        diff |= u64::from_le_bytes(b) ^ next(&mut state) ^ mask;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let want = (next(&mut state) ^ mask).to_le_bytes();
        if rest != &want[..rest.len()] {
            return false;
        }
    }
    diff == 0
}

/// Writes `gen(seq, out.len())` into `out`.
pub fn fill(out: &mut [u8], seq: u64) {
    fill_with(out, seq, 0)
}

/// Writes `respond(gen(seq, out.len()))` into `out`.
pub fn fill_response(out: &mut [u8], seq: u64) {
    fill_with(out, seq, MASK64)
}

/// Whether `p` is exactly `gen(seq, p.len())`.
pub fn check(p: &[u8], seq: u64) -> bool {
    check_with(p, seq, 0)
}

/// Whether `p` is exactly `respond(gen(seq, p.len()))`.
pub fn check_response(p: &[u8], seq: u64) -> bool {
    check_with(p, seq, MASK64)
}

/// `respond(x)`: every byte XOR 0x5A, into `out` (same length as `input`).
pub fn respond(out: &mut [u8], input: &[u8]) {
    assert_eq!(out.len(), input.len());
    for (o, i) in out.iter_mut().zip(input) {
        *o = *i ^ MASK;
    }
}

/// Checks a request payload in place and turns it into its response:
/// returns whether `p` was `gen(seq, p.len())`; afterwards `p` holds
/// `respond(gen(seq, p.len()))` (also when the check failed).
pub fn check_and_respond(p: &mut [u8], seq: u64) -> bool {
    let mut state = seq;
    let mut chunks = p.chunks_exact_mut(8);
    let mut diff = 0u64;
    for c in &mut chunks {
        let z = next(&mut state);
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        diff |= u64::from_le_bytes(b) ^ z;
        c.copy_from_slice(&(z ^ MASK64).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let z = next(&mut state).to_le_bytes();
        for (k, byte) in rest.iter_mut().enumerate() {
            if *byte != z[k] {
                diff |= 1;
            }
            *byte = z[k] ^ MASK;
        }
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator exactly as SPEC.md writes it, one byte at a time.
    fn reference(seq: u64, len: usize) -> Vec<u8> {
        let mut state = seq;
        let mut out = Vec::new();
        while out.len() < len {
            state = state.wrapping_add(GAMMA);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            z ^= z >> 31;
            for k in 0..8 {
                if out.len() < len {
                    out.push((z >> (8 * k)) as u8);
                }
            }
        }
        out
    }

    #[test]
    fn spec_examples() {
        let mut b = [0u8; 8];
        fill(&mut b, 1);
        assert_eq!(b, [0xc1, 0x5c, 0x02, 0x89, 0xec, 0x2d, 0x0a, 0x91]);
        let mut c = [0u8; 3];
        fill(&mut c, 1);
        assert_eq!(c, [0xc1, 0x5c, 0x02]);
    }

    #[test]
    fn matches_reference_for_many_lengths() {
        for seq in [0u64, 1, 2, 7, 1 << 40, u64::MAX] {
            for len in 0..70 {
                let want = reference(seq, len);
                let mut got = vec![0u8; len];
                fill(&mut got, seq);
                assert_eq!(got, want, "seq {seq} len {len}");
                assert!(check(&got, seq));
                let mut resp = vec![0u8; len];
                respond(&mut resp, &got);
                let mut r2 = vec![0u8; len];
                fill_response(&mut r2, seq);
                assert_eq!(resp, r2);
                assert!(check_response(&resp, seq));
                let mut inplace = got.clone();
                assert!(check_and_respond(&mut inplace, seq));
                assert_eq!(inplace, resp);
                if len > 0 {
                    for pos in [0, len / 2, len - 1] {
                        let mut bad = got.clone();
                        bad[pos] ^= 0x10;
                        assert!(!check(&bad, seq));
                        assert!(!check_and_respond(&mut bad, seq));
                        let mut badr = resp.clone();
                        badr[pos] ^= 1;
                        assert!(!check_response(&badr, seq));
                    }
                    assert!(!check_response(&got, seq), "plain echo must fail");
                }
            }
        }
    }
}
