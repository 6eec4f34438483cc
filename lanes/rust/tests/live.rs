//! The built `client` and `server` programs over loopback TCP: sessions
//! between them, each against a raw socket that breaks the protocol, and
//! the command lines.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

mod common;

use common::{finish, Finished, Json};
use crossrun_lane::client::encode_requests;
use crossrun_lane::codec::{self, Counts, Header, Workload};
use crossrun_lane::histogram;
use crossrun_lane::payload;

const SERVER: &str = env!("CARGO_BIN_EXE_server");
const CLIENT: &str = env!("CARGO_BIN_EXE_client");

/// Starts the server; returns it, its stdout after the READY line, and the port.
fn start_server() -> (Child, BufReader<ChildStdout>, u16) {
    start_server_on("127.0.0.1:0")
}

/// The same on `listen` (`[::1]:0` for IPv6).
fn start_server_on(listen: &str) -> (Child, BufReader<ChildStdout>, u16) {
    let mut child = Command::new(SERVER)
        .args(["--listen", listen])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn server");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let port = line
        .strip_prefix("READY ")
        .and_then(|p| p.trim_end_matches('\n').parse::<u16>().ok())
        .unwrap_or_else(|| panic!("bad READY line {:?}", line));
    (child, reader, port)
}

fn finish_server(child: Child, reader: BufReader<ChildStdout>) -> Finished {
    let mut f = finish(child, None);
    let mut rest = String::new();
    let mut r = reader;
    r.read_to_string(&mut rest).unwrap();
    f.stdout = rest;
    f
}

fn spawn_client(port: u16, w: u64, n: u64, p: u32, m: u32) -> Child {
    spawn_client_to(&format!("127.0.0.1:{}", port), w, n, p, m)
}

/// The same against `connect` (`[::1]:PORT` for IPv6).
fn spawn_client_to(connect: &str, w: u64, n: u64, p: u32, m: u32) -> Child {
    Command::new(CLIENT)
        .args([
            "--connect",
            connect,
            "--warmup",
            &w.to_string(),
            "--round-trips",
            &n.to_string(),
            "--payload-bytes",
            &p.to_string(),
            "--max-in-flight",
            &m.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn client")
}

/// The integer field `key` of a one-line JSON object.
fn field(json: &str, key: &str) -> u64 {
    let pat = format!("\"{}\":", key);
    let at = json
        .find(&pat)
        .unwrap_or_else(|| panic!("no {} in {}", key, json))
        + pat.len();
    json[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("bad {} in {}", key, json))
}

fn session(w: u64, n: u64, p: u32, m: u32) {
    let (server, reader, port) = start_server();
    let client = finish(spawn_client(port, w, n, p, m), None);
    let server = finish_server(server, reader);
    let what = format!("w={} n={} p={} m={}", w, n, p, m);
    assert!(
        client.status.success(),
        "{}: client {:?}: {}",
        what,
        client.status,
        client.stderr
    );
    assert!(
        server.status.success(),
        "{}: server {:?}: {}",
        what,
        server.status,
        server.stderr
    );
    assert_eq!(client.stderr, "", "{}", what);
    assert_eq!(server.stderr, "", "{}", what);
    let lines: Vec<&str> = client.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}: {:?}", what, client.stdout);
    let j = lines[0];
    assert!(j.starts_with('{') && j.ends_with('}'), "{}", j);
    assert!(j.contains("\"runtime\":\"rust\""), "{}", j);
    let wl = Workload {
        warmup: w,
        round_trips: n,
        payload_bytes: p,
        max_in_flight: m,
    };
    let t = wl.expected_totals();
    assert_eq!(field(j, "round_trips"), n);
    assert_eq!(field(j, "warmup_round_trips"), w);
    assert_eq!(field(j, "payload_bytes"), p as u64);
    assert_eq!(field(j, "max_in_flight"), m as u64);
    assert_eq!(field(j, "frames_sent"), t.frames_sent);
    assert_eq!(field(j, "frames_received"), t.frames_received);
    assert_eq!(field(j, "bytes_sent"), t.bytes_sent);
    assert_eq!(field(j, "bytes_received"), t.bytes_received);
    assert!(field(j, "elapsed_ns") > 0);
    check_cost(j, n);
    check_server_line(&server.stdout, &wl, j);
}

/// After READY, the server's stdout is its result line (lanes/README.md):
/// the workload, counts that mirror the client's line, and its CPU.
fn check_server_line(stdout: &str, w: &Workload, client_line: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one result line after READY: {:?}", stdout);
    assert!(stdout.ends_with('\n'), "{:?}", stdout);
    let j = Json::parse(lines[0]).unwrap_or_else(|e| panic!("{}: {}", e, lines[0]));
    assert_eq!(j.at("runtime").str(), "rust");
    for (key, want) in [
        ("round_trips", w.round_trips),
        ("warmup_round_trips", w.warmup),
        ("payload_bytes", w.payload_bytes as u64),
        ("max_in_flight", w.max_in_flight as u64),
        ("frames_sent", field(client_line, "frames_received")),
        ("frames_received", field(client_line, "frames_sent")),
        ("bytes_sent", field(client_line, "bytes_received")),
        ("bytes_received", field(client_line, "bytes_sent")),
    ] {
        assert_eq!(j.at(key).u64(), want, "{}: {}", key, lines[0]);
    }
    j.at("cpu_user_us").u64();
    j.at("cpu_system_us").u64();
}

/// The cost fields of a client's result line (lanes/README.md): CPU over
/// the window, and a histogram of exactly the N measured round trips
/// whose percentiles lie between its bounds, within the window.
fn check_cost(line: &str, n: u64) {
    let doc = Json::parse(line).unwrap_or_else(|e| panic!("{}: {}", e, line));
    let elapsed = doc.at("elapsed_ns").u64();
    let cpu = doc.at("cpu_user_us").u64() + doc.at("cpu_system_us").u64();
    assert!(
        cpu <= elapsed / 1000 * 2 + 1000,
        "CPU {} us in {} ns",
        cpu,
        elapsed
    );
    let lat = doc.at("latency");
    assert_eq!(lat.at("count").u64(), n, "{}", line);
    let buckets = lat.at("buckets").arr();
    let indices: Vec<u64> = buckets.iter().map(|b| b.arr()[0].u64()).collect();
    assert!(indices.windows(2).all(|p| p[0] < p[1]), "{}", line);
    let sum: u64 = buckets.iter().map(|b| b.arr()[1].u64()).sum();
    assert_eq!(sum, n, "{}", line);
    let min = lat.at("min").u64();
    let max = lat.at("max").u64();
    assert_eq!(histogram::index(min) as u64, indices[0], "{}", line);
    assert_eq!(histogram::index(max) as u64, indices[indices.len() - 1]);
    let ps: Vec<u64> = ["p50", "p90", "p99", "p99_9"]
        .iter()
        .map(|k| lat.at(k).u64())
        .collect();
    assert!(histogram::lower(histogram::index(min)) <= ps[0], "{}", line);
    assert!(
        ps.windows(2).all(|p| p[0] <= p[1]) && ps[3] <= max,
        "{}",
        line
    );
    assert!(max <= elapsed, "max {} over elapsed_ns {}", max, elapsed);
}

/// Both on IPv6 loopback, as crossrun --host ::1 starts them: the server
/// on [::1]:0 (and on ::1 only), the client to [::1]:PORT.
#[test]
fn session_on_ipv6_loopback() {
    if TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: no IPv6 loopback here");
        return;
    }
    let (server, reader, port) = start_server_on("[::1]:0");
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nothing on 127.0.0.1:{}",
        port
    );
    let client = finish(
        spawn_client_to(&format!("[::1]:{}", port), 10, 2000, 64, 64),
        None,
    );
    let server = finish_server(server, reader);
    assert!(client.status.success(), "client: {}", client.stderr);
    assert!(server.status.success(), "server: {}", server.stderr);
    assert_eq!(client.stderr, "");
    assert_eq!(server.stderr, "");
    assert_eq!(field(&client.stdout, "round_trips"), 2000);
}

#[test]
fn session_smallest() {
    session(0, 1, 0, 1);
}

#[test]
fn session_small_window() {
    session(10, 500, 64, 8);
}

#[test]
fn session_benchmark_shape() {
    session(1000, 20000, 64, 64);
}

#[test]
fn session_odd_payload_lock_step() {
    session(3, 200, 13, 1);
}

#[test]
fn session_large_window_writer_thread() {
    session(100, 20000, 100, 4096);
}

#[test]
fn session_largest_window() {
    session(0, 70000, 1, 65536);
}

#[test]
fn session_large_payloads() {
    session(1, 6, 1_048_576, 3);
    session(2, 40, 100_000, 16);
}

// ---- the server against a raw client ----

fn read_frame(s: &mut TcpStream) -> Option<(Header, Vec<u8>)> {
    let mut h = [0u8; 16];
    s.read_exact(&mut h).ok()?;
    let h = Header::decode(&h);
    let mut body = vec![0u8; h.len as usize];
    s.read_exact(&mut body).ok()?;
    Some((h, body))
}

fn hello(w: &Workload) -> Vec<u8> {
    let mut f = Vec::new();
    codec::encode_frame(&mut f, codec::HELLO, 0, &w.encode());
    f
}

const W: Workload = Workload {
    warmup: 1,
    round_trips: 2,
    payload_bytes: 16,
    max_in_flight: 2,
};

/// Runs `act` as the client of a fresh server; returns what the server
/// sent after the bytes `act` read itself, and how the server ended.
fn against_server(act: impl FnOnce(&mut TcpStream)) -> (Vec<u8>, Finished) {
    let (server, reader, port) = start_server();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    act(&mut s);
    let _ = s.shutdown(Shutdown::Write);
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    drop(s);
    (rest, finish_server(server, reader))
}

fn assert_rejected(f: &Finished, name: &str) {
    assert!(
        !f.status.success(),
        "expected failure with {}, got {:?}",
        name,
        f.status
    );
    let lines: Vec<&str> = f.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stderr line: {:?}", f.stderr);
    assert!(
        lines[0].contains(&format!(": {}:", name)),
        "stderr {:?} does not name {}",
        lines[0],
        name
    );
}

fn assert_error_frame(bytes: &[u8], code: u16) {
    assert!(bytes.len() >= 18, "no ERROR frame in {:?}", bytes);
    let h = Header::decode(bytes);
    assert_eq!((h.ty, h.seq), (codec::ERROR, 0), "{:?}", h);
    assert_eq!(bytes.len(), 16 + h.len as usize);
    assert_eq!(u16::from_be_bytes([bytes[16], bytes[17]]), code);
}

#[test]
fn server_rejects_version_2() {
    let (rest, f) = against_server(|s| {
        let mut h = hello(&W);
        h[0] = 2;
        s.write_all(&h).unwrap();
    });
    assert_rejected(&f, "unsupported_version");
    assert_error_frame(&rest, 1);
}

#[test]
fn server_rejects_bad_workload() {
    let (rest, f) = against_server(|s| {
        s.write_all(&hello(&Workload {
            round_trips: 0,
            ..W
        }))
        .unwrap();
    });
    assert_rejected(&f, "bad_workload");
    assert_error_frame(&rest, 2);
}

#[test]
fn server_rejects_wrong_sequence() {
    let (rest, f) = against_server(|s| {
        s.write_all(&hello(&W)).unwrap();
        assert_eq!(read_frame(s).unwrap().0.ty, codec::HELLO_ACK);
        let mut r = Vec::new();
        encode_requests(&mut r, 2, 1, W.payload_bytes);
        s.write_all(&r).unwrap();
    });
    assert_rejected(&f, "wrong_sequence");
    assert_error_frame(&rest, 3);
}

#[test]
fn server_rejects_wrong_payload() {
    let (rest, f) = against_server(|s| {
        let mut r = hello(&W);
        encode_requests(&mut r, 1, 1, W.payload_bytes);
        let last = r.len() - 1;
        r[last] ^= 1;
        s.write_all(&r).unwrap();
    });
    assert_rejected(&f, "wrong_payload");
    // HELLO_ACK, then the ERROR frame.
    assert_eq!(Header::decode(&rest).ty, codec::HELLO_ACK);
    assert_error_frame(&rest[40..], 3);
}

#[test]
fn server_rejects_silent_close() {
    let (_, f) = against_server(|_| {});
    assert_rejected(&f, "unexpected_eof");
}

#[test]
fn server_rejects_truncated_request() {
    let (_, f) = against_server(|s| {
        let mut r = hello(&W);
        encode_requests(&mut r, 1, 1, W.payload_bytes);
        r.truncate(r.len() - 3);
        s.write_all(&r).unwrap();
    });
    assert_rejected(&f, "truncated");
}

#[test]
fn server_rejects_peer_error() {
    let (rest, f) = against_server(|s| {
        let mut e = Vec::new();
        codec::encode_error(&mut e, 3, "giving up");
        s.write_all(&e).unwrap();
    });
    assert_rejected(&f, "peer_error");
    assert!(f.stderr.contains("giving up"), "{}", f.stderr);
    assert!(rest.is_empty(), "no ERROR answers an ERROR");
}

/// Every request of W, read back, then a BYE with `counts`.
fn whole_session_then_bye(s: &mut TcpStream, counts: Counts) {
    let mut r = hello(&W);
    encode_requests(&mut r, 1, W.total(), W.payload_bytes);
    s.write_all(&r).unwrap();
    for _ in 0..W.total() + 1 {
        read_frame(s).unwrap();
    }
    let mut bye = Vec::new();
    codec::encode_frame(&mut bye, codec::BYE, W.total() + 1, &counts.encode());
    s.write_all(&bye).unwrap();
}

#[test]
fn server_rejects_count_mismatch() {
    let (rest, f) = against_server(|s| {
        let mut c = W.expected_counts(false);
        c.bytes_received += 1;
        whole_session_then_bye(s, c);
    });
    assert_rejected(&f, "count_mismatch");
    assert_error_frame(&rest, 4);
}

#[test]
fn server_rejects_frame_after_bye() {
    let (rest, f) = against_server(|s| {
        whole_session_then_bye(s, W.expected_counts(false));
        let (h, body) = read_frame(s).unwrap();
        assert_eq!(h.ty, codec::BYE_ACK);
        assert_eq!(Counts::decode(&body), W.expected_counts(true));
        let mut r = Vec::new();
        encode_requests(&mut r, W.total() + 1, 1, W.payload_bytes);
        s.write_all(&r).unwrap();
    });
    assert_rejected(&f, "unexpected_type");
    assert_error_frame(&rest, 3);
}

#[test]
fn server_rejects_partial_frame_after_bye() {
    let (rest, f) = against_server(|s| {
        whole_session_then_bye(s, W.expected_counts(false));
        assert_eq!(read_frame(s).unwrap().0.ty, codec::BYE_ACK);
        s.write_all(&[1]).unwrap();
    });
    assert_rejected(&f, "truncated");
    assert_error_frame(&rest, 3);
}

#[test]
fn server_clean_session_exits_zero() {
    let (rest, f) = against_server(|s| {
        whole_session_then_bye(s, W.expected_counts(false));
        assert_eq!(read_frame(s).unwrap().0.ty, codec::BYE_ACK);
    });
    assert!(rest.is_empty());
    assert!(f.status.success(), "{:?} {}", f.status, f.stderr);
    assert_eq!(f.stderr, "");
    let t = W.expected_totals();
    let client_line = format!(
        "{{\"frames_sent\":{},\"frames_received\":{},\"bytes_sent\":{},\"bytes_received\":{}}}",
        t.frames_sent, t.frames_received, t.bytes_sent, t.bytes_received
    );
    check_server_line(&f.stdout, &W, &client_line);
}

// ---- the client against a raw server ----

/// Starts the client against a raw listener running `act`; returns what
/// the client sent after the bytes `act` read itself, and how it ended.
fn against_client(w: Workload, act: impl FnOnce(&mut TcpStream)) -> (Vec<u8>, Finished) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let child = spawn_client(
        port,
        w.warmup,
        w.round_trips,
        w.payload_bytes,
        w.max_in_flight,
    );
    let (mut s, _) = l.accept().unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    act(&mut s);
    let _ = s.shutdown(Shutdown::Write);
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    drop(s);
    let f = finish(child, None);
    (rest, f)
}

fn hello_ack(s: &mut TcpStream, w: &Workload) {
    let (h, body) = read_frame(s).unwrap();
    assert_eq!(h.ty, codec::HELLO);
    assert_eq!(Workload::decode(&body), *w);
    let mut f = Vec::new();
    codec::encode_frame(&mut f, codec::HELLO_ACK, 0, &body);
    s.write_all(&f).unwrap();
}

fn assert_client_rejected(f: &Finished, name: &str) {
    assert_rejected(f, name);
    assert_eq!(f.stdout, "", "nothing on stdout on failure");
}

/// The ERROR frame at the end of what the client sent, skipping requests.
fn last_error_code(bytes: &[u8]) -> Option<u16> {
    let mut pos = 0;
    while pos + 16 <= bytes.len() {
        let h = Header::decode(&bytes[pos..]);
        let end = pos + 16 + h.len as usize;
        if end > bytes.len() {
            return None;
        }
        if h.ty == codec::ERROR {
            return Some(u16::from_be_bytes([bytes[pos + 16], bytes[pos + 17]]));
        }
        pos = end;
    }
    None
}

#[test]
fn client_rejects_other_echo() {
    let (rest, f) = against_client(W, |s| {
        read_frame(s).unwrap();
        let mut ack = Vec::new();
        codec::encode_frame(
            &mut ack,
            codec::HELLO_ACK,
            0,
            &Workload {
                max_in_flight: 3,
                ..W
            }
            .encode(),
        );
        s.write_all(&ack).unwrap();
    });
    assert_client_rejected(&f, "bad_workload");
    assert_eq!(last_error_code(&rest), Some(2));
}

#[test]
fn client_rejects_plain_echo() {
    let (rest, f) = against_client(W, |s| {
        hello_ack(s, &W);
        let (h, body) = read_frame(s).unwrap();
        assert_eq!((h.ty, h.seq), (codec::REQUEST, 1));
        let mut resp = Vec::new();
        codec::encode_frame(&mut resp, codec::RESPONSE, 1, &body);
        s.write_all(&resp).unwrap();
    });
    assert_client_rejected(&f, "wrong_payload");
    assert_eq!(last_error_code(&rest), Some(3));
}

#[test]
fn client_rejects_out_of_order() {
    let (rest, f) = against_client(W, |s| {
        hello_ack(s, &W);
        read_frame(s).unwrap();
        let mut resp = vec![0u8; 16 + W.payload_bytes as usize];
        Header::new(codec::RESPONSE, W.payload_bytes, 2).encode(&mut resp);
        payload::fill_response(&mut resp[16..], 2);
        s.write_all(&resp).unwrap();
    });
    assert_client_rejected(&f, "wrong_sequence");
    assert_eq!(last_error_code(&rest), Some(3));
}

#[test]
fn client_rejects_peer_error() {
    let (_, f) = against_client(W, |s| {
        read_frame(s).unwrap();
        let mut e = Vec::new();
        codec::encode_error(&mut e, 2, "bad_workload: no thanks");
        s.write_all(&e).unwrap();
    });
    assert_client_rejected(&f, "peer_error");
    assert!(f.stderr.contains("no thanks"));
}

#[test]
fn client_rejects_close_after_hello() {
    let (_, f) = against_client(W, |s| {
        read_frame(s).unwrap();
    });
    assert_client_rejected(&f, "unexpected_eof");
}

#[test]
fn client_rejects_bye_ack_counts() {
    let (rest, f) = against_client(W, |s| {
        hello_ack(s, &W);
        loop {
            let (h, body) = read_frame(s).unwrap();
            if h.ty == codec::BYE {
                assert_eq!(Counts::decode(&body), W.expected_counts(false));
                let mut c = W.expected_counts(true);
                c.responses -= 1;
                let mut ack = Vec::new();
                codec::encode_frame(&mut ack, codec::BYE_ACK, h.seq, &c.encode());
                s.write_all(&ack).unwrap();
                break;
            }
            let mut resp = vec![0u8; body.len() + 16];
            Header::new(codec::RESPONSE, h.len, h.seq).encode(&mut resp);
            payload::respond(&mut resp[16..], &body);
            s.write_all(&resp).unwrap();
        }
    });
    assert_client_rejected(&f, "count_mismatch");
    assert_eq!(last_error_code(&rest), Some(4));
}

#[test]
fn client_writer_thread_rejects_wrong_payload() {
    // A window over 32 KiB: the requests come from the writer thread.
    let w = Workload {
        warmup: 0,
        round_trips: 100_000,
        payload_bytes: 1000,
        max_in_flight: 1000,
    };
    let (_, f) = against_client(w, |s| {
        hello_ack(s, &w);
        let (h, _) = read_frame(s).unwrap();
        let mut resp = vec![0u8; 16 + w.payload_bytes as usize];
        Header::new(codec::RESPONSE, w.payload_bytes, h.seq).encode(&mut resp);
        s.write_all(&resp).unwrap();
    });
    assert_client_rejected(&f, "wrong_payload");
}

// ---- command lines ----

fn run_args(prog: &str, args: &[&str]) -> Finished {
    let child = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, None)
}

#[test]
fn bad_flags_exit_2() {
    let ok = [
        "--connect",
        "127.0.0.1:1",
        "--warmup",
        "0",
        "--round-trips",
        "1",
        "--payload-bytes",
        "0",
        "--max-in-flight",
        "1",
    ];
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        ok[..8].to_vec(),
        [&ok[..], &["--bogus", "1"]].concat(),
        ok.iter().map(|a| if *a == "1" { "x" } else { a }).collect(),
        ok.iter()
            .map(|a| if *a == "0" { "-1" } else { a })
            .collect(),
        ok.iter()
            .map(|a| {
                if *a == "127.0.0.1:1" {
                    "nowhere:port"
                } else {
                    a
                }
            })
            .collect(),
    ];
    // Numbers outside SPEC.md's limits.
    let with = |flag: &str, value: &'static str| -> Vec<&'static str> {
        let mut v: Vec<&str> = ok.to_vec();
        let i = v.iter().position(|a| *a == flag).unwrap();
        v[i + 1] = value;
        v
    };
    let mut cases = cases;
    cases.extend([
        with("--round-trips", "0"),
        with("--max-in-flight", "0"),
        with("--max-in-flight", "65537"),
        with("--payload-bytes", "1048577"),
        with("--round-trips", "4611686018427387904"),
        with("--warmup", "18446744073709551615"),
        with("--round-trips", "18446744073709551616"),
    ]);
    for args in cases {
        let f = run_args(CLIENT, &args);
        assert_eq!(
            f.status.code(),
            Some(2),
            "client {:?}: {:?}",
            args,
            f.stderr
        );
        assert_eq!(f.stderr.lines().count(), 1, "{:?}", f.stderr);
        assert_eq!(f.stdout, "");
    }
    for args in [
        vec![],
        vec!["--listen"],
        vec!["--listen", "127.0.0.1:0", "--x", "1"],
        vec!["--listen", "::1:0"],
    ] {
        let f = run_args(SERVER, &args);
        assert_eq!(
            f.status.code(),
            Some(2),
            "server {:?}: {:?}",
            args,
            f.stderr
        );
        assert_eq!(f.stderr.lines().count(), 1, "{:?}", f.stderr);
        assert_eq!(f.stdout, "");
    }
}

#[test]
fn client_connect_failure_is_one_line() {
    // A port with nothing listening: bind one, then free it.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let f = finish(spawn_client(port, 0, 1, 0, 1), None);
    assert!(!f.status.success());
    assert_ne!(f.status.code(), Some(2));
    assert_eq!(f.stderr.lines().count(), 1, "{:?}", f.stderr);
    assert_eq!(f.stdout, "");
}
