//! The server side of a session (SPEC.md section 3).
//!
//! Every frame the server sends is the frame it answers, changed in place:
//! HELLO becomes HELLO_ACK (type byte), REQUEST becomes RESPONSE (type
//! byte, payload XOR 0x5A after the payload check), BYE becomes BYE_ACK
//! (type byte and the server's counts). So the answer to a batch of frames
//! is the batch itself, written back with one write and no copy.

use crate::buffer::{self, RecvBuf};
use crate::codec::{self, Counts, Header, Workload};
use crate::cpu::CpuTimes;
use crate::net;
use crate::payload;
use crate::reject::{Reject, Rejection};
use crate::transport::Conn;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerState {
    /// Nothing received yet; only HELLO may come.
    AwaitHello,
    /// HELLO acknowledged; requests, then BYE.
    Requests,
    /// BYE_ACK sent; only the end of stream may come.
    AfterByeAck,
}

/// The server's session state machine, independent of any socket.
pub struct Server {
    state: ServerState,
    workload: Workload,
    total: u64,
    frame: u64,
    next_seq: u64,
    pub requests: u64,
    pub responses: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl Default for Server {
    fn default() -> Self {
        Server::new()
    }
}

impl Server {
    pub fn new() -> Server {
        Server {
            state: ServerState::AwaitHello,
            workload: Workload::default(),
            total: 0,
            frame: codec::HEADER_BYTES as u64,
            next_seq: 1,
            requests: 0,
            responses: 0,
            bytes_sent: 0,
            bytes_received: 0,
        }
    }

    pub fn state(&self) -> ServerState {
        self.state
    }

    /// The workload from the HELLO (default before it).
    pub fn workload(&self) -> Workload {
        self.workload
    }

    /// The server's own counts at this point.
    pub fn counts(&self) -> Counts {
        Counts {
            requests: self.requests,
            responses: self.responses,
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
        }
    }

    /// Handles every complete frame at the start of `buf`, turning each
    /// into its answer in place. Returns how many bytes were handled (their
    /// answers are `buf[..consumed]`, to be sent in order) and the
    /// rejection met right after them, if any. Every check but the payload
    /// bytes is made as soon as a frame's 16 header bytes are there, so an
    /// incomplete frame can be rejected too; its bytes stay unhandled.
    pub fn process(&mut self, buf: &mut [u8]) -> (usize, Result<(), Rejection>) {
        let len = buf.len();
        let mut pos = 0usize;
        while pos < len {
            let h = match codec::peek_header(&buf[pos..]) {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(r) => return (pos, Err(r)),
            };
            // The common case, the next request of the session, passes
            // the header checks at once.
            let next_request = self.state == ServerState::Requests
                && h.ty == codec::REQUEST
                && h.seq == self.next_seq
                && h.seq <= self.total
                && h.len == self.workload.payload_bytes;
            if !next_request {
                if let Err(r) = self.check_header(&h, &buf[pos..]) {
                    return (pos, Err(r));
                }
            }
            let size = h.frame_bytes();
            if len - pos < size {
                break;
            }
            let frame = &mut buf[pos..pos + size];
            if next_request {
                if !payload::check_and_respond(&mut frame[codec::HEADER_BYTES..], h.seq) {
                    return (pos, Err(wrong_payload(h.seq)));
                }
                frame[1] = codec::RESPONSE;
                self.next_seq += 1;
                self.requests = self.requests.wrapping_add(1);
                self.responses = self.responses.wrapping_add(1);
                self.bytes_received = self.bytes_received.wrapping_add(self.frame);
                self.bytes_sent = self.bytes_sent.wrapping_add(self.frame);
            } else if let Err(r) = self.complete_frame(&h, frame) {
                return (pos, Err(r));
            }
            pos += size;
        }
        (pos, Ok(()))
    }

    /// The session's checks on a header, in SPEC.md's order: ERROR, type,
    /// sequence, length. `avail` starts with the header and holds as much
    /// of the frame as has arrived. Passing means the frame is the next
    /// request, the HELLO, or the BYE.
    fn check_header(&self, h: &Header, avail: &[u8]) -> Result<(), Rejection> {
        if h.ty == codec::ERROR {
            return Err(codec::peer_error_partial(h, avail));
        }
        match self.state {
            ServerState::AwaitHello => {
                if h.ty != codec::HELLO {
                    return Err(unexpected(h.ty, "HELLO"));
                }
                if h.seq != 0 {
                    return Err(Rejection::new(
                        Reject::WrongSequence,
                        format!("HELLO with sequence {}, expected 0", h.seq),
                    ));
                }
                Ok(())
            }
            ServerState::Requests => match h.ty {
                codec::REQUEST => {
                    // After W + N requests only BYE is allowed: the type
                    // comes before the sequence.
                    if self.next_seq > self.total {
                        return Err(Rejection::new(
                            Reject::UnexpectedType,
                            format!(
                                "REQUEST with sequence {} after all {} requests, only BYE may come",
                                h.seq, self.total
                            ),
                        ));
                    }
                    if h.seq != self.next_seq {
                        return Err(Rejection::new(
                            Reject::WrongSequence,
                            format!(
                                "REQUEST with sequence {}, expected {}",
                                h.seq, self.next_seq
                            ),
                        ));
                    }
                    if h.len != self.workload.payload_bytes {
                        return Err(Rejection::new(
                            Reject::BadLength,
                            format!(
                                "REQUEST {} with payload_length {}, workload payload_bytes {}",
                                h.seq, h.len, self.workload.payload_bytes
                            ),
                        ));
                    }
                    Ok(())
                }
                codec::BYE => {
                    if self.next_seq <= self.total {
                        return Err(Rejection::new(
                            Reject::UnexpectedType,
                            format!(
                                "BYE after {} of {} requests, expected REQUEST {}",
                                self.next_seq - 1,
                                self.total,
                                self.next_seq
                            ),
                        ));
                    }
                    if h.seq != self.total + 1 {
                        return Err(Rejection::new(
                            Reject::WrongSequence,
                            format!("BYE with sequence {}, expected {}", h.seq, self.total + 1),
                        ));
                    }
                    Ok(())
                }
                other => Err(unexpected(
                    other,
                    if self.next_seq <= self.total {
                        "REQUEST"
                    } else {
                        "BYE"
                    },
                )),
            },
            ServerState::AfterByeAck => Err(Rejection::new(
                Reject::UnexpectedType,
                format!(
                    "{} frame (type {}) after BYE, only the end of stream may follow it",
                    codec::type_name(h.ty),
                    h.ty
                ),
            )),
        }
    }

    /// A complete HELLO or BYE whose header passed: the payload checks,
    /// then the answer in place.
    fn complete_frame(&mut self, h: &Header, frame: &mut [u8]) -> Result<(), Rejection> {
        if h.ty == codec::HELLO {
            let w = Workload::decode(&frame[codec::HEADER_BYTES..]);
            w.check()?;
            self.workload = w;
            self.total = w.total();
            self.frame = w.frame_bytes();
            self.next_seq = 1;
            frame[1] = codec::HELLO_ACK;
            self.bytes_received = self.bytes_received.wrapping_add(40);
            self.bytes_sent = self.bytes_sent.wrapping_add(40);
            self.state = ServerState::Requests;
            return Ok(());
        }
        debug_assert_eq!(h.ty, codec::BYE);
        self.bytes_received = self.bytes_received.wrapping_add(48);
        let got = Counts::decode(&frame[codec::HEADER_BYTES..]);
        // The client's view, as the server sees it.
        let want = Counts {
            requests: self.requests,
            responses: self.responses,
            bytes_sent: self.bytes_received.wrapping_sub(48),
            bytes_received: self.bytes_sent,
        };
        if got != want {
            return Err(count_mismatch("BYE", &got, &want));
        }
        let own = self.counts();
        frame[codec::HEADER_BYTES..].copy_from_slice(&own.encode());
        frame[1] = codec::BYE_ACK;
        self.bytes_sent = self.bytes_sent.wrapping_add(48);
        self.state = ServerState::AfterByeAck;
        Ok(())
    }

    /// End of stream with `pending` unhandled bytes.
    pub fn on_eof(&self, pending: usize) -> Result<(), Rejection> {
        codec::eof_check(pending)?;
        match self.state {
            ServerState::AfterByeAck => Ok(()),
            ServerState::AwaitHello => Err(net::unexpected_eof("before HELLO")),
            ServerState::Requests => Err(net::unexpected_eof(&if self.next_seq <= self.total {
                format!("after {} of {} requests", self.next_seq - 1, self.total)
            } else {
                "before BYE".to_string()
            })),
        }
    }

    /// The largest frame the server may have to hold whole at this point.
    pub fn max_frame(&self) -> usize {
        codec::MAX_FRAME_BYTES
    }
}

fn unexpected(ty: u8, expected: &str) -> Rejection {
    Rejection::new(
        Reject::UnexpectedType,
        format!(
            "{} frame (type {}), expected {}",
            codec::type_name(ty),
            ty,
            expected
        ),
    )
}

fn wrong_payload(seq: u64) -> Rejection {
    Rejection::new(
        Reject::WrongPayload,
        format!("REQUEST {} payload differs from gen({})", seq, seq),
    )
}

pub(crate) fn count_mismatch(what: &str, got: &Counts, want: &Counts) -> Rejection {
    Rejection::new(
        Reject::CountMismatch,
        format!(
            "{} counts requests={} responses={} bytes_sent={} bytes_received={}, expected requests={} responses={} bytes_sent={} bytes_received={}",
            what,
            got.requests,
            got.responses,
            got.bytes_sent,
            got.bytes_received,
            want.requests,
            want.responses,
            want.bytes_sent,
            want.bytes_received
        ),
    )
}

/// What a completed session reports: the server's result line of
/// lanes/README.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerOutcome {
    pub workload: Workload,
    pub counts: Counts,
    /// Over the measured window (SPEC.md section 7); None where it cannot
    /// be read.
    pub cpu: Option<CpuTimes>,
}

impl ServerOutcome {
    pub fn json(&self) -> String {
        let w = &self.workload;
        let c = &self.counts;
        let warmup = c.responses.min(w.warmup);
        // HELLO and BYE came in, HELLO_ACK and BYE_ACK went out.
        format!(
            "{{\"round_trips\":{},\"warmup_round_trips\":{},\"payload_bytes\":{},\"max_in_flight\":{},\"frames_sent\":{},\"frames_received\":{},\"bytes_sent\":{},\"bytes_received\":{},{}\"runtime\":\"rust\"}}",
            c.responses - warmup,
            warmup,
            w.payload_bytes,
            w.max_in_flight,
            c.responses.wrapping_add(2),
            c.requests.wrapping_add(2),
            c.bytes_sent,
            c.bytes_received,
            CpuTimes::json_fields(self.cpu)
        )
    }
}

/// The server's CPU window (SPEC.md section 7): from just before handling
/// the first read once every warm-up request is answered (the client sends
/// request W + 1 only after their responses arrived) to having read BYE.
/// Its readings are out of line, so the read loop stays as it was.
#[derive(Default)]
struct CpuWindow {
    opened: bool,
    closed: bool,
    start: Option<CpuTimes>,
    end: Option<CpuTimes>,
}

impl CpuWindow {
    #[cold]
    #[inline(never)]
    fn open(&mut self) {
        self.opened = true;
        self.start = CpuTimes::now();
    }

    #[cold]
    #[inline(never)]
    fn close(&mut self) {
        self.closed = true;
        self.end = CpuTimes::now();
    }

    #[cold]
    #[inline(never)]
    fn outcome(&self, server: &Server) -> ServerOutcome {
        let workload = server.workload();
        ServerOutcome {
            workload,
            counts: server.counts(),
            cpu: CpuTimes::window(self.start, self.end, workload.round_trips == 0),
        }
    }
}

/// Serves one session on `stream`. On a rejection the ERROR frame has
/// been sent (when possible) and the connection closed.
pub fn serve<S: Conn>(stream: &mut S) -> Result<ServerOutcome, Rejection> {
    let mut server = Server::new();
    let mut rb = RecvBuf::new(buffer::capacity_for(server.max_frame()));
    let result = serve_loop(stream, &mut server, &mut rb);
    if let Err(r) = &result {
        net::reject_and_close(stream, r);
    }
    result
}

fn serve_loop<S: Conn>(
    stream: &mut S,
    server: &mut Server,
    rb: &mut RecvBuf,
) -> Result<ServerOutcome, Rejection> {
    let mut window = CpuWindow::default();
    loop {
        let n = match rb.read_from(stream) {
            Ok(n) => n,
            Err(e) => return Err(net::read_failure(&e, rb.pending_len())),
        };
        if n == 0 {
            server.on_eof(rb.pending_len())?;
            return Ok(window.outcome(server));
        }
        if !window.opened
            && server.state() == ServerState::Requests
            && server.responses >= server.workload().warmup
        {
            window.open();
        }
        let (consumed, result) = server.process(rb.pending_mut());
        if window.opened && !window.closed && server.state() == ServerState::AfterByeAck {
            window.close();
        }
        if consumed > 0 {
            if let Err(e) = stream.write_all(&rb.pending()[..consumed]) {
                return Err(result.err().unwrap_or_else(|| net::write_failure(&e)));
            }
            rb.consume(consumed);
        }
        result?;
    }
}
