//! The built `client` and `server` over `--transport tls`: sessions with
//! the `tls` objects of both result lines (the one-thread and the
//! writer-thread client), the certificate checks (another CA, another IP
//! address), ALPN and the TLS version on either side, no session tickets,
//! and the transport flags. Each test makes its CA and leaf with rcgen.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod common;

use common::{finish, Finished, Json, LIMIT};
use crossrun_lane::codec::{self, Counts, Workload};
use crossrun_lane::payload;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

const SERVER: &str = env!("CARGO_BIN_EXE_server");
const CLIENT: &str = env!("CARGO_BIN_EXE_client");

/// A folder with `ca.pem`, `cert.pem` and `key.pem`, removed on drop.
struct Material {
    dir: PathBuf,
}

impl Material {
    /// A fresh CA (ECDSA P-256, CA:TRUE, keyCertSign) and a leaf it signs
    /// for `ips` (CA:FALSE, digitalSignature, serverAuth), as the runner
    /// makes them per sample.
    fn new(ips: &[&str]) -> Material {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("crossrun-rust-tls-{}-{}", std::process::id(), n));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name
            .push(DnType::CommonName, format!("crossrun test CA {}", n));
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().unwrap();
        let mut leaf = CertificateParams::new(Vec::<String>::new()).unwrap();
        leaf.distinguished_name
            .push(DnType::CommonName, "crossrun test server");
        leaf.is_ca = IsCa::ExplicitNoCa;
        leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        leaf.subject_alt_names = ips
            .iter()
            .map(|ip| SanType::IpAddress(ip.parse().unwrap()))
            .collect();
        let cert = leaf.signed_by(&key, &issuer).unwrap();
        std::fs::write(dir.join("ca.pem"), ca_cert.pem()).unwrap();
        std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
        std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
        Material { dir }
    }

    fn loopback() -> Material {
        Material::new(&["127.0.0.1", "::1"])
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }

    fn server_flags(&self) -> Vec<String> {
        vec![
            "--transport".into(),
            "tls".into(),
            "--cert".into(),
            self.path("cert.pem"),
            "--key".into(),
            self.path("key.pem"),
        ]
    }

    fn client_flags(&self) -> Vec<String> {
        vec![
            "--transport".into(),
            "tls".into(),
            "--ca".into(),
            self.path("ca.pem"),
        ]
    }
}

impl Drop for Material {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn spawn(prog: &str, args: &[String]) -> Child {
    Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// Starts the server with `extra` flags; returns it, its stdout after
/// READY, and the port.
fn start_server(listen: &str, extra: &[String]) -> (Child, BufReader<ChildStdout>, u16) {
    let mut args = vec!["--listen".to_string(), listen.to_string()];
    args.extend_from_slice(extra);
    let mut child = spawn(SERVER, &args);
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let port = line
        .strip_prefix("READY ")
        .and_then(|p| p.trim_end().parse::<u16>().ok())
        .unwrap_or_else(|| panic!("bad READY line {:?}", line));
    (child, reader, port)
}

/// Runs the client with `w` against 127.0.0.1:`port`, to its end.
fn run_client(port: u16, w: Workload, extra: &[String]) -> Finished {
    let connect = format!("127.0.0.1:{}", port);
    finish(spawn(CLIENT, &client_args(&connect, &w, extra)), None)
}

fn client_args(connect: &str, w: &Workload, extra: &[String]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--connect",
        connect,
        "--warmup",
        &w.warmup.to_string(),
        "--round-trips",
        &w.round_trips.to_string(),
        "--payload-bytes",
        &w.payload_bytes.to_string(),
        "--max-in-flight",
        &w.max_in_flight.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend_from_slice(extra);
    args
}

fn workload(warmup: u64, round_trips: u64, payload_bytes: u32, max_in_flight: u32) -> Workload {
    Workload {
        warmup,
        round_trips,
        payload_bytes,
        max_in_flight,
    }
}

fn check_tls(line: &Json, client: bool) -> String {
    let t = line.at("tls");
    assert_eq!(t.at("version").str(), "TLSv1.3");
    assert_eq!(t.at("alpn").str(), "crossrun/1");
    let cipher = t.at("cipher").str().to_string();
    assert!(
        [
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256"
        ]
        .contains(&cipher.as_str()),
        "cipher {}",
        cipher
    );
    assert_eq!(t.get("handshake_ns").is_some(), client);
    if client {
        assert!(t.at("handshake_ns").u64() > 0);
    }
    cipher
}

/// One session between the two programs over tls on `host`.
fn tls_session(host: &str, w: Workload) {
    let m = Material::loopback();
    let listen = if host.contains(':') {
        format!("[{}]:0", host)
    } else {
        format!("{}:0", host)
    };
    let (server, out, port) = start_server(&listen, &m.server_flags());
    let connect = if host.contains(':') {
        format!("[{}]:{}", host, port)
    } else {
        format!("{}:{}", host, port)
    };
    let c = finish(
        spawn(CLIENT, &client_args(&connect, &w, &m.client_flags())),
        None,
    );
    let s = finish(server, Some(out));
    assert!(c.status.success(), "client: {}", c.stderr);
    assert!(s.status.success(), "server: {}", s.stderr);
    assert_eq!(c.stderr, "");
    assert_eq!(s.stderr, "");
    let cj = Json::parse(c.stdout.trim_end()).unwrap();
    let sj = Json::parse(s.stdout.trim_end()).unwrap();
    let total = w.warmup + w.round_trips;
    let bytes = 40 + total * w.frame_bytes() + 48;
    for j in [&cj, &sj] {
        assert_eq!(j.at("round_trips").u64(), w.round_trips);
        assert_eq!(j.at("frames_sent").u64(), total + 2);
        assert_eq!(j.at("frames_received").u64(), total + 2);
        assert_eq!(j.at("bytes_sent").u64(), bytes);
        assert_eq!(j.at("bytes_received").u64(), bytes);
    }
    assert_eq!(cj.at("latency").at("count").u64(), w.round_trips);
    let a = check_tls(&cj, true);
    let b = check_tls(&sj, false);
    assert_eq!(a, b, "both name the same cipher");
}

#[test]
fn tls_sessions_one_thread() {
    tls_session("127.0.0.1", workload(0, 1, 0, 1));
    tls_session("127.0.0.1", workload(10, 2000, 64, 64));
}

#[test]
fn tls_sessions_writer_thread() {
    tls_session("127.0.0.1", workload(3, 500, 1, 65536));
    tls_session("127.0.0.1", workload(1, 300, 70000, 33));
    tls_session("127.0.0.1", workload(2, 12, 1 << 20, 4));
}

#[test]
fn tls_session_ipv6() {
    if TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: no IPv6 loopback here");
        return;
    }
    tls_session("::1", workload(10, 2000, 64, 64));
}

fn handshake_line(f: &Finished, why: &str) {
    let lines: Vec<&str> = f.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stderr line: {:?}", f.stderr);
    assert!(lines[0].contains("tls_handshake: "), "{}", lines[0]);
    assert!(lines[0].contains(why), "{:?} in {}", why, lines[0]);
    assert_eq!(f.status.code(), Some(1));
}

/// The client given `ca` against the server's `cert`: refused, one
/// tls_handshake line naming `why`, exit 1, nothing on stdout; the server
/// sees the handshake fail too.
fn refused(server: &Material, client_ca: &Material, why: &str) {
    let (child, out, port) = start_server("127.0.0.1:0", &server.server_flags());
    let c = run_client(port, workload(0, 1, 0, 1), &client_ca.client_flags());
    let s = finish(child, Some(out));
    assert_eq!(c.stdout, "");
    handshake_line(&c, why);
    assert_eq!(s.stdout, "");
    handshake_line(&s, "");
}

#[test]
fn client_refuses_another_ca() {
    refused(
        &Material::loopback(),
        &Material::loopback(),
        "UnknownIssuer",
    );
}

#[test]
fn client_refuses_another_ip() {
    let m = Material::new(&["127.0.0.2"]);
    refused(&m, &m, "not valid for name");
}

fn tls13() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// An in-test rustls server with `alpn` for the client to run against.
fn client_against(alpn: Vec<Vec<u8>>) -> Finished {
    let m = Material::loopback();
    let chain = vec![CertificateDer::from_pem_file_for_test(&m.path("cert.pem"))];
    let key = PrivateKeyDer::from_pem_file_for_test(&m.path("key.pem"));
    let mut config = rustls::ServerConfig::builder_with_provider(tls13())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    config.alpn_protocols = alpn;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = Arc::new(config);
    let t = std::thread::spawn(move || {
        let (mut tcp, _) = listener.accept().unwrap();
        let mut conn = rustls::ServerConnection::new(config).unwrap();
        while conn.is_handshaking() {
            if conn.complete_io(&mut tcp).is_err() {
                break;
            }
        }
    });
    let c = run_client(port, workload(0, 1, 0, 1), &m.client_flags());
    t.join().unwrap();
    c
}

#[test]
fn client_refuses_a_server_without_alpn() {
    let c = client_against(vec![]);
    assert_eq!(c.stdout, "");
    handshake_line(&c, "ALPN");
}

/// Counts the TLS 1.3 tickets a client is given.
#[derive(Debug, Default)]
struct Tickets(AtomicUsize);

impl rustls::client::ClientSessionStore for Tickets {
    fn set_kx_hint(&self, _: ServerName<'static>, _: rustls::NamedGroup) {}
    fn kx_hint(&self, _: &ServerName<'_>) -> Option<rustls::NamedGroup> {
        None
    }
    fn set_tls12_session(
        &self,
        _: ServerName<'static>,
        _: rustls::client::Tls12ClientSessionValue,
    ) {
    }
    fn tls12_session(&self, _: &ServerName<'_>) -> Option<rustls::client::Tls12ClientSessionValue> {
        None
    }
    fn remove_tls12_session(&self, _: &ServerName<'static>) {}
    fn insert_tls13_ticket(
        &self,
        _: ServerName<'static>,
        _: rustls::client::Tls13ClientSessionValue,
    ) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn take_tls13_ticket(
        &self,
        _: &ServerName<'static>,
    ) -> Option<rustls::client::Tls13ClientSessionValue> {
        None
    }
}

/// An in-test rustls client with `alpn` against the server: after the
/// handshake it runs a whole session of one request, then sends
/// close_notify. Returns the server's end, the tickets it was given and
/// how many application bytes came back. With `probe`, the client waits
/// that long after its close_notify before its FIN, and the last figure says
/// whether the server's own end of the TCP stream came meanwhile.
fn against_server(alpn: Vec<Vec<u8>>, probe: Option<Duration>) -> (Finished, usize, usize, bool) {
    let m = Material::loopback();
    let (child, out, port) = start_server("127.0.0.1:0", &m.server_flags());
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file_for_test(&m.path("ca.pem")))
        .unwrap();
    let tickets = Arc::new(Tickets::default());
    let mut config = rustls::ClientConfig::builder_with_provider(tls13())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn;
    config.resumption = rustls::client::Resumption::store(tickets.clone());
    let name = ServerName::IpAddress("127.0.0.1".parse::<std::net::IpAddr>().unwrap().into());
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(LIMIT)).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let w = workload(0, 1, 3, 1);
    let mut out_bytes = Vec::new();
    codec::encode_frame(&mut out_bytes, codec::HELLO, 0, &w.encode());
    let mut req = vec![0u8; 3];
    payload::fill(&mut req, 1);
    codec::encode_frame(&mut out_bytes, codec::REQUEST, 1, &req);
    let counts = Counts {
        requests: 1,
        responses: 1,
        bytes_sent: 40 + 19,
        bytes_received: 40 + 19,
    };
    codec::encode_frame(&mut out_bytes, codec::BYE, 2, &counts.encode());
    let mut back = 0usize;
    if tls.write_all(&out_bytes).is_ok() {
        let mut buf = [0u8; 4096];
        while back < 40 + 19 + 48 {
            match tls.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => back += n,
            }
        }
        tls.conn.send_close_notify();
        let _ = tls.flush();
    }
    let mut early = false;
    if let Some(wait) = probe {
        tls.sock.set_read_timeout(Some(wait)).unwrap();
        early = matches!(tls.sock.read(&mut [0u8; 512]), Ok(0));
    }
    drop(tls);
    let s = finish(child, Some(out));
    (s, tickets.0.load(Ordering::Relaxed), back, early)
}

#[test]
fn server_sends_no_tickets_and_ends_on_close_notify() {
    let (s, tickets, back, _) = against_server(vec![b"crossrun/1".to_vec()], None);
    assert!(s.status.success(), "server: {}", s.stderr);
    assert_eq!(back, 40 + 19 + 48);
    assert_eq!(tickets, 0);
    let sj = Json::parse(s.stdout.trim_end()).unwrap();
    check_tls(&sj, false);
}

/// close_notify alone must not end the server's side of the TCP
/// connection (it would close first: server_closed_first); the client's
/// FIN does.
#[test]
fn server_waits_for_the_fin_after_close_notify() {
    let probe = Duration::from_millis(300);
    let (s, _, back, early) = against_server(vec![b"crossrun/1".to_vec()], Some(probe));
    assert!(!early, "the server ended its side on close_notify alone");
    assert!(s.status.success(), "server: {}", s.stderr);
    assert_eq!(back, 40 + 19 + 48);
    assert_eq!(s.stdout.lines().count(), 1, "{:?}", s.stdout);
}

#[test]
fn server_refuses_a_client_without_alpn() {
    let (s, _, back, _) = against_server(vec![], None);
    assert_eq!(back, 0);
    assert_eq!(s.stdout, "");
    handshake_line(&s, "ALPN");
}

#[test]
fn server_refuses_a_client_with_another_alpn() {
    let (s, _, back, _) = against_server(vec![b"http/1.1".to_vec()], None);
    assert_eq!(back, 0);
    assert_eq!(s.stdout, "");
    handshake_line(&s, "known protocol");
}

/// Loads one PEM item from a test file.
trait FromPemForTest: Sized {
    fn from_pem_file_for_test(path: &str) -> Self;
}

impl FromPemForTest for CertificateDer<'static> {
    fn from_pem_file_for_test(path: &str) -> Self {
        use rustls::pki_types::pem::PemObject;
        CertificateDer::from_pem_file(Path::new(path)).unwrap()
    }
}

impl FromPemForTest for PrivateKeyDer<'static> {
    fn from_pem_file_for_test(path: &str) -> Self {
        use rustls::pki_types::pem::PemObject;
        PrivateKeyDer::from_pem_file(Path::new(path)).unwrap()
    }
}

#[test]
fn transport_flags() {
    let m = Material::loopback();
    let w = workload(0, 1, 0, 1);
    let ca = m.path("ca.pem");
    let cert = m.path("cert.pem");
    let key = m.path("key.pem");
    let client_bad: Vec<Vec<&str>> = vec![
        vec!["--transport", "udp"],
        vec!["--transport", "tls"],
        vec!["--transport", "tcp", "--ca", &ca],
        vec!["--ca", &ca],
        vec!["--transport", "tls", "--ca", "/nonexistent/ca.pem"],
        vec!["--transport", "tls", "--ca", &key],
        vec!["--transport", "tls", "--ca", &ca, "--cert", &cert],
        vec!["--transport", "tls", "--transport", "tls", "--ca", &ca],
    ];
    for extra in client_bad {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let f = finish(spawn(CLIENT, &client_args("127.0.0.1:1", &w, &extra)), None);
        assert_eq!(f.status.code(), Some(2), "client {:?}: {}", extra, f.stderr);
        assert_eq!(f.stdout, "");
        assert_eq!(f.stderr.lines().count(), 1, "{}", f.stderr);
    }
    let server_bad: Vec<Vec<&str>> = vec![
        vec!["--transport", "tls"],
        vec!["--transport", "tls", "--cert", &cert],
        vec!["--transport", "tcp", "--cert", &cert, "--key", &key],
        vec!["--key", &key],
        vec!["--transport", "TLS", "--cert", &cert, "--key", &key],
        vec!["--transport", "tls", "--cert", &cert, "--key", &cert],
        vec!["--transport", "tls", "--cert", &key, "--key", &key],
        vec![
            "--transport",
            "tls",
            "--cert",
            &cert,
            "--key",
            &key,
            "--ca",
            &ca,
        ],
    ];
    for extra in server_bad {
        let mut args = vec!["--listen".to_string(), "127.0.0.1:0".to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let f = finish(spawn(SERVER, &args), None);
        assert_eq!(f.status.code(), Some(2), "server {:?}: {}", extra, f.stderr);
        assert_eq!(f.stdout, "");
        assert_eq!(f.stderr.lines().count(), 1, "{}", f.stderr);
    }
}

#[test]
fn transport_tcp_given_explicitly() {
    let (server, out, port) = start_server(
        "127.0.0.1:0",
        &["--transport".to_string(), "tcp".to_string()],
    );
    let c = run_client(port, workload(0, 3, 1, 1), &["--transport=tcp".to_string()]);
    let s = finish(server, Some(out));
    assert!(c.status.success(), "{}", c.stderr);
    assert!(s.status.success(), "{}", s.stderr);
    assert!(Json::parse(c.stdout.trim_end())
        .unwrap()
        .get("tls")
        .is_none());
}
