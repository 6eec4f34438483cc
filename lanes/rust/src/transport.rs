//! The transport of a session (lanes/README.md "Transports"): plain TCP,
//! or TLS 1.3 on rustls (ring provider) with ALPN `crossrun/1`, the client
//! trusting only the CA of `--ca` and checking the server's IP SAN against
//! the address it connects to; no SNI, no session tickets, no resumption.
//!
//! The session loops of `client` and `server` run on any [`Conn`]: a
//! `TcpStream`, or a [`TlsStream`] that carries the same application
//! bytes inside TLS records. A `TlsStream` can be cloned for the client's
//! writer thread: the clones share the rustls connection behind a mutex
//! that is never held across a socket read or write, and a second mutex
//! keeps the records on the wire in the order they were sealed.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, Connection, RootCertStore, ServerConfig};

use crate::net;

/// The one ALPN protocol both sides offer and require.
pub const ALPN: &[u8] = b"crossrun/1";

/// How much ciphertext one socket read takes at most.
const READ_BYTES: usize = 256 * 1024;

/// A connected stream a session runs on.
pub trait Conn: Read + Write + Send + Sized + 'static {
    /// Another handle to the same stream, for a second thread.
    fn try_clone(&self) -> io::Result<Self>;
    /// Shuts the socket down; over TLS, a shutdown of the write side sends
    /// close_notify first.
    fn shutdown(&self, how: Shutdown) -> io::Result<()>;
    fn set_read_timeout(&self, d: Option<Duration>) -> io::Result<()>;
}

impl Conn for TcpStream {
    fn try_clone(&self) -> io::Result<TcpStream> {
        TcpStream::try_clone(self)
    }
    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        TcpStream::shutdown(self, how)
    }
    fn set_read_timeout(&self, d: Option<Duration>) -> io::Result<()> {
        TcpStream::set_read_timeout(self, d)
    }
}

/// The transport flags' meaning: tcp, or tls with the PEM files to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp,
    /// Server: `--cert` and `--key`; client: `--ca` (the other empty).
    Tls {
        cert: String,
        key: String,
        ca: String,
    },
}

/// The flags of the transport, for `cli`'s parsers.
pub const SERVER_FLAGS: [&str; 3] = ["--transport", "--cert", "--key"];
pub const CLIENT_FLAGS: [&str; 2] = ["--transport", "--ca"];

/// The transport from its flags (`get` gives a flag's value when given):
/// `--transport` absent or `tcp` takes none of `files`, `tls` takes them
/// all; anything else is a usage error.
pub fn from_flags<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
    files: &[&str],
) -> Result<Transport, String> {
    let tls = match get("--transport") {
        None | Some("tcp") => false,
        Some("tls") => true,
        Some(other) => return Err(format!("bad value {:?} for --transport: tcp or tls", other)),
    };
    for f in files {
        match (tls, get(f)) {
            (false, Some(_)) => return Err(format!("flag {} is for --transport tls only", f)),
            (true, None) => return Err(format!("--transport tls needs {} FILE", f)),
            _ => {}
        }
    }
    if !tls {
        return Ok(Transport::Tcp);
    }
    let file = |f: &str| get(f).unwrap_or("").to_string();
    Ok(Transport::Tls {
        cert: file("--cert"),
        key: file("--key"),
        ca: file("--ca"),
    })
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(ring::default_provider())
}

/// The client's TLS settings from `--ca`: that certificate is the only
/// root; TLS 1.3 only; ALPN crossrun/1; no SNI; no resumption.
pub fn client_config(ca_file: &str) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    let mut n = 0;
    for cert in
        CertificateDer::pem_file_iter(ca_file).map_err(|e| format!("--ca {:?}: {}", ca_file, e))?
    {
        let cert = cert.map_err(|e| format!("--ca {:?}: {}", ca_file, e))?;
        roots
            .add(cert)
            .map_err(|e| format!("--ca {:?}: {}", ca_file, e))?;
        n += 1;
    }
    if n == 0 {
        return Err(format!("--ca {:?}: no certificate in it", ca_file));
    }
    let mut config = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![ALPN.to_vec()];
    config.enable_sni = false;
    config.resumption = rustls::client::Resumption::disabled();
    Ok(Arc::new(config))
}

/// The server's TLS settings from `--cert` and `--key`: TLS 1.3 only,
/// ALPN crossrun/1, no session tickets and no session cache.
pub fn server_config(cert_file: &str, key_file: &str) -> Result<Arc<ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_file)
        .map_err(|e| format!("--cert {:?}: {}", cert_file, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--cert {:?}: {}", cert_file, e))?;
    if chain.is_empty() {
        return Err(format!("--cert {:?}: no certificate in it", cert_file));
    }
    let key = PrivateKeyDer::from_pem_file(key_file)
        .map_err(|e| format!("--key {:?}: {}", key_file, e))?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("--cert {:?} and --key {:?}: {}", cert_file, key_file, e))?;
    config.alpn_protocols = vec![ALPN.to_vec()];
    config.send_tls13_tickets = 0;
    config.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
    Ok(Arc::new(config))
}

/// What both result lines report about the session's TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsInfo {
    pub version: String,
    pub cipher: String,
    pub alpn: String,
    /// The client's handshake time; None on the server.
    pub handshake_ns: Option<u64>,
}

impl TlsInfo {
    fn of(conn: &Connection) -> TlsInfo {
        let version = match conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
            Some(v) => format!("{:?}", v),
            None => "none".to_string(),
        };
        let cipher = conn
            .negotiated_cipher_suite()
            .map(|s| iana_name(u16::from(s.suite())))
            .unwrap_or_else(|| "none".to_string());
        let alpn = String::from_utf8_lossy(conn.alpn_protocol().unwrap_or(b"")).into_owned();
        TlsInfo {
            version,
            cipher,
            alpn,
            handshake_ns: None,
        }
    }

    /// The result line's `"tls"` object.
    pub fn json(&self) -> String {
        let hs = match self.handshake_ns {
            Some(ns) => format!(",\"handshake_ns\":{}", ns),
            None => String::new(),
        };
        format!(
            "{{\"version\":\"{}\",\"cipher\":\"{}\",\"alpn\":\"{}\"{}}}",
            json_text(&self.version),
            json_text(&self.cipher),
            json_text(&self.alpn),
            hs
        )
    }
}

/// A result line (one JSON object) with `"tls"` added when there is one.
pub fn with_tls(line: String, tls: Option<&TlsInfo>) -> String {
    match (tls, line.strip_suffix('}')) {
        (Some(t), Some(head)) => format!("{},\"tls\":{}}}", head, t.json()),
        _ => line,
    }
}

fn json_text(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .collect()
}

/// The IANA name of a TLS 1.3 cipher suite (RFC 8446, appendix B.4).
pub fn iana_name(suite: u16) -> String {
    match suite {
        0x1301 => "TLS_AES_128_GCM_SHA256".to_string(),
        0x1302 => "TLS_AES_256_GCM_SHA384".to_string(),
        0x1303 => "TLS_CHACHA20_POLY1305_SHA256".to_string(),
        0x1304 => "TLS_AES_128_CCM_SHA256".to_string(),
        0x1305 => "TLS_AES_128_CCM_8_SHA256".to_string(),
        other => format!("0x{:04X}", other),
    }
}

/// A handshake that did not end in TLS 1.3 with ALPN crossrun/1: printed
/// as `tls_handshake: <reason>`.
#[derive(Debug)]
pub struct HandshakeError(pub String);

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tls_handshake: {}", self.0)
    }
}

/// The rustls reason inside an I/O error, or the error itself.
fn reason(e: &io::Error) -> String {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(tls) => tls.to_string(),
        None => e.to_string(),
    }
}

fn handshake(
    mut conn: Connection,
    mut tcp: TcpStream,
    peer: &str,
) -> Result<TlsStream, HandshakeError> {
    while conn.is_handshaking() {
        match conn.complete_io(&mut tcp) {
            Ok((0, 0)) if conn.is_handshaking() => {
                return Err(HandshakeError(format!(
                    "the {} closed the connection during the handshake",
                    peer
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(HandshakeError(reason(&e))),
        }
    }
    // Over TLS 1.3 a client's Finished may still be queued.
    while conn.wants_write() {
        conn.write_tls(&mut tcp)
            .map_err(|e| HandshakeError(reason(&e)))?;
    }
    if conn.alpn_protocol() != Some(ALPN) {
        let what = if peer == "server" {
            "selected"
        } else {
            "offered"
        };
        let mut out = Vec::new();
        conn.send_close_notify();
        let _ = conn.write_tls(&mut out);
        let _ = tcp.write_all(&out);
        return Err(HandshakeError(format!(
            "the {} {} no ALPN crossrun/1",
            peer, what
        )));
    }
    conn.set_buffer_limit(None);
    Ok(TlsStream::new(conn, tcp))
}

/// The client's handshake on a connected socket, to `ip` (the address
/// the certificate's IP SAN must name). The returned info carries
/// handshake_ns: from just before the handshake starts to its end.
pub fn connect_tls(
    tcp: TcpStream,
    ip: IpAddr,
    config: Arc<ClientConfig>,
) -> Result<(TlsStream, TlsInfo), HandshakeError> {
    let t0 = Instant::now();
    let conn = rustls::ClientConnection::new(config, ServerName::IpAddress(ip.into()))
        .map_err(|e| HandshakeError(e.to_string()))?;
    let stream = handshake(Connection::Client(conn), tcp, "server")?;
    let ns = t0.elapsed().as_nanos() as u64;
    let mut info = stream.info();
    info.handshake_ns = Some(ns.max(1));
    Ok((stream, info))
}

/// The server's handshake on an accepted socket.
pub fn accept_tls(
    tcp: TcpStream,
    config: Arc<ServerConfig>,
) -> Result<(TlsStream, TlsInfo), HandshakeError> {
    let conn = rustls::ServerConnection::new(config).map_err(|e| HandshakeError(e.to_string()))?;
    let stream = handshake(Connection::Server(conn), tcp, "client")?;
    let info = stream.info();
    Ok((stream, info))
}

struct Shared {
    conn: Mutex<Connection>,
    /// Held from sealing records to having written them, so records reach
    /// the socket in sequence whichever handle wrote them.
    wire: Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A TLS session over a TCP socket, as a blocking stream of application
/// bytes. Every write seals all its bytes into records and writes them
/// with one socket write.
pub struct TlsStream {
    tcp: TcpStream,
    shared: Arc<Shared>,
    /// Ciphertext read from the socket and not yet given to rustls.
    incoming: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    outgoing: Vec<u8>,
}

impl TlsStream {
    fn new(conn: Connection, tcp: TcpStream) -> TlsStream {
        TlsStream {
            tcp,
            shared: Arc::new(Shared {
                conn: Mutex::new(conn),
                wire: Mutex::new(()),
            }),
            incoming: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            outgoing: Vec::new(),
        }
    }

    /// The negotiated version, cipher and ALPN.
    pub fn info(&self) -> TlsInfo {
        TlsInfo::of(&lock(&self.shared.conn))
    }

    /// Sends close_notify (the client's end of a session).
    pub fn close_notify(&mut self) -> io::Result<()> {
        let _wire = lock(&self.shared.wire);
        self.outgoing.clear();
        {
            let mut conn = lock(&self.shared.conn);
            conn.send_close_notify();
            while conn.wants_write() {
                conn.write_tls(&mut self.outgoing)?;
            }
        }
        self.tcp.write_all(&self.outgoing)
    }

    /// After the session's clean end (the client's close_notify, or its
    /// end of stream), reads the socket on to the TCP end of stream, a
    /// `net::LINGER` at most. The client's FIN follows its close_notify
    /// right away; a server that closed at close_notify alone could send
    /// its FIN first (its port left in TIME_WAIT: server_closed_first).
    pub fn await_fin(&mut self) {
        if self.eof || self.tcp.set_read_timeout(Some(net::LINGER)).is_err() {
            return;
        }
        let mut scratch = [0u8; 512];
        while matches!(self.tcp.read(&mut scratch), Ok(n) if n > 0) {}
        self.eof = true;
    }

    /// Writes what rustls has queued (an alert after a failure) when no
    /// other handle is writing; never waits for one.
    fn flush_queued(&mut self) {
        let Ok(_wire) = self.shared.wire.try_lock() else {
            return;
        };
        self.outgoing.clear();
        {
            let mut conn = lock(&self.shared.conn);
            while conn.wants_write() {
                if conn.write_tls(&mut self.outgoing).is_err() {
                    break;
                }
            }
        }
        let _ = self.tcp.write_all(&self.outgoing);
    }
}

impl Read for TlsStream {
    /// Application bytes; 0 at the end of the stream, with close_notify or
    /// without (the session says whether an end is clean there).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            {
                let mut conn = lock(&self.shared.conn);
                match conn.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                    Err(e) => return Err(e),
                }
                if self.start < self.end || self.eof {
                    let mut rest = &self.incoming[self.start..self.end];
                    let before = rest.len();
                    let taken = conn.read_tls(&mut rest);
                    self.start += before - rest.len();
                    taken?;
                    if let Err(e) = conn.process_new_packets() {
                        drop(conn);
                        self.flush_queued();
                        return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                    }
                    if self.start == self.end && self.eof {
                        // rustls has seen the end: the reader now says
                        // whether it came after close_notify.
                        match conn.reader().read(buf) {
                            Ok(n) => return Ok(n),
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
                            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                            Err(e) => return Err(e),
                        }
                    }
                    continue;
                }
            }
            // The socket read happens without the connection's lock, so a
            // writer thread can seal and send meanwhile.
            if self.incoming.len() < READ_BYTES {
                self.incoming.resize(READ_BYTES, 0);
            }
            let n = self.tcp.read(&mut self.incoming)?;
            self.start = 0;
            self.end = n;
            if n == 0 {
                self.eof = true;
            }
        }
    }
}

impl Write for TlsStream {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    /// Seals all of `data` (records of up to 16 KiB) and writes them with
    /// one socket write.
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        let _wire = lock(&self.shared.wire);
        self.outgoing.clear();
        {
            let mut conn = lock(&self.shared.conn);
            conn.writer().write_all(data)?;
            while conn.wants_write() {
                conn.write_tls(&mut self.outgoing)?;
            }
        }
        self.tcp.write_all(&self.outgoing)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Conn for TlsStream {
    fn try_clone(&self) -> io::Result<TlsStream> {
        Ok(TlsStream {
            tcp: self.tcp.try_clone()?,
            shared: Arc::clone(&self.shared),
            incoming: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            outgoing: Vec::new(),
        })
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        if how != Shutdown::Read {
            if let Ok(_wire) = self.shared.wire.try_lock() {
                let mut out = Vec::new();
                {
                    let mut conn = lock(&self.shared.conn);
                    conn.send_close_notify();
                    while conn.wants_write() {
                        if conn.write_tls(&mut out).is_err() {
                            break;
                        }
                    }
                }
                let _ = (&self.tcp).write_all(&out);
            }
        }
        self.tcp.shutdown(how)
    }

    fn set_read_timeout(&self, d: Option<Duration>) -> io::Result<()> {
        self.tcp.set_read_timeout(d)
    }
}
