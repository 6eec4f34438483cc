//! The client side of a session (SPEC.md section 3): HELLO, warm-up,
//! the measured round trips with at most `M` requests outstanding, BYE.
//!
//! Small windows (up to 32 KiB: every outstanding request and response
//! fit in the socket buffers of any common system) run on one thread: write the requests the window
//! allows in one write, read, validate every complete response, write the
//! refill. Larger windows move the writing to a second thread, so neither
//! peer can block writing while the other blocks writing too.
//!
//! Every measured round trip's latency goes into a histogram (SPEC.md
//! section 7): the clock is read once per write for every request in it
//! and once per read for every response it completes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Instant;

use crate::buffer::{self, RecvBuf};
use crate::codec::{self, Counts, Header, Totals, Workload};
use crate::cpu::CpuTimes;
use crate::histogram::Histogram;
use crate::net;
use crate::payload;
use crate::reject::{Reject, Rejection};
use crate::server::count_mismatch;
use crate::transport::Conn;

/// Windows of up to this many bytes run on one thread.
pub const SINGLE_THREAD_WINDOW_BYTES: u64 = 32 * 1024;
/// The most request bytes built into one write.
pub const WRITE_BATCH_BYTES: u64 = 256 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientPhase {
    AwaitHelloAck,
    Running,
    AwaitByeAck,
    Done,
}

/// Appends REQUEST frames `first .. first + count - 1` with `p`-byte
/// payloads to `out`.
pub fn encode_requests(out: &mut Vec<u8>, first: u64, count: u64, p: u32) {
    let f = codec::HEADER_BYTES + p as usize;
    let old = out.len();
    out.resize(old + f * count as usize, 0);
    for (seq, frame) in (first..).zip(out[old..].chunks_exact_mut(f)) {
        Header::new(codec::REQUEST, p, seq).encode(frame);
        payload::fill(&mut frame[codec::HEADER_BYTES..], seq);
    }
}

/// The send times of the outstanding requests, in nanoseconds since
/// `base`, indexed by sequence modulo M (at most M are outstanding).
/// Shared with the writer thread, which stamps requests before it
/// publishes them as sent; a slot is stamped again only once the window
/// moved past its response, which was recorded before that.
pub struct SendTimes {
    base: Instant,
    slots: Box<[AtomicU64]>,
}

impl SendTimes {
    pub fn new(max_in_flight: u32) -> SendTimes {
        SendTimes {
            base: Instant::now(),
            slots: (0..max_in_flight.max(1))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// The clock, in nanoseconds since `base`.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    /// Records `t` as the send time of requests `first .. first + count - 1`.
    #[inline]
    pub fn stamp(&self, first: u64, count: u64, t: u64) {
        let m = self.slots.len();
        let mut i = self.slot(first);
        for _ in 0..count {
            self.slots[i].store(t, Ordering::Relaxed);
            i += 1;
            if i == m {
                i = 0;
            }
        }
    }

    /// The slot of sequence `seq`.
    pub fn slot(&self, seq: u64) -> usize {
        (seq % self.slots.len() as u64) as usize
    }
}

/// The client's session state machine, independent of any socket.
pub struct Client {
    w: Workload,
    total: u64,
    frame: u64,
    phase: ClientPhase,
    /// The next request sequence to send.
    next_send: u64,
    /// The sequence of the oldest outstanding request.
    expect: u64,
    /// `expect % M`, its send time's slot, kept without a division.
    expect_slot: usize,
    m: usize,
    /// Requests are sent up to this sequence (W during warm-up).
    limit: u64,
    pub frames_sent: u64,
    pub frames_received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    times: Arc<SendTimes>,
    /// When the bytes being processed were read (`times`' clock).
    received_at: u64,
    latency: Histogram,
}

impl Client {
    /// A client for a workload that passed `Workload::check`.
    pub fn new(w: Workload) -> Client {
        let total = w.total();
        Client {
            w,
            total,
            frame: w.frame_bytes(),
            phase: ClientPhase::AwaitHelloAck,
            next_send: 1,
            expect: 1,
            expect_slot: 1 % w.max_in_flight.max(1) as usize,
            m: w.max_in_flight.max(1) as usize,
            limit: if w.warmup > 0 { w.warmup } else { total },
            frames_sent: 0,
            frames_received: 0,
            bytes_sent: 0,
            bytes_received: 0,
            times: Arc::new(SendTimes::new(w.max_in_flight)),
            received_at: 0,
            latency: Histogram::new(),
        }
    }

    /// The send-time ring, for a writer thread to stamp.
    pub fn send_times(&self) -> Arc<SendTimes> {
        Arc::clone(&self.times)
    }

    /// Stamps the last `count` requests `fill` appended with the clock
    /// now; call it right before they are written.
    #[inline]
    pub fn stamp_sent(&self, count: u64) {
        self.times
            .stamp(self.next_send - count, count, self.times.now());
    }

    /// Reads the clock as the time the next bytes to process were read.
    #[inline]
    pub fn note_received(&mut self) {
        self.received_at = self.times.now();
    }

    /// Sets that time (for tests without a socket).
    pub fn set_received_at(&mut self, t: u64) {
        self.received_at = t;
    }

    /// The latencies of the measured responses validated so far.
    pub fn latency(&self) -> &Histogram {
        &self.latency
    }

    pub fn phase(&self) -> ClientPhase {
        self.phase
    }

    pub fn workload(&self) -> Workload {
        self.w
    }

    /// Appends the HELLO.
    pub fn hello(&mut self, out: &mut Vec<u8>) {
        codec::encode_frame(out, codec::HELLO, 0, &self.w.encode());
        self.frames_sent = self.frames_sent.wrapping_add(1);
        self.bytes_sent = self.bytes_sent.wrapping_add(40);
    }

    /// Whether every warm-up response has been validated (and HELLO_ACK).
    pub fn warmup_done(&self) -> bool {
        self.phase != ClientPhase::AwaitHelloAck && self.expect > self.w.warmup
    }

    /// Allows the measured requests to be sent.
    pub fn open_measured(&mut self) {
        self.limit = self.total;
    }

    /// Whether the response to `W + N` has been validated.
    pub fn measured_done(&self) -> bool {
        self.expect > self.total
    }

    /// Appends the requests the window allows, at most `max_bytes` of them
    /// (but at least one when any is allowed). Returns how many.
    pub fn fill(&mut self, out: &mut Vec<u8>, max_bytes: u64) -> u64 {
        if self.phase != ClientPhase::Running {
            return 0;
        }
        let window_end = self.expect - 1 + self.w.max_in_flight as u64;
        let hi = self.limit.min(window_end);
        if self.next_send > hi {
            return 0;
        }
        let count = (hi - self.next_send + 1).min((max_bytes / self.frame).max(1));
        encode_requests(out, self.next_send, count, self.w.payload_bytes);
        self.next_send += count;
        self.frames_sent = self.frames_sent.wrapping_add(count);
        self.bytes_sent = self.bytes_sent.wrapping_add(count.wrapping_mul(self.frame));
        count
    }

    /// Records that requests up to `last` were sent by someone else.
    pub fn note_sent(&mut self, last: u64) {
        if last + 1 > self.next_send {
            let count = last + 1 - self.next_send;
            self.next_send = last + 1;
            self.frames_sent = self.frames_sent.wrapping_add(count);
            self.bytes_sent = self.bytes_sent.wrapping_add(count.wrapping_mul(self.frame));
        }
    }

    /// Appends the BYE with the client's counts.
    pub fn bye(&mut self, out: &mut Vec<u8>) {
        let counts = Counts {
            requests: self.next_send - 1,
            responses: self.expect - 1,
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
        };
        codec::encode_frame(out, codec::BYE, self.total + 1, &counts.encode());
        self.frames_sent = self.frames_sent.wrapping_add(1);
        self.bytes_sent = self.bytes_sent.wrapping_add(48);
        self.phase = ClientPhase::AwaitByeAck;
    }

    /// End of stream with `pending` unparsed bytes: the client never
    /// expects one, so it is always a rejection.
    pub fn on_eof(&self, pending: usize) -> Rejection {
        if let Err(r) = codec::eof_check(pending) {
            return r;
        }
        net::unexpected_eof(match self.phase {
            ClientPhase::AwaitHelloAck => "before HELLO_ACK",
            ClientPhase::Running => "with responses outstanding",
            ClientPhase::AwaitByeAck => "before BYE_ACK",
            ClientPhase::Done => "after BYE_ACK",
        })
    }

    pub fn totals(&self) -> Totals {
        Totals {
            frames_sent: self.frames_sent,
            frames_received: self.frames_received,
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
        }
    }

    /// Validates every complete frame at the start of `buf`; returns how
    /// many bytes they took. Every check but the payload bytes is made as
    /// soon as a frame's 16 header bytes are there, so an incomplete frame
    /// can be rejected too.
    pub fn process(&mut self, buf: &[u8]) -> Result<usize, Rejection> {
        let len = buf.len();
        let mut pos = 0usize;
        while pos < len {
            let h = match codec::peek_header(&buf[pos..])? {
                Some(h) => h,
                None => break,
            };
            // The common case, the next response, passes the header
            // checks at once.
            let next_response = self.phase == ClientPhase::Running
                && h.ty == codec::RESPONSE
                && h.seq == self.expect
                && self.expect < self.next_send
                && h.len == self.w.payload_bytes;
            if !next_response {
                self.check_header(&h, &buf[pos..])?;
            }
            let size = h.frame_bytes();
            if len - pos < size {
                break;
            }
            let frame = &buf[pos..pos + size];
            if next_response {
                if !payload::check_response(&frame[codec::HEADER_BYTES..], h.seq) {
                    return Err(Rejection::new(
                        Reject::WrongPayload,
                        format!(
                            "RESPONSE {} payload differs from respond(gen({}))",
                            h.seq, h.seq
                        ),
                    ));
                }
                if h.seq > self.w.warmup {
                    let sent = self.times.slots[self.expect_slot].load(Ordering::Relaxed);
                    self.latency.record(self.received_at.saturating_sub(sent));
                }
                self.expect += 1;
                self.expect_slot += 1;
                if self.expect_slot == self.m {
                    self.expect_slot = 0;
                }
            } else {
                self.complete_frame(&h, frame)?;
            }
            self.frames_received = self.frames_received.wrapping_add(1);
            self.bytes_received = self.bytes_received.wrapping_add(size as u64);
            pos += size;
        }
        // The session ends with the read that validated BYE_ACK: a frame
        // begun after it there is cut short (a whole header was rejected
        // above).
        if self.phase == ClientPhase::Done && pos < len {
            return Err(Rejection::new(
                Reject::Truncated,
                format!("{} bytes of a frame after BYE_ACK", len - pos),
            ));
        }
        Ok(pos)
    }

    /// The session's checks on a header, in SPEC.md's order: ERROR, type,
    /// sequence, length. `avail` starts with the header and holds as much
    /// of the frame as has arrived. Passing means the frame is the next
    /// response, the HELLO_ACK, or the BYE_ACK.
    fn check_header(&self, h: &Header, avail: &[u8]) -> Result<(), Rejection> {
        if h.ty == codec::ERROR {
            return Err(codec::peer_error_partial(h, avail));
        }
        // The type comes before the sequence: a RESPONSE is allowed only
        // while a request is outstanding, whatever its sequence.
        if h.ty == codec::RESPONSE
            && self.phase != ClientPhase::Running
            && self.phase != ClientPhase::Done
        {
            return Err(Rejection::new(
                Reject::UnexpectedType,
                format!(
                    "RESPONSE {} {}",
                    h.seq,
                    if self.phase == ClientPhase::AwaitHelloAck {
                        "before HELLO_ACK, no request is outstanding"
                    } else {
                        "after every response, expected BYE_ACK"
                    }
                ),
            ));
        }
        match self.phase {
            ClientPhase::AwaitHelloAck => {
                if h.ty != codec::HELLO_ACK {
                    return Err(unexpected(h.ty, "HELLO_ACK"));
                }
                if h.seq != 0 {
                    return Err(Rejection::new(
                        Reject::WrongSequence,
                        format!("HELLO_ACK with sequence {}, expected 0", h.seq),
                    ));
                }
                Ok(())
            }
            ClientPhase::Running => {
                if h.ty != codec::RESPONSE {
                    return Err(unexpected(h.ty, "RESPONSE"));
                }
                // Whether a request is outstanding comes before the
                // sequence; the window is refilled between reads, so it
                // may drain within one.
                if self.expect >= self.next_send {
                    return Err(Rejection::new(
                        Reject::UnexpectedType,
                        format!(
                            "RESPONSE {} whose request {}",
                            h.seq,
                            if self.expect > self.total {
                                "does not exist, after the last response"
                            } else {
                                "was not sent yet"
                            }
                        ),
                    ));
                }
                if h.seq != self.expect {
                    return Err(Rejection::new(
                        Reject::WrongSequence,
                        format!("RESPONSE with sequence {}, expected {}", h.seq, self.expect),
                    ));
                }
                if h.len != self.w.payload_bytes {
                    return Err(Rejection::new(
                        Reject::BadLength,
                        format!(
                            "RESPONSE {} with payload_length {}, workload payload_bytes {}",
                            h.seq, h.len, self.w.payload_bytes
                        ),
                    ));
                }
                Ok(())
            }
            ClientPhase::AwaitByeAck => {
                if h.ty != codec::BYE_ACK {
                    return Err(unexpected(h.ty, "BYE_ACK"));
                }
                if h.seq != self.total + 1 {
                    return Err(Rejection::new(
                        Reject::WrongSequence,
                        format!(
                            "BYE_ACK with sequence {}, expected {}",
                            h.seq,
                            self.total + 1
                        ),
                    ));
                }
                Ok(())
            }
            ClientPhase::Done => Err(Rejection::new(
                Reject::UnexpectedType,
                format!(
                    "{} frame (type {}) after BYE_ACK",
                    codec::type_name(h.ty),
                    h.ty
                ),
            )),
        }
    }

    /// A complete HELLO_ACK or BYE_ACK whose header passed: the payload
    /// checks.
    fn complete_frame(&mut self, h: &Header, frame: &[u8]) -> Result<(), Rejection> {
        let body = &frame[codec::HEADER_BYTES..];
        if h.ty == codec::HELLO_ACK {
            if body != self.w.encode() {
                let got = Workload::decode(body);
                return Err(Rejection::new(
                    Reject::BadWorkload,
                    format!(
                        "HELLO_ACK echoes warmup={} round_trips={} payload_bytes={} max_in_flight={}, sent warmup={} round_trips={} payload_bytes={} max_in_flight={}",
                        got.warmup,
                        got.round_trips,
                        got.payload_bytes,
                        got.max_in_flight,
                        self.w.warmup,
                        self.w.round_trips,
                        self.w.payload_bytes,
                        self.w.max_in_flight
                    ),
                ));
            }
            self.phase = ClientPhase::Running;
            return Ok(());
        }
        debug_assert_eq!(h.ty, codec::BYE_ACK);
        let got = Counts::decode(body);
        let want = Counts {
            requests: self.next_send - 1,
            responses: self.expect - 1,
            bytes_sent: self.bytes_received,
            bytes_received: self.bytes_sent,
        };
        if got != want {
            return Err(count_mismatch("BYE_ACK", &got, &want));
        }
        self.phase = ClientPhase::Done;
        Ok(())
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

/// What a completed session reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub workload: Workload,
    pub totals: Totals,
    pub elapsed_ns: u64,
    /// Over the `elapsed_ns` window; None where it cannot be read.
    pub cpu: Option<CpuTimes>,
    pub latency: Histogram,
}

impl Outcome {
    /// The result line of the peer contract.
    pub fn json(&self) -> String {
        format!(
            "{{\"round_trips\":{},\"warmup_round_trips\":{},\"payload_bytes\":{},\"max_in_flight\":{},\"frames_sent\":{},\"frames_received\":{},\"bytes_sent\":{},\"bytes_received\":{},\"elapsed_ns\":{},{}\"latency\":{},\"runtime\":\"rust\"}}",
            self.workload.round_trips,
            self.workload.warmup,
            self.workload.payload_bytes,
            self.workload.max_in_flight,
            self.totals.frames_sent,
            self.totals.frames_received,
            self.totals.bytes_sent,
            self.totals.bytes_received,
            self.elapsed_ns,
            CpuTimes::json_fields(self.cpu),
            self.latency.json()
        )
    }
}

/// Runs one session with workload `w` (which must pass its check) on a
/// connected stream. On a rejection the ERROR frame has been sent (when
/// possible) and the connection closed.
pub fn run<S: Conn>(stream: &mut S, w: Workload) -> Result<Outcome, Rejection> {
    let mut client = Client::new(w);
    let mut rb = RecvBuf::new(buffer::capacity_for(codec::MAX_FRAME_BYTES));
    let window = w.max_in_flight as u64 * w.frame_bytes();
    let result = if window <= SINGLE_THREAD_WINDOW_BYTES {
        run_single(stream, &mut client, &mut rb)
    } else {
        run_threaded(stream, &mut client, &mut rb)
    };
    match result {
        Ok(window) => Ok(Outcome {
            workload: w,
            totals: client.totals(),
            elapsed_ns: window.elapsed_ns,
            cpu: CpuTimes::window(window.cpu_start, window.cpu_end, w.round_trips == 0),
            latency: client.latency.clone(),
        }),
        Err(Failure {
            rejection,
            may_write,
        }) => {
            if may_write {
                net::reject_and_close(stream, &rejection);
            } else {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
            Err(rejection)
        }
    }
}

/// The measured window of a session.
struct Window {
    elapsed_ns: u64,
    cpu_start: Option<CpuTimes>,
    cpu_end: Option<CpuTimes>,
}

struct Failure {
    rejection: Rejection,
    /// False when another thread may be writing on the stream.
    may_write: bool,
}

impl From<Rejection> for Failure {
    fn from(rejection: Rejection) -> Failure {
        Failure {
            rejection,
            may_write: true,
        }
    }
}

/// One read, then validation of every complete frame it completed.
#[inline]
fn read_and_process<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
) -> Result<(), Rejection> {
    read_then_process(stream, client, rb, |_| {})
}

/// One read; `before` runs between the read and the validation.
#[inline]
fn read_then_process<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
    before: impl FnOnce(&mut Client),
) -> Result<(), Rejection> {
    match rb.read_from(stream) {
        Ok(0) => Err(client.on_eof(rb.pending_len())),
        Ok(_) => {
            client.note_received();
            before(client);
            let n = client.process(rb.pending())?;
            rb.consume(n);
            Ok(())
        }
        Err(e) => Err(net::read_failure(&e, rb.pending_len())),
    }
}

/// Writes `data`; when the write fails, reads what the peer sent before it
/// went away, so its ERROR frame (the likely cause) is what gets reported.
fn write_checked<S: Conn>(
    stream: &mut S,
    data: &[u8],
    client: &mut Client,
    rb: &mut RecvBuf,
) -> Result<(), Rejection> {
    match stream.write_all(data) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = stream.set_read_timeout(Some(net::LINGER));
            loop {
                if let Err(r) = read_and_process(stream, client, rb) {
                    if matches!(r.kind, Reject::UnexpectedEof | Reject::Truncated) {
                        return Err(net::write_failure(&e));
                    }
                    return Err(r);
                }
            }
        }
    }
}

fn handshake<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
    out: &mut Vec<u8>,
) -> Result<(), Rejection> {
    out.clear();
    client.hello(out);
    write_checked(stream, out, client, rb)?;
    while client.phase() == ClientPhase::AwaitHelloAck {
        read_and_process(stream, client, rb)?;
    }
    Ok(())
}

fn goodbye<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
    out: &mut Vec<u8>,
) -> Result<(), Rejection> {
    out.clear();
    client.bye(out);
    write_checked(stream, out, client, rb)?;
    while client.phase() != ClientPhase::Done {
        read_and_process(stream, client, rb)?;
    }
    Ok(())
}

fn run_single<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
) -> Result<Window, Failure> {
    let mut out: Vec<u8> = Vec::with_capacity(SINGLE_THREAD_WINDOW_BYTES as usize + 64);
    handshake(stream, client, rb, &mut out)?;
    let mut start: Option<Instant> = None;
    let mut cpu_start = None;
    let end;
    loop {
        if start.is_none() && client.warmup_done() {
            client.open_measured();
            cpu_start = CpuTimes::now();
            start = Some(Instant::now());
        }
        if client.measured_done() {
            end = Instant::now();
            break;
        }
        out.clear();
        let count = client.fill(&mut out, u64::MAX);
        if count > 0 {
            client.stamp_sent(count);
            write_checked(stream, &out, client, rb)?;
        }
        read_and_process(stream, client, rb)?;
    }
    let cpu_end = CpuTimes::now();
    let elapsed_ns = end.duration_since(start.unwrap_or(end)).as_nanos() as u64;
    goodbye(stream, client, rb, &mut out)?;
    Ok(Window {
        elapsed_ns,
        cpu_start,
        cpu_end,
    })
}

struct Gate {
    acked: u64,
    abort: bool,
    writer_waiting: bool,
}

struct Shared {
    gate: Mutex<Gate>,
    cv: Condvar,
    /// The last request sequence handed to the socket (published before
    /// the write, so a response never arrives for an unknown request).
    sent: AtomicU64,
    /// Held while the writer writes.
    write_lock: Mutex<()>,
}

impl Shared {
    fn abort(&self) {
        let mut g = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        g.abort = true;
        drop(g);
        self.cv.notify_all();
    }

    fn publish_acked(&self, acked: u64) {
        let mut g = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        g.acked = acked;
        let wake = g.writer_waiting;
        g.writer_waiting = false;
        drop(g);
        if wake {
            self.cv.notify_one();
        }
    }

    /// Waits until `cond(acked)` holds; returns acked, or None on abort.
    fn wait_for(&self, cond: impl Fn(u64) -> bool) -> Option<u64> {
        let mut g = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if g.abort {
                return None;
            }
            if cond(g.acked) {
                return Some(g.acked);
            }
            g.writer_waiting = true;
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Sends every request, keeping at most M outstanding; starts the timer
/// (and reads the CPU time) once the warm-up responses are all in, right
/// before request `W + 1`.
fn writer<S: Conn>(
    mut stream: S,
    shared: Arc<Shared>,
    times: Arc<SendTimes>,
    w: Workload,
) -> Result<(Instant, Option<CpuTimes>), String> {
    let total = w.total();
    let m = w.max_in_flight as u64;
    let chunk = (WRITE_BATCH_BYTES / w.frame_bytes()).max(1);
    let mut out: Vec<u8> = Vec::with_capacity((chunk * w.frame_bytes()) as usize);
    let mut next = 1u64;
    let mut start = None;
    let mut cpu_start = None;
    let phases: &[(u64, bool)] = if w.warmup > 0 {
        &[(w.warmup, false), (total, true)][..]
    } else {
        &[(total, true)][..]
    };
    for &(limit, measured) in phases {
        if measured {
            shared
                .wait_for(|acked| acked >= w.warmup)
                .ok_or_else(|| "aborted".to_string())?;
            cpu_start = CpuTimes::now();
            start = Some(Instant::now());
        }
        while next <= limit {
            let acked = shared
                .wait_for(|acked| acked + m >= next)
                .ok_or_else(|| "aborted".to_string())?;
            let hi = limit.min(acked + m).min(next + chunk - 1);
            out.clear();
            encode_requests(&mut out, next, hi - next + 1, w.payload_bytes);
            let _g = shared.write_lock.lock().unwrap_or_else(|p| p.into_inner());
            if shared.gate.lock().map(|g| g.abort).unwrap_or(true) {
                return Err("aborted".into());
            }
            times.stamp(next, hi - next + 1, times.now());
            shared.sent.store(hi, Ordering::Release);
            stream.write_all(&out).map_err(|e| e.to_string())?;
            next = hi + 1;
        }
    }
    Ok((start.unwrap_or_else(Instant::now), cpu_start))
}

fn run_threaded<S: Conn>(
    stream: &mut S,
    client: &mut Client,
    rb: &mut RecvBuf,
) -> Result<Window, Failure> {
    let mut out: Vec<u8> = Vec::with_capacity(128);
    handshake(stream, client, rb, &mut out)?;
    let w = client.workload();
    let shared = Arc::new(Shared {
        gate: Mutex::new(Gate {
            acked: 0,
            abort: false,
            writer_waiting: false,
        }),
        cv: Condvar::new(),
        sent: AtomicU64::new(0),
        write_lock: Mutex::new(()),
    });
    let wstream = stream.try_clone().map_err(|e| net::write_failure(&e))?;
    let wshared = Arc::clone(&shared);
    let times = client.send_times();
    let handle = thread::Builder::new()
        .name("writer".into())
        .spawn(move || writer(wstream, wshared, times, w))
        .map_err(|e| {
            Rejection::new(
                Reject::UnexpectedEof,
                format!("cannot start the writer thread: {}", e),
            )
        })?;

    let mut acked = 0u64;
    let read_result = loop {
        if client.measured_done() {
            break Ok((Instant::now(), CpuTimes::now()));
        }
        // Requests the writer published before this read returned are
        // outstanding.
        let result = read_then_process(stream, client, rb, |c| {
            c.note_sent(shared.sent.load(Ordering::Acquire))
        });
        if let Err(r) = result {
            break Err(r);
        }
        let now_acked = client.expect - 1;
        if now_acked != acked {
            acked = now_acked;
            shared.publish_acked(acked);
        }
    };
    let (end, cpu_end) = match read_result {
        Ok(end) => end,
        Err(r) => {
            shared.abort();
            // Send the ERROR frame only if the writer is not mid-write.
            let may_write = match shared.write_lock.try_lock() {
                Ok(_g) => {
                    net::reject_and_close(stream, &r);
                    false
                }
                Err(_) => false,
            };
            return Err(Failure {
                rejection: r,
                may_write,
            });
        }
    };
    let (start, cpu_start) = match handle.join() {
        Ok(Ok(start)) => start,
        Ok(Err(e)) => {
            return Err(Failure {
                rejection: Rejection::new(Reject::UnexpectedEof, format!("write failed: {}", e)),
                may_write: false,
            })
        }
        Err(_) => {
            return Err(Failure {
                rejection: Rejection::new(Reject::UnexpectedEof, "writer thread failed"),
                may_write: false,
            })
        }
    };
    client.note_sent(shared.sent.load(Ordering::Acquire));
    let elapsed_ns = end.duration_since(start).as_nanos() as u64;
    goodbye(stream, client, rb, &mut out)?;
    Ok(Window {
        elapsed_ns,
        cpu_start,
        cpu_end,
    })
}
