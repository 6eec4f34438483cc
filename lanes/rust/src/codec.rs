//! Frame encoding and decoding (SPEC.md sections 1, 2 and 5): the 16-byte
//! header, the header checks every receiver makes, and the workload,
//! counts and error payloads.

use crate::reject::{Reject, Rejection};

pub const VERSION: u8 = 1;
pub const HEADER_BYTES: usize = 16;
pub const MAX_PAYLOAD: u32 = 1_048_576;
pub const MAX_FRAME_BYTES: usize = HEADER_BYTES + MAX_PAYLOAD as usize;
pub const MAX_IN_FLIGHT: u32 = 65_536;
pub const WORKLOAD_BYTES: usize = 24;
pub const COUNTS_BYTES: usize = 32;
pub const MAX_REASON_BYTES: usize = 512;
pub const MIN_ERROR_PAYLOAD: u32 = 2;
pub const MAX_ERROR_PAYLOAD: u32 = 2 + MAX_REASON_BYTES as u32;
/// `W + N` must be below this.
pub const MAX_TOTAL_ROUND_TRIPS: u64 = 1 << 62;

pub const HELLO: u8 = 1;
pub const HELLO_ACK: u8 = 2;
pub const REQUEST: u8 = 3;
pub const RESPONSE: u8 = 4;
pub const BYE: u8 = 5;
pub const BYE_ACK: u8 = 6;
pub const ERROR: u8 = 7;

/// The spec's name of a frame type, for messages.
pub fn type_name(ty: u8) -> &'static str {
    match ty {
        HELLO => "HELLO",
        HELLO_ACK => "HELLO_ACK",
        REQUEST => "REQUEST",
        RESPONSE => "RESPONSE",
        BYE => "BYE",
        BYE_ACK => "BYE_ACK",
        ERROR => "ERROR",
        _ => "unknown",
    }
}

/// The fixed payload length of a fixed-length type.
pub fn fixed_length(ty: u8) -> Option<u32> {
    match ty {
        HELLO | HELLO_ACK => Some(WORKLOAD_BYTES as u32),
        BYE | BYE_ACK => Some(COUNTS_BYTES as u32),
        _ => None,
    }
}

#[inline(always)]
fn be_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_be_bytes(a)
}

#[inline(always)]
fn be_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_be_bytes(a)
}

/// A decoded frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub ty: u8,
    pub flags: u16,
    pub len: u32,
    pub seq: u64,
}

impl Header {
    pub fn new(ty: u8, len: u32, seq: u64) -> Header {
        Header {
            version: VERSION,
            ty,
            flags: 0,
            len,
            seq,
        }
    }

    /// Decodes the first 16 bytes of `b` (which must hold them).
    #[inline(always)]
    pub fn decode(b: &[u8]) -> Header {
        Header {
            version: b[0],
            ty: b[1],
            flags: u16::from_be_bytes([b[2], b[3]]),
            len: be_u32(&b[4..8]),
            seq: be_u64(&b[8..16]),
        }
    }

    /// Writes the 16 header bytes into the start of `out`.
    #[inline(always)]
    pub fn encode(&self, out: &mut [u8]) {
        out[0] = self.version;
        out[1] = self.ty;
        out[2..4].copy_from_slice(&self.flags.to_be_bytes());
        out[4..8].copy_from_slice(&self.len.to_be_bytes());
        out[8..16].copy_from_slice(&self.seq.to_be_bytes());
    }

    /// The checks of SPEC.md section 1 made as soon as the header arrived,
    /// in the spec's order: version, type, flags, size, fixed length. An
    /// ERROR frame's payload outside 2..514 bytes is also `bad_length`.
    #[inline(always)]
    pub fn check(&self) -> Result<(), Rejection> {
        if self.version != VERSION {
            return Err(Rejection::new(
                Reject::UnsupportedVersion,
                format!("frame version {}, expected {}", self.version, VERSION),
            ));
        }
        if self.ty < HELLO || self.ty > ERROR {
            return Err(Rejection::new(
                Reject::UnknownType,
                format!("frame type {}", self.ty),
            ));
        }
        if self.flags != 0 {
            return Err(Rejection::new(
                Reject::BadFlags,
                format!(
                    "flags 0x{:04x} in a {} frame",
                    self.flags,
                    type_name(self.ty)
                ),
            ));
        }
        if self.len > MAX_PAYLOAD {
            return Err(Rejection::new(
                Reject::FrameTooLarge,
                format!(
                    "payload_length {} in a {} frame, maximum {}",
                    self.len,
                    type_name(self.ty),
                    MAX_PAYLOAD
                ),
            ));
        }
        if let Some(fixed) = fixed_length(self.ty) {
            if self.len != fixed {
                return Err(Rejection::new(
                    Reject::BadLength,
                    format!(
                        "payload_length {} in a {} frame, must be {}",
                        self.len,
                        type_name(self.ty),
                        fixed
                    ),
                ));
            }
        }
        if self.ty == ERROR && !(MIN_ERROR_PAYLOAD..=MAX_ERROR_PAYLOAD).contains(&self.len) {
            return Err(Rejection::new(
                Reject::BadLength,
                format!(
                    "payload_length {} in an ERROR frame, must be {}..{}",
                    self.len, MIN_ERROR_PAYLOAD, MAX_ERROR_PAYLOAD
                ),
            ));
        }
        Ok(())
    }

    /// Whole frame size, header included.
    #[inline(always)]
    pub fn frame_bytes(&self) -> usize {
        HEADER_BYTES + self.len as usize
    }
}

/// Looks at the start of `buf`: `Ok(None)` when fewer than 16 bytes are
/// there, `Err` as soon as the header shows a rejection, else the header
/// (whether or not its payload has fully arrived).
#[inline(always)]
pub fn peek_header(buf: &[u8]) -> Result<Option<Header>, Rejection> {
    if buf.len() < HEADER_BYTES {
        return Ok(None);
    }
    let h = Header::decode(buf);
    h.check()?;
    Ok(Some(h))
}

/// What end of stream means with `pending` unparsed bytes left: clean
/// (between frames) or `truncated`. Whether a clean end is allowed at that
/// point is the session's decision.
pub fn eof_check(pending: usize) -> Result<(), Rejection> {
    if pending == 0 {
        Ok(())
    } else {
        Err(Rejection::new(
            Reject::Truncated,
            format!("end of stream {} bytes into a frame", pending),
        ))
    }
}

/// Appends one whole frame to `out`.
pub fn encode_frame(out: &mut Vec<u8>, ty: u8, seq: u64, payload: &[u8]) {
    let mut h = [0u8; HEADER_BYTES];
    Header::new(ty, payload.len() as u32, seq).encode(&mut h);
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
}

/// The HELLO / HELLO_ACK payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Workload {
    pub warmup: u64,
    pub round_trips: u64,
    pub payload_bytes: u32,
    pub max_in_flight: u32,
}

impl Workload {
    pub fn encode(&self) -> [u8; WORKLOAD_BYTES] {
        let mut b = [0u8; WORKLOAD_BYTES];
        b[0..8].copy_from_slice(&self.warmup.to_be_bytes());
        b[8..16].copy_from_slice(&self.round_trips.to_be_bytes());
        b[16..20].copy_from_slice(&self.payload_bytes.to_be_bytes());
        b[20..24].copy_from_slice(&self.max_in_flight.to_be_bytes());
        b
    }

    /// Decodes the first 24 bytes of `b`.
    pub fn decode(b: &[u8]) -> Workload {
        Workload {
            warmup: be_u64(&b[0..8]),
            round_trips: be_u64(&b[8..16]),
            payload_bytes: be_u32(&b[16..20]),
            max_in_flight: be_u32(&b[20..24]),
        }
    }

    /// The workload rules of SPEC.md section 2.
    pub fn check(&self) -> Result<(), Rejection> {
        let bad = |what: String| Err(Rejection::new(Reject::BadWorkload, what));
        if self.round_trips < 1 {
            return bad("round_trips 0, must be 1 or more".into());
        }
        if self.payload_bytes > MAX_PAYLOAD {
            return bad(format!(
                "payload_bytes {}, maximum {}",
                self.payload_bytes, MAX_PAYLOAD
            ));
        }
        if self.max_in_flight < 1 || self.max_in_flight > MAX_IN_FLIGHT {
            return bad(format!(
                "max_in_flight {}, must be 1..{}",
                self.max_in_flight, MAX_IN_FLIGHT
            ));
        }
        match self.warmup.checked_add(self.round_trips) {
            Some(t) if t < MAX_TOTAL_ROUND_TRIPS => Ok(()),
            _ => bad(format!(
                "warmup {} + round_trips {} is not below 2^62",
                self.warmup, self.round_trips
            )),
        }
    }

    /// `W + N` (valid workloads only).
    pub fn total(&self) -> u64 {
        self.warmup + self.round_trips
    }

    /// `F = 16 + P`: the size of one REQUEST or RESPONSE frame.
    pub fn frame_bytes(&self) -> u64 {
        HEADER_BYTES as u64 + self.payload_bytes as u64
    }

    /// The counts a BYE (`ack` false) or BYE_ACK (`ack` true) must carry,
    /// modulo 2^64.
    pub fn expected_counts(&self, ack: bool) -> Counts {
        let t = self.total();
        let base = t.wrapping_mul(self.frame_bytes()).wrapping_add(40);
        Counts {
            requests: t,
            responses: t,
            bytes_sent: base,
            bytes_received: if ack { base.wrapping_add(48) } else { base },
        }
    }

    /// What a client must report for this workload, modulo 2^64.
    pub fn expected_totals(&self) -> Totals {
        let t = self.total();
        let bytes = t.wrapping_mul(self.frame_bytes()).wrapping_add(88);
        Totals {
            frames_sent: t + 2,
            frames_received: t + 2,
            bytes_sent: bytes,
            bytes_received: bytes,
        }
    }
}

/// The BYE / BYE_ACK payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counts {
    pub requests: u64,
    pub responses: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl Counts {
    pub fn encode(&self) -> [u8; COUNTS_BYTES] {
        let mut b = [0u8; COUNTS_BYTES];
        b[0..8].copy_from_slice(&self.requests.to_be_bytes());
        b[8..16].copy_from_slice(&self.responses.to_be_bytes());
        b[16..24].copy_from_slice(&self.bytes_sent.to_be_bytes());
        b[24..32].copy_from_slice(&self.bytes_received.to_be_bytes());
        b
    }

    /// Decodes the first 32 bytes of `b`.
    pub fn decode(b: &[u8]) -> Counts {
        Counts {
            requests: be_u64(&b[0..8]),
            responses: be_u64(&b[8..16]),
            bytes_sent: be_u64(&b[16..24]),
            bytes_received: be_u64(&b[24..32]),
        }
    }
}

/// A client's whole-session figures, HELLO and BYE included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Totals {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

/// Appends an ERROR frame with `code` and `reason`, the reason cut to 512
/// bytes at a character boundary.
pub fn encode_error(out: &mut Vec<u8>, code: u16, reason: &str) {
    let mut end = reason.len().min(MAX_REASON_BYTES);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let r = &reason.as_bytes()[..end];
    let mut h = [0u8; HEADER_BYTES];
    Header::new(ERROR, 2 + r.len() as u32, 0).encode(&mut h);
    out.extend_from_slice(&h);
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(r);
}

/// Decodes an ERROR payload into its code and reason (invalid UTF-8 is
/// replaced). The header check guarantees at least 2 bytes.
pub fn decode_error(payload: &[u8]) -> (u16, String) {
    if payload.len() < 2 {
        return (0, String::new());
    }
    let code = u16::from_be_bytes([payload[0], payload[1]]);
    (code, String::from_utf8_lossy(&payload[2..]).into_owned())
}

/// The `peer_error` rejection for a received ERROR payload.
pub fn peer_error(payload: &[u8]) -> Rejection {
    let (code, reason) = decode_error(payload);
    Rejection::new(
        Reject::PeerError,
        format!(
            "received ERROR code {} ({}): {}",
            code,
            crate::reject::code_name(code),
            crate::reject::one_line(&reason, 600)
        ),
    )
}

/// The `peer_error` rejection for an ERROR frame `h` of which `avail`
/// (header included) has arrived so far: decided from the header, with
/// the code and reason when they are there.
pub fn peer_error_partial(h: &Header, avail: &[u8]) -> Rejection {
    let size = h.frame_bytes();
    if avail.len() >= size {
        return peer_error(&avail[HEADER_BYTES..size]);
    }
    if avail.len() < HEADER_BYTES + 2 {
        return Rejection::new(
            Reject::PeerError,
            format!(
                "received an ERROR frame header ({} payload bytes announced), its code not yet",
                h.len
            ),
        );
    }
    let mut r = peer_error(&avail[HEADER_BYTES..]);
    r.detail = format!(
        "{} (reason cut: {} of {} frame bytes arrived)",
        r.detail,
        avail.len(),
        size
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(version: u8, ty: u8, flags: u16, len: u32, seq: u64) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        Header {
            version,
            ty,
            flags,
            len,
            seq,
        }
        .encode(&mut b);
        b
    }

    fn kind(b: &[u8]) -> Option<Reject> {
        peek_header(b).err().map(|r| r.kind)
    }

    #[test]
    fn header_round_trip() {
        let h = Header::new(REQUEST, 64, 0x0102_0304_0506_0708);
        let mut b = [0u8; 16];
        h.encode(&mut b);
        assert_eq!(b, [1, 3, 0, 0, 0, 0, 0, 64, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(Header::decode(&b), h);
    }

    #[test]
    fn header_checks_in_order() {
        assert_eq!(
            kind(&hdr(2, 9, 1, u32::MAX, 0)),
            Some(Reject::UnsupportedVersion)
        );
        assert_eq!(kind(&hdr(1, 0, 1, u32::MAX, 0)), Some(Reject::UnknownType));
        assert_eq!(kind(&hdr(1, 8, 0, 0, 0)), Some(Reject::UnknownType));
        assert_eq!(kind(&hdr(1, 3, 1, u32::MAX, 0)), Some(Reject::BadFlags));
        assert_eq!(
            kind(&hdr(1, 3, 0, MAX_PAYLOAD + 1, 0)),
            Some(Reject::FrameTooLarge)
        );
        assert_eq!(
            kind(&hdr(1, 1, 0, MAX_PAYLOAD + 1, 0)),
            Some(Reject::FrameTooLarge)
        );
        assert_eq!(kind(&hdr(1, 3, 0, MAX_PAYLOAD, 0)), None);
        assert_eq!(kind(&hdr(1, 1, 0, 23, 0)), Some(Reject::BadLength));
        assert_eq!(kind(&hdr(1, 6, 0, 33, 0)), Some(Reject::BadLength));
        assert_eq!(kind(&hdr(1, 7, 0, 1, 0)), Some(Reject::BadLength));
        assert_eq!(kind(&hdr(1, 7, 0, 515, 0)), Some(Reject::BadLength));
        assert_eq!(kind(&hdr(1, 7, 0, 514, 0)), None);
        assert_eq!(peek_header(&hdr(1, 1, 0, 24, 0)[..15]), Ok(None));
    }

    #[test]
    fn workload_rules() {
        let ok = Workload {
            warmup: 0,
            round_trips: 1,
            payload_bytes: 0,
            max_in_flight: 1,
        };
        assert!(ok.check().is_ok());
        assert!(Workload {
            round_trips: 0,
            ..ok
        }
        .check()
        .is_err());
        assert!(Workload {
            payload_bytes: MAX_PAYLOAD + 1,
            ..ok
        }
        .check()
        .is_err());
        assert!(Workload {
            payload_bytes: MAX_PAYLOAD,
            ..ok
        }
        .check()
        .is_ok());
        assert!(Workload {
            max_in_flight: 0,
            ..ok
        }
        .check()
        .is_err());
        assert!(Workload {
            max_in_flight: MAX_IN_FLIGHT + 1,
            ..ok
        }
        .check()
        .is_err());
        assert!(Workload {
            max_in_flight: MAX_IN_FLIGHT,
            ..ok
        }
        .check()
        .is_ok());
        assert!(Workload {
            warmup: (1 << 62) - 2,
            ..ok
        }
        .check()
        .is_ok());
        assert!(Workload {
            warmup: (1 << 62) - 1,
            ..ok
        }
        .check()
        .is_err());
        assert!(Workload {
            warmup: u64::MAX,
            ..ok
        }
        .check()
        .is_err());
        let w = Workload {
            warmup: 3,
            round_trips: 5,
            payload_bytes: 1000,
            max_in_flight: 7,
        };
        assert_eq!(Workload::decode(&w.encode()), w);
    }

    #[test]
    fn counts_wrap() {
        let w = Workload {
            warmup: 0,
            round_trips: (1 << 62) - 1,
            payload_bytes: MAX_PAYLOAD,
            max_in_flight: 1,
        };
        let t = w.total() as u128;
        let f = 16 + MAX_PAYLOAD as u128;
        let base = ((40 + t * f) % (1u128 << 64)) as u64;
        assert_eq!(w.expected_counts(false).bytes_sent, base);
        assert_eq!(
            w.expected_counts(true).bytes_received,
            base.wrapping_add(48)
        );
        assert_eq!(w.expected_totals().bytes_sent, base.wrapping_add(48));
    }

    #[test]
    fn error_frames() {
        let mut out = Vec::new();
        encode_error(&mut out, 3, &"x".repeat(600));
        assert_eq!(out.len(), 16 + 2 + 512);
        let h = Header::decode(&out);
        assert_eq!((h.ty, h.len, h.seq), (ERROR, 514, 0));
        assert_eq!(decode_error(&out[16..]).0, 3);
        out.clear();
        // A multi-byte character across the 512-byte cut is dropped whole.
        encode_error(&mut out, 1, &format!("{}é", "a".repeat(511)));
        assert_eq!(out.len(), 16 + 2 + 511);
    }
}
