//! Socket helpers shared by both peers: turning I/O failures into the
//! rejections of SPEC.md section 6, and the rejecting close (ERROR frame,
//! half-close, bounded drain) that lets the peer read the ERROR frame
//! instead of a connection reset.

use std::io;
use std::net::Shutdown;
use std::time::{Duration, Instant};

use crate::codec;
use crate::reject::{Reject, Rejection};
use crate::transport::Conn;

/// How long a rejecting peer keeps draining input after its ERROR frame.
pub const LINGER: Duration = Duration::from_secs(1);
/// How many bytes it drains at most.
pub const LINGER_BYTES: usize = 64 << 20;

/// A read failure with `pending` unparsed bytes: the connection ended
/// (reset or aborted counts as an end of stream).
pub fn read_failure(e: &io::Error, pending: usize) -> Rejection {
    if pending > 0 {
        Rejection::new(
            Reject::Truncated,
            format!("read failed {} bytes into a frame: {}", pending, e),
        )
    } else {
        Rejection::new(
            Reject::UnexpectedEof,
            format!("read failed between frames: {}", e),
        )
    }
}

/// A write failure: the peer went away while the session goes on.
pub fn write_failure(e: &io::Error) -> Rejection {
    Rejection::new(
        Reject::UnexpectedEof,
        format!("write failed, peer closed the connection: {}", e),
    )
}

/// End of stream between frames where the session goes on.
pub fn unexpected_eof(what: &str) -> Rejection {
    Rejection::new(Reject::UnexpectedEof, format!("end of stream {}", what))
}

/// Sends the ERROR frame for `r` (none for `peer_error`: the peer has
/// already given up), half-closes, and drains what the peer still sends
/// for a bounded time so the ERROR frame is not lost to a reset.
pub fn reject_and_close<S: Conn>(stream: &mut S, r: &Rejection) {
    if r.kind != Reject::PeerError {
        let mut out = Vec::with_capacity(codec::HEADER_BYTES + 2 + codec::MAX_REASON_BYTES);
        codec::encode_error(&mut out, r.kind.code(), &r.to_string());
        if stream.write_all(&out).is_err() {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
    drain(stream, LINGER, LINGER_BYTES);
    let _ = stream.shutdown(Shutdown::Both);
}

fn drain<S: Conn>(stream: &mut S, limit: Duration, max_bytes: usize) {
    let deadline = Instant::now() + limit;
    let mut scratch = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    while total < max_bytes {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        if stream.set_read_timeout(Some(deadline - now)).is_err() {
            break;
        }
        match stream.read(&mut scratch) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}
