//! The lane against every case of protocol/vectors/*.json.

mod common;

use common::{hex, unhex, vector_cases, Json};
use crossrun_lane::buffer::RecvBuf;
use crossrun_lane::client::{encode_requests, Client, ClientPhase};
use crossrun_lane::codec::{self, Counts, Header, Totals, Workload};
use crossrun_lane::cpu::CpuTimes;
use crossrun_lane::histogram::{self, Histogram};
use crossrun_lane::payload;
use crossrun_lane::reject::{Reject, Rejection};
use crossrun_lane::server::{Server, ServerOutcome, ServerState};

fn workload(j: &Json) -> Workload {
    Workload {
        warmup: j.at("warmup").u64(),
        round_trips: j.at("round_trips").u64(),
        payload_bytes: j.at("payload_bytes").u64() as u32,
        max_in_flight: j.at("max_in_flight").u64() as u32,
    }
}

fn counts(j: &Json) -> Counts {
    Counts {
        requests: j.at("requests").u64(),
        responses: j.at("responses").u64(),
        bytes_sent: j.at("bytes_sent").u64(),
        bytes_received: j.at("bytes_received").u64(),
    }
}

fn response_frame(seq: u64, p: u32) -> Vec<u8> {
    let mut f = vec![0u8; 16 + p as usize];
    Header::new(codec::RESPONSE, p, seq).encode(&mut f);
    payload::fill_response(&mut f[16..], seq);
    f
}

/// Delivery patterns: all at once, then pieces of these sizes.
const CHUNKS: [usize; 5] = [usize::MAX, 1, 3, 7, 64];

fn pieces(data: &[u8], chunk: usize) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    data.chunks(chunk.min(data.len())).collect()
}

/// What a client does between frames in a live session: open the
/// measured phase once the warm-up is in, send BYE once every response is
/// in, else refill the window.
fn advance(client: &mut Client, out: &mut Vec<u8>) {
    if client.warmup_done() {
        client.open_measured();
    }
    if client.phase() == ClientPhase::Running && client.measured_done() {
        client.bye(out);
    } else {
        client.fill(out, u64::MAX);
    }
}

/// How many pending bytes to hand the client at once: no more than the
/// first frame, so the window is refilled between frames as in a session
/// where every response arrives by itself.
fn first_frame_limit(pending: &[u8]) -> usize {
    if pending.len() >= 16 {
        let h = Header::decode(pending);
        pending.len().min(16 + h.len as usize)
    } else {
        pending.len()
    }
}

/// Hands the client every complete frame in `rb`, one at a time.
fn feed_client(client: &mut Client, rb: &mut RecvBuf, out: &mut Vec<u8>) -> Result<(), Rejection> {
    loop {
        let pending = rb.pending();
        let lim = first_frame_limit(pending);
        let n = client.process(&pending[..lim])?;
        rb.consume(n);
        if n == 0 {
            return Ok(());
        }
        advance(client, out);
    }
}

/// Hands the server every complete frame in `rb`; answers go to `out`.
fn feed_server(server: &mut Server, rb: &mut RecvBuf, out: &mut Vec<u8>) -> Result<(), Rejection> {
    let (n, result) = server.process(rb.pending_mut());
    out.extend_from_slice(&rb.pending()[..n]);
    rb.consume(n);
    result
}

fn new_buf() -> RecvBuf {
    RecvBuf::new(crossrun_lane::buffer::capacity_for(codec::MAX_FRAME_BYTES))
}

/// A whole session between the two state machines, in memory: returns
/// both byte streams and the client's totals.
fn simulate(w: Workload) -> (Vec<u8>, Vec<u8>, Totals) {
    let (c_all, s_all, totals, _) = simulate_both(w);
    (c_all, s_all, totals)
}

/// The same, with the server's counts too.
fn simulate_both(w: Workload) -> (Vec<u8>, Vec<u8>, Totals, Counts) {
    let mut client = Client::new(w);
    let mut server = Server::new();
    let (mut crb, mut srb) = (new_buf(), new_buf());
    let (mut c_all, mut s_all) = (Vec::new(), Vec::new());
    let mut c_out = Vec::new();
    client.hello(&mut c_out);
    loop {
        if !c_out.is_empty() {
            c_all.extend_from_slice(&c_out);
            srb.push(&c_out);
            c_out.clear();
            let mut s_out = Vec::new();
            feed_server(&mut server, &mut srb, &mut s_out).unwrap();
            s_all.extend_from_slice(&s_out);
            crb.push(&s_out);
        }
        feed_client(&mut client, &mut crb, &mut c_out).unwrap();
        if client.phase() == ClientPhase::Done {
            break;
        }
        assert!(!c_out.is_empty(), "session stalled");
    }
    assert_eq!(server.state(), ServerState::AfterByeAck);
    server.on_eof(0).unwrap();
    assert_eq!(client.latency().count(), w.round_trips, "{:?}", w);
    (c_all, s_all, client.totals(), server.counts())
}

#[test]
fn payloads() {
    let cases = vector_cases("payloads.json");
    for c in &cases {
        let seq = c.at("sequence").u64();
        let len = c.at("length").u64() as usize;
        let want = c.at("payload").hex();
        let want_resp = c.at("response").hex();
        let mut got = vec![0u8; len];
        payload::fill(&mut got, seq);
        assert_eq!(hex(&got), hex(&want), "gen({}, {})", seq, len);
        assert!(payload::check(&want, seq));
        assert!(payload::check_response(&want_resp, seq));
        let mut r = vec![0u8; len];
        payload::fill_response(&mut r, seq);
        assert_eq!(r, want_resp, "respond(gen({}, {}))", seq, len);
        payload::respond(&mut r, &want);
        assert_eq!(r, want_resp);
        let mut inplace = want.clone();
        assert!(payload::check_and_respond(&mut inplace, seq));
        assert_eq!(inplace, want_resp);
        if len > 0 {
            let mut bad = want.clone();
            bad[len - 1] ^= 0x80;
            assert!(!payload::check(&bad, seq));
        }
    }
    assert!(cases.len() >= 300, "only {} payload cases", cases.len());
}

#[test]
fn frames() {
    for c in &vector_cases("frames.json") {
        let name = c.at("name").str();
        let ty = c.at("type").u64() as u8;
        let seq = c.at("sequence").u64();
        let plen = c.at("payload_length").u64() as u32;
        let payload_bytes = c.at("payload").hex();
        let frame = c.at("frame").hex();
        assert_eq!(codec::type_name(ty), c.at("type_name").str(), "{}", name);

        // Encode from the fields.
        let mut enc = Vec::new();
        match ty {
            codec::HELLO | codec::HELLO_ACK => {
                codec::encode_frame(&mut enc, ty, seq, &workload(c.at("workload")).encode())
            }
            codec::REQUEST => encode_requests(&mut enc, seq, 1, plen),
            codec::RESPONSE => enc = response_frame(seq, plen),
            codec::BYE | codec::BYE_ACK => {
                codec::encode_frame(&mut enc, ty, seq, &counts(c.at("counts")).encode())
            }
            codec::ERROR => {
                codec::encode_error(&mut enc, c.at("code").u64() as u16, c.at("reason").str())
            }
            _ => panic!("{}: type {}", name, ty),
        }
        assert_eq!(hex(&enc), hex(&frame), "{}: encoding", name);

        // Decode and compare every field.
        let h = codec::peek_header(&frame)
            .unwrap_or_else(|r| panic!("{}: {}", name, r))
            .expect("header");
        assert_eq!(h.version as u64, c.at("version").u64(), "{}", name);
        assert_eq!(h.flags as u64, c.at("flags").u64(), "{}", name);
        assert_eq!((h.ty, h.len, h.seq), (ty, plen, seq), "{}", name);
        assert_eq!(h.frame_bytes(), frame.len(), "{}", name);
        let body = &frame[16..];
        assert_eq!(body, &payload_bytes[..], "{}", name);
        match ty {
            codec::HELLO | codec::HELLO_ACK => {
                assert_eq!(
                    Workload::decode(body),
                    workload(c.at("workload")),
                    "{}",
                    name
                )
            }
            codec::REQUEST => assert!(payload::check(body, seq), "{}", name),
            codec::RESPONSE => assert!(payload::check_response(body, seq), "{}", name),
            codec::BYE | codec::BYE_ACK => {
                assert_eq!(Counts::decode(body), counts(c.at("counts")), "{}", name);
                // The counts that close a session of `session`, modulo 2^64.
                if let Some(s) = c.get("session") {
                    assert_eq!(
                        workload(s).expected_counts(ty == codec::BYE_ACK),
                        counts(c.at("counts")),
                        "{}: the session's counts",
                        name
                    );
                }
            }
            _ => {
                let (code, reason) = codec::decode_error(body);
                assert_eq!(code as u64, c.at("code").u64(), "{}", name);
                assert_eq!(reason, c.at("reason").str(), "{}", name);
                assert_eq!(codec::peer_error(body).kind, Reject::PeerError);
            }
        }
    }
}

#[test]
fn sessions() {
    for c in &vector_cases("sessions.json") {
        let name = c.at("name").str();
        let w = workload(c.at("workload"));
        let client_bytes = c.at("client_bytes").hex();
        let server_bytes = c.at("server_bytes").hex();
        let r = c.at("result");
        let want = Totals {
            frames_sent: r.at("frames_sent").u64(),
            frames_received: r.at("frames_received").u64(),
            bytes_sent: r.at("bytes_sent").u64(),
            bytes_received: r.at("bytes_received").u64(),
        };
        assert_eq!(
            w.expected_totals(),
            want,
            "{}: totals from the workload",
            name
        );

        // Both streams re-encoded by the two state machines.
        let (cb, sb, totals) = simulate(w);
        assert_eq!(hex(&cb), hex(&client_bytes), "{}: client bytes", name);
        assert_eq!(hex(&sb), hex(&server_bytes), "{}: server bytes", name);
        assert_eq!(totals, want, "{}: simulated totals", name);

        for chunk in CHUNKS {
            // client_bytes into a server: it answers with server_bytes and
            // ends cleanly.
            let mut server = Server::new();
            let mut rb = new_buf();
            let mut out = Vec::new();
            for piece in pieces(&client_bytes, chunk) {
                rb.push(piece);
                feed_server(&mut server, &mut rb, &mut out)
                    .unwrap_or_else(|e| panic!("{} chunk {}: server: {}", name, chunk, e));
            }
            server
                .on_eof(rb.pending_len())
                .unwrap_or_else(|e| panic!("{} chunk {}: server eof: {}", name, chunk, e));
            assert_eq!(hex(&out), hex(&server_bytes), "{} chunk {}", name, chunk);
            // Its own counts, now with the BYE_ACK sent.
            let ack = w.expected_counts(true);
            assert_eq!(
                server.counts(),
                Counts {
                    bytes_sent: ack.bytes_sent + 48,
                    ..ack
                },
                "{} chunk {}: server counts",
                name,
                chunk
            );

            // server_bytes into a client: it sends client_bytes, accepts
            // every frame and reports the expected totals.
            let mut client = Client::new(w);
            let mut rb = new_buf();
            let mut out = Vec::new();
            client.hello(&mut out);
            advance(&mut client, &mut out);
            for piece in pieces(&server_bytes, chunk) {
                rb.push(piece);
                feed_client(&mut client, &mut rb, &mut out)
                    .unwrap_or_else(|e| panic!("{} chunk {}: client: {}", name, chunk, e));
            }
            assert_eq!(
                client.phase(),
                ClientPhase::Done,
                "{} chunk {}",
                name,
                chunk
            );
            assert_eq!(rb.pending_len(), 0);
            assert_eq!(hex(&out), hex(&client_bytes), "{} chunk {}", name, chunk);
            assert_eq!(client.totals(), want, "{} chunk {}", name, chunk);
        }
    }
}

/// A bare frame parser: header checks and end of stream inside a frame.
fn bare_parse(input: &[u8], chunk: usize, eof: bool) -> Result<(), Rejection> {
    let mut rb = new_buf();
    for piece in pieces(input, chunk) {
        rb.push(piece);
        loop {
            match codec::peek_header(rb.pending())? {
                Some(h) if rb.pending_len() >= h.frame_bytes() => rb.consume(h.frame_bytes()),
                _ => break,
            }
        }
    }
    if eof {
        codec::eof_check(rb.pending_len())?;
    }
    Ok(())
}

/// A server that has received HELLO and REQUEST 1 .. seq-1.
fn server_expecting_request(w: Workload, seq: u64) -> Server {
    let mut server = Server::new();
    let mut rb = new_buf();
    let mut input = Vec::new();
    codec::encode_frame(&mut input, codec::HELLO, 0, &w.encode());
    encode_requests(&mut input, 1, seq - 1, w.payload_bytes);
    rb.push(&input);
    let mut out = Vec::new();
    feed_server(&mut server, &mut rb, &mut out).unwrap();
    assert_eq!(out.len(), input.len());
    server
}

/// A client after HELLO_ACK and RESPONSE 1 .. seq-1 (its window refilled).
fn client_expecting_response(w: Workload, seq: u64) -> Client {
    let mut client = Client::new(w);
    let mut out = Vec::new();
    client.hello(&mut out);
    let mut ack = Vec::new();
    codec::encode_frame(&mut ack, codec::HELLO_ACK, 0, &w.encode());
    assert_eq!(client.process(&ack).unwrap(), ack.len());
    advance(&mut client, &mut out);
    for s in 1..seq {
        let f = response_frame(s, w.payload_bytes);
        assert_eq!(client.process(&f).unwrap(), f.len());
        advance(&mut client, &mut out);
    }
    client
}

enum Receiver {
    Server(Server),
    Client(Client),
}

/// A server that has received every request and a correct BYE, and
/// answered BYE_ACK.
fn server_after_bye(w: Workload) -> Server {
    let mut server = server_expecting_request(w, w.total() + 1);
    let mut rb = new_buf();
    let mut bye = Vec::new();
    codec::encode_frame(
        &mut bye,
        codec::BYE,
        w.total() + 1,
        &w.expected_counts(false).encode(),
    );
    rb.push(&bye);
    feed_server(&mut server, &mut rb, &mut Vec::new()).unwrap();
    assert_eq!(server.state(), ServerState::AfterByeAck);
    server
}

fn replay(case: &Json, chunk: usize) -> Result<(), Rejection> {
    let state = case.at("state").str();
    let w = case.get("workload").map(workload);
    let seq = case.get("sequence").map(|s| s.u64());
    let input = case.at("input").hex();
    let eof = case.at("eof").bool();
    if state == "any" {
        return bare_parse(&input, chunk, eof);
    }
    if one_read(case) {
        return replay_one_read(state, w, seq, &input, eof);
    }
    replay_in(state, w, seq, &input, chunk, eof)
}

/// Whether the case holds only when its input arrives in one read: the
/// window is refilled, and the session ends after BYE_ACK, between reads.
fn one_read(case: &Json) -> bool {
    case.get("one_read").is_some_and(|v| v.bool())
}

/// `input` as one read, processed whole as a live client processes a read
/// (no refill between its frames).
fn replay_one_read(
    state: &str,
    w: Option<Workload>,
    seq: Option<u64>,
    input: &[u8],
    eof: bool,
) -> Result<(), Rejection> {
    let w = w.unwrap();
    let mut client = match state {
        "client_expecting_response" => client_expecting_response(w, seq.unwrap()),
        "client_expecting_bye_ack" => client_expecting_response(w, w.total() + 1),
        other => panic!("one_read case in state {:?}", other),
    };
    let n = client.process(input)?;
    if eof {
        return Err(client.on_eof(input.len() - n));
    }
    Ok(())
}

/// `input` (then the end of stream when `eof`) to a receiver in `state`.
fn replay_in(
    state: &str,
    w: Option<Workload>,
    seq: Option<u64>,
    input: &[u8],
    chunk: usize,
    eof: bool,
) -> Result<(), Rejection> {
    let mut receiver = match state {
        "server_expecting_hello" => Receiver::Server(Server::new()),
        "server_expecting_request" => {
            Receiver::Server(server_expecting_request(w.unwrap(), seq.unwrap()))
        }
        "server_after_bye" => Receiver::Server(server_after_bye(w.unwrap())),
        "client_expecting_hello_ack" => {
            let mut client = Client::new(w.unwrap());
            client.hello(&mut Vec::new());
            Receiver::Client(client)
        }
        "client_expecting_response" => {
            Receiver::Client(client_expecting_response(w.unwrap(), seq.unwrap()))
        }
        "client_expecting_bye_ack" => {
            let w = w.unwrap();
            let client = client_expecting_response(w, w.total() + 1);
            assert_eq!(client.phase(), ClientPhase::AwaitByeAck);
            Receiver::Client(client)
        }
        other => panic!("unknown state {:?}", other),
    };
    let mut rb = new_buf();
    let mut out = Vec::new();
    for piece in pieces(input, chunk) {
        rb.push(piece);
        match &mut receiver {
            Receiver::Server(s) => feed_server(s, &mut rb, &mut out)?,
            Receiver::Client(c) => feed_client(c, &mut rb, &mut out)?,
        }
    }
    if eof {
        match &receiver {
            Receiver::Server(s) => s.on_eof(rb.pending_len())?,
            Receiver::Client(c) => return Err(c.on_eof(rb.pending_len())),
        }
    }
    Ok(())
}

const SESSION_STATES: [&str; 6] = [
    "server_expecting_hello",
    "server_expecting_request",
    "server_after_bye",
    "client_expecting_hello_ack",
    "client_expecting_response",
    "client_expecting_bye_ack",
];

#[test]
fn invalid() {
    let cases = vector_cases("invalid.json");
    let mut seen = std::collections::HashSet::new();
    for c in &cases {
        let name = c.at("name").str();
        let want = Reject::from_name(c.at("rejection").str())
            .unwrap_or_else(|| panic!("{}: unknown rejection name", name));
        seen.insert(want);
        // A header check comes first: an `any` case other than a cut is
        // rejected the same way in every session state.
        if c.at("state").str() == "any" && want != Reject::Truncated {
            let w = Workload {
                warmup: 2,
                round_trips: 3,
                payload_bytes: 5,
                max_in_flight: 2,
            };
            let input = c.at("input").hex();
            for state in SESSION_STATES {
                let r = replay_in(
                    state,
                    Some(w),
                    Some(2),
                    &input,
                    usize::MAX,
                    c.at("eof").bool(),
                );
                assert_eq!(r.map_err(|r| r.kind), Err(want), "{} in {}", name, state);
            }
        }
        let chunks: &[usize] = if one_read(c) { &CHUNKS[..1] } else { &CHUNKS };
        for &chunk in chunks {
            match replay(c, chunk) {
                Ok(()) => panic!(
                    "{} ({}), chunk {}: accepted, expected {}",
                    name,
                    c.at("description").str(),
                    chunk,
                    want.name()
                ),
                Err(r) => {
                    assert_eq!(
                        r.kind,
                        want,
                        "{} ({}), chunk {}: got {}",
                        name,
                        c.at("description").str(),
                        chunk,
                        r
                    );
                    // The one stderr line: a peer's reason with newlines,
                    // controls or invalid UTF-8 must not break it.
                    let line = r.to_string();
                    assert!(
                        !line.chars().any(|ch| ch < ' ' || ch == '\u{7f}'),
                        "{}: {:?}",
                        name,
                        line
                    );
                }
            }
        }
    }
    assert_eq!(
        seen.len(),
        Reject::ALL.len(),
        "every rejection name is covered"
    );
}

#[test]
fn frames_after_bye_are_rejected() {
    let w = Workload {
        warmup: 0,
        round_trips: 1,
        payload_bytes: 4,
        max_in_flight: 1,
    };
    let (client_bytes, server_bytes, _) = simulate(w);
    let mut request = Vec::new();
    encode_requests(&mut request, 2, 1, w.payload_bytes);
    let mut error = Vec::new();
    codec::encode_error(&mut error, 3, "late");
    for chunk in CHUNKS {
        // A whole frame after the BYE, in the same read or later.
        for (extra, want) in [
            (&request[..], Reject::UnexpectedType),
            (&error[..], Reject::PeerError),
        ] {
            let mut server = Server::new();
            let mut rb = new_buf();
            let mut out = Vec::new();
            let input = [&client_bytes[..], extra].concat();
            let mut got = Ok(());
            for piece in pieces(&input, chunk) {
                rb.push(piece);
                got = feed_server(&mut server, &mut rb, &mut out);
                if got.is_err() {
                    break;
                }
            }
            assert_eq!(got.unwrap_err().kind, want, "chunk {}", chunk);
            // The BYE itself was answered.
            assert_eq!(out, server_bytes, "chunk {}", chunk);
        }
        // A partial frame after the BYE, then end of stream: truncated.
        let mut server = Server::new();
        let mut rb = new_buf();
        let mut out = Vec::new();
        let input = [&client_bytes[..], &request[..5]].concat();
        for piece in pieces(&input, chunk) {
            rb.push(piece);
            feed_server(&mut server, &mut rb, &mut out).unwrap();
        }
        assert_eq!(out, server_bytes);
        let r = server.on_eof(rb.pending_len()).unwrap_err();
        assert_eq!(r.kind, Reject::Truncated, "chunk {}", chunk);
    }

    // A client that has its BYE_ACK rejects a whole frame after it.
    let (_, server_bytes, _) = simulate(w);
    let mut response = Vec::new();
    response.extend_from_slice(&response_frame(2, w.payload_bytes));
    let mut client = Client::new(w);
    let mut rb = new_buf();
    let mut out = Vec::new();
    client.hello(&mut out);
    advance(&mut client, &mut out);
    rb.push(&server_bytes);
    feed_client(&mut client, &mut rb, &mut out).unwrap();
    assert_eq!(client.phase(), ClientPhase::Done);
    rb.push(&response);
    let r = feed_client(&mut client, &mut rb, &mut out).unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType);
}

#[test]
fn early_bye_is_unexpected() {
    let w = Workload {
        warmup: 1,
        round_trips: 2,
        payload_bytes: 8,
        max_in_flight: 2,
    };
    let mut server = server_expecting_request(w, 2);
    let mut rb = new_buf();
    let mut bye = Vec::new();
    codec::encode_frame(&mut bye, codec::BYE, 4, &w.expected_counts(false).encode());
    rb.push(&bye);
    let r = feed_server(&mut server, &mut rb, &mut Vec::new()).unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType);
}

#[test]
fn large_payload_sessions_in_memory() {
    for (w, n, p, m) in [
        (0u64, 3u64, 1_048_576u32, 2u32),
        (2, 5, 100_000, 3),
        (1, 50, 7, 65_536),
    ] {
        let wl = Workload {
            warmup: w,
            round_trips: n,
            payload_bytes: p,
            max_in_flight: m,
        };
        let (cb, sb, totals) = simulate(wl);
        assert_eq!(totals, wl.expected_totals());
        assert_eq!(cb.len() as u64, totals.bytes_sent);
        assert_eq!(sb.len() as u64, totals.bytes_received);
    }
}

/// A histogram as histogram.json writes it: null or a decimal string.
fn opt_u64(j: &Json) -> Option<u64> {
    match j {
        Json::Null => None,
        v => Some(v.u64()),
    }
}

fn assert_histogram(h: &Histogram, want: &Json, what: &str) {
    assert_eq!(h.count(), want.at("count").u64(), "{}: count", what);
    assert_eq!(h.min(), opt_u64(want.at("min")), "{}: min", what);
    assert_eq!(h.max(), opt_u64(want.at("max")), "{}: max", what);
    let buckets: Vec<(usize, u64)> = want
        .at("buckets")
        .arr()
        .iter()
        .map(|b| (b.arr()[0].u64() as usize, b.arr()[1].u64()))
        .collect();
    assert_eq!(
        h.buckets().collect::<Vec<_>>(),
        buckets,
        "{}: buckets",
        what
    );
    for (key, q) in [
        ("p50", histogram::P50),
        ("p90", histogram::P90),
        ("p99", histogram::P99),
        ("p99_9", histogram::P99_9),
    ] {
        assert_eq!(h.percentile(q), opt_u64(want.at(key)), "{}: {}", what, key);
    }
}

fn histogram_of(values: &Json) -> Histogram {
    let mut h = Histogram::new();
    for v in values.arr() {
        h.record(v.u64());
    }
    h
}

/// SPEC.md section 7: the bucket of chosen values, and histograms, their
/// merge and their percentiles.
#[test]
fn histograms() {
    let cases = vector_cases("histogram.json");
    let (mut buckets, mut histograms) = (0, 0);
    for c in &cases {
        match c.at("kind").str() {
            "bucket" => {
                let v = c.at("value").u64();
                let i = c.at("index").u64() as usize;
                assert_eq!(histogram::index(v), i, "index({})", v);
                assert_eq!(histogram::lower(i), c.at("lower").u64(), "lower({})", i);
                assert_eq!(histogram::width(i), c.at("width").u64(), "width({})", i);
                buckets += 1;
            }
            "histogram" => {
                let name = c.at("name").str();
                let a = histogram_of(c.at("a_values"));
                let b = histogram_of(c.at("b_values"));
                assert_histogram(&a, c.at("a"), &format!("{}: a", name));
                assert_histogram(&b, c.at("b"), &format!("{}: b", name));
                let mut merged = a.clone();
                merged.merge(&b);
                assert_histogram(&merged, c.at("merged"), &format!("{}: merged", name));
                let mut both = a;
                for v in c.at("b_values").arr() {
                    both.record(v.u64());
                }
                assert_eq!(both, merged, "{}: merge is recording both", name);
                histograms += 1;
            }
            other => panic!("unknown kind {:?}", other),
        }
    }
    assert!(buckets > 0 && histograms > 0);
}

/// Only measured round trips are recorded, each from the time its request
/// was stamped to the time the read that completed its response was.
#[test]
fn latency_of_the_measured_round_trips() {
    let w = Workload {
        warmup: 2,
        round_trips: 3,
        payload_bytes: 8,
        max_in_flight: 1,
    };
    let mut client = Client::new(w);
    let mut out = Vec::new();
    client.hello(&mut out);
    let mut ack = Vec::new();
    codec::encode_frame(&mut ack, codec::HELLO_ACK, 0, &w.encode());
    client.process(&ack).unwrap();
    let times = client.send_times();
    for seq in 1..=5u64 {
        if client.warmup_done() {
            client.open_measured();
        }
        out.clear();
        assert_eq!(client.fill(&mut out, u64::MAX), 1);
        times.stamp(seq, 1, 1000 * seq);
        client.set_received_at(1000 * seq + 100 * seq);
        let r = response_frame(seq, 8);
        assert_eq!(client.process(&r).unwrap(), r.len());
    }
    assert!(client.measured_done());
    let h = client.latency();
    assert_eq!(h.count(), 3);
    assert_eq!((h.min(), h.max()), (Some(300), Some(500)));
    assert_eq!(
        h.buckets().collect::<Vec<_>>(),
        vec![
            (histogram::index(300), 1),
            (histogram::index(400), 1),
            (histogram::index(500), 1)
        ]
    );
}

/// The server's result line (lanes/README.md): its counts mirror the
/// client's.
#[test]
fn server_result_line() {
    let w = Workload {
        warmup: 3,
        round_trips: 20,
        payload_bytes: 10,
        max_in_flight: 4,
    };
    let (_, _, t, counts) = simulate_both(w);
    let cpu = Some(CpuTimes {
        user_us: 12,
        system_us: 34,
    });
    let line = ServerOutcome {
        workload: w,
        counts,
        cpu,
    }
    .json();
    let j = Json::parse(&line).unwrap();
    for (key, want) in [
        ("round_trips", 20),
        ("warmup_round_trips", 3),
        ("payload_bytes", 10),
        ("max_in_flight", 4),
        ("frames_sent", t.frames_received),
        ("frames_received", t.frames_sent),
        ("bytes_sent", t.bytes_received),
        ("bytes_received", t.bytes_sent),
        ("cpu_user_us", 12),
        ("cpu_system_us", 34),
    ] {
        assert_eq!(j.at(key).u64(), want, "{}: {}", key, line);
    }
    assert_eq!(j.at("runtime").str(), "rust");
    let unreported = ServerOutcome {
        workload: w,
        counts,
        cpu: None,
    }
    .json();
    assert!(!unreported.contains("cpu_"), "{}", unreported);
}

#[test]
fn json_reader() {
    let v = Json::parse(
        r#" {"a": [1, "18446744073709551615", true, null, {}], "b\u00e9\n": "x\"\\\/\ud83d\ude00", "c": -1.5e3 } "#,
    )
    .unwrap();
    assert_eq!(v.at("a").arr()[0].u64(), 1);
    assert_eq!(v.at("a").arr()[1].u64(), u64::MAX);
    assert!(v.at("a").arr()[2].bool());
    assert_eq!(v.at("a").arr()[3], Json::Null);
    assert_eq!(v.at("b\u{e9}\n").str(), "x\"\\/\u{1F600}");
    assert_eq!(v.at("c"), &Json::Num("-1.5e3".into()));
    assert!(Json::parse("[1,]").is_err());
    assert!(Json::parse("{\"a\" 1}").is_err());
    assert!(Json::parse("[1] x").is_err());
    assert_eq!(unhex("00ff7a"), vec![0, 255, 0x7a]);
    assert_eq!(hex(&[0, 255, 0x7a]), "00ff7a");
}

/// SPEC.md section 3: the session's checks on type, sequence and length
/// are made from the 16 header bytes, before the payload arrives.
#[test]
fn session_checks_at_the_header() {
    let w = Workload {
        warmup: 1,
        round_trips: 3,
        payload_bytes: 100,
        max_in_flight: 2,
    };
    let header = |ty: u8, len: u32, seq: u64| {
        let mut b = vec![0u8; 16];
        Header::new(ty, len, seq).encode(&mut b);
        b
    };
    let server_case = |seq: u64, input: Vec<u8>| {
        let mut server = server_expecting_request(w, seq);
        let mut rb = new_buf();
        rb.push(&input);
        feed_server(&mut server, &mut rb, &mut Vec::new())
            .map_err(|r| r.kind)
            .err()
    };
    assert_eq!(
        server_case(2, header(codec::REQUEST, 100, 3)),
        Some(Reject::WrongSequence)
    );
    assert_eq!(
        server_case(2, header(codec::REQUEST, 99, 2)),
        Some(Reject::BadLength)
    );
    // After W + N requests only BYE: the type before the sequence.
    assert_eq!(
        server_case(5, header(codec::REQUEST, 100, 5)),
        Some(Reject::UnexpectedType)
    );
    assert_eq!(
        server_case(3, header(codec::BYE, 32, 5)),
        Some(Reject::UnexpectedType)
    );
    assert_eq!(
        server_case(5, header(codec::BYE, 32, 4)),
        Some(Reject::WrongSequence)
    );
    assert_eq!(
        server_case(2, header(codec::ERROR, 30, 9)),
        Some(Reject::PeerError)
    );
    assert_eq!(server_case(2, header(codec::REQUEST, 100, 2)), None);
    assert_eq!(
        server_case(1, header(codec::HELLO, 24, 0)),
        Some(Reject::UnexpectedType)
    );

    // A frame after BYE is rejected from its header; a partial header
    // then end of stream is truncated.
    let (client_bytes, _, _) = simulate(w);
    let mut server = Server::new();
    let mut rb = new_buf();
    rb.push(&client_bytes);
    feed_server(&mut server, &mut rb, &mut Vec::new()).unwrap();
    rb.push(&header(codec::REQUEST, 100, 5));
    let r = feed_server(&mut server, &mut rb, &mut Vec::new()).unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType);

    // The client: whether a request is outstanding first, then the
    // sequence.
    let w = Workload { warmup: 0, ..w };
    let client_case = |seq: u64, input: Vec<u8>| {
        let mut client = client_expecting_response(w, seq);
        client.process(&input).map_err(|r| r.kind).err()
    };
    // Requests 1 and 2 are outstanding; 3 is not sent yet.
    assert_eq!(
        client_case(1, header(codec::RESPONSE, 100, 2)),
        Some(Reject::WrongSequence)
    );
    assert_eq!(
        client_case(1, header(codec::RESPONSE, 100, 3)),
        Some(Reject::WrongSequence)
    );
    assert_eq!(
        client_case(1, header(codec::RESPONSE, 99, 1)),
        Some(Reject::BadLength)
    );
    assert_eq!(client_case(1, header(codec::RESPONSE, 100, 1)), None);
    let mut client = client_expecting_response(w, 1);
    let mut both = response_frame(1, 100);
    both.extend_from_slice(&response_frame(2, 100));
    both.extend_from_slice(&header(codec::RESPONSE, 100, 3));
    let r = client.process(&both).unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
    let mut client = client_expecting_response(w, 1);
    let mut both = response_frame(1, 100);
    both.extend_from_slice(&response_frame(2, 100));
    both.extend_from_slice(&header(codec::RESPONSE, 100, 4));
    let r = client.process(&both).unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
    assert_eq!(
        client_case(2, header(codec::ERROR, 2, 0)),
        Some(Reject::PeerError)
    );

    // Before HELLO_ACK and after the last response no request is
    // outstanding: any RESPONSE is a type not allowed, whatever its
    // sequence.
    let mut client = Client::new(w);
    client.hello(&mut Vec::new());
    let r = client
        .process(&header(codec::RESPONSE, 100, 3))
        .unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
    let r = client
        .process(&header(codec::RESPONSE, 100, 1))
        .unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
    let client_done = || client_expecting_response(w, w.total() + 1);
    assert_eq!(client_done().phase(), ClientPhase::AwaitByeAck);
    let r = client_done()
        .process(&header(codec::RESPONSE, 100, w.total()))
        .unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
    let r = client_done()
        .process(&header(codec::RESPONSE, 100, w.total() + 1))
        .unwrap_err();
    assert_eq!(r.kind, Reject::UnexpectedType, "{}", r);
}
