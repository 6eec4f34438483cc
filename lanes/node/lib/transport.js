'use strict';
// The transport of a session (lanes/README.md, protocol/SPEC.md
// "Transports"): plain TCP, or TLS 1.3 on node:tls with ALPN crossrun/1,
// the client trusting only the CA of --ca and checking the server's IP SAN
// against the address it connects to. The sessions of lib/ see the
// application bytes only, whichever transport carries them.

const fs = require('node:fs');
const net = require('node:net');
const tls = require('node:tls');

const { UsageError, parseServerArgs, parseClientArgs } = require('./args');

const ALPN = 'crossrun/1';
const SERVER_FLAGS = ['transport', 'cert', 'key'];
const CLIENT_FLAGS = ['transport', 'ca'];

// A handshake that did not end in a TLS 1.3 session with ALPN crossrun/1
// (the stderr line is `<role>: tls_handshake: <reason>`, exit 1).
class HandshakeError extends Error {}

function readPem(flag, file) {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new UsageError(`--${flag} ${JSON.stringify(file)}: ${e.code || e.message}`);
  }
}

// { kind: 'tcp' } or { kind: 'tls', <file contents by flag> }; `files` are
// the flags tls needs, every one of them refused over tcp.
function transportOf(flags, files) {
  const kind = flags.transport === undefined ? 'tcp' : flags.transport;
  if (kind !== 'tcp' && kind !== 'tls') {
    throw new UsageError(`--transport must be tcp or tls, got ${JSON.stringify(kind)}`);
  }
  const t = { kind };
  for (const f of files) {
    if (kind === 'tcp' && flags[f] !== undefined) throw new UsageError(`--${f} is for --transport tls only`);
    if (kind === 'tls' && flags[f] === undefined) throw new UsageError(`--transport tls needs --${f} FILE`);
  }
  if (kind === 'tls') for (const f of files) t[f] = readPem(f, flags[f]);
  return t;
}

const VERSIONS = { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' };

// The result line's `tls` object (lanes/README.md) of a secure socket.
function describe(sock) {
  const c = sock.getCipher();
  return { version: sock.getProtocol(), cipher: c.standardName || c.name, alpn: sock.alpnProtocol };
}

// The handshake's own reason: OpenSSL's reason string (not its whole
// error stack), or node's check of the certificate, with the error code.
function reasonOf(e) {
  if (!e || typeof e !== 'object') return String(e);
  const code = e.code || '';
  // The chain's and the IP address's checks: X509 verify codes, and
  // node's own for the address.
  const verify = code === 'ERR_TLS_CERT_ALTNAME_INVALID' || (/^[A-Z0-9_]+$/.test(code) && !code.startsWith('E'));
  return `${verify ? 'certificate verify failed: ' : ''}${e.reason || e.message}${code ? ` (${code})` : ''}`;
}

// The secure context of PEM material, refused as a usage error when
// OpenSSL cannot use it. A server's sends no session tickets: for TLS 1.3
// OpenSSL's number of tickets is what stops them, and node has no option
// for it, so lib/openssl.cnf sets it (matrix.yaml's server command loads
// that file with --openssl-config).
function contextOf(what, options) {
  try {
    return tls.createSecureContext({ ...options, ...VERSIONS });
  } catch (e) {
    throw new UsageError(`${what}: ${reasonOf(e)}`);
  }
}

// The flags of lib/args.js plus the transport's; `transport` is
// { kind: 'tcp' } or { kind: 'tls', context }.
function parseServer(argv) {
  const a = parseServerArgs(argv, SERVER_FLAGS);
  const t = transportOf(a.flags, ['cert', 'key']);
  a.transport = t.kind === 'tcp' ? t : { kind: 'tls', context: contextOf('--cert/--key', { cert: t.cert, key: t.key }) };
  return a;
}

function parseClient(argv) {
  const a = parseClientArgs(argv, CLIENT_FLAGS);
  const t = transportOf(a.flags, ['ca']);
  a.transport = t.kind === 'tcp' ? t : { kind: 'tls', context: contextOf('--ca', { ca: [t.ca] }) };
  return a;
}

// Watches the handshake of sock up to `event` ('secure' on the server,
// 'secureConnect' on the client): onSecure(info, t) once it gave ALPN
// crossrun/1 (t: the clock just after it completed), onFail(HandshakeError)
// on anything else. From onSecure on, the session's own handlers take the
// socket's errors.
function watchHandshake(sock, event, peer, onSecure, onFail) {
  let done = false;
  const fail = (reason) => {
    if (done) return;
    done = true;
    sock.destroy();
    onFail(new HandshakeError(reason));
  };
  const early = (e) => fail(reasonOf(e));
  sock.on('error', early);
  // A client that refuses the certificate may just end the stream, which
  // a half-open socket would wait on forever.
  sock.once('end', () => fail(`the ${peer} ended the connection during the handshake`));
  sock.on('close', () => fail('the connection closed during the handshake'));
  sock.once(event, () => {
    const t = process.hrtime.bigint();
    if (done) return;
    if (sock.alpnProtocol !== ALPN) {
      fail(`the ${peer} ${peer === 'client' ? 'offered' : 'selected'} no ALPN ${ALPN} (got ${sock.alpnProtocol || 'none'})`);
      return;
    }
    done = true;
    sock.removeListener('error', early);
    onSecure(describe(sock), t);
  });
}

// Wraps an accepted TCP socket; onSecure(sock, info) once the handshake
// gave TLS 1.3 and ALPN crossrun/1, onFail(HandshakeError) otherwise.
function acceptTls(raw, context, onSecure, onFail) {
  const sock = new tls.TLSSocket(raw, {
    isServer: true,
    secureContext: context,
    ALPNProtocols: [ALPN],
    requestCert: false,
  });
  watchHandshake(sock, 'secure', 'client', (info) => onSecure(sock, info), onFail);
}

// Connects over TCP, then (over tls) runs the handshake. onReady(sock,
// info) with the socket carrying the session and, over tls, the result
// line's `tls` object, handshake_ns included; onConnectFail(e) when TCP
// did not connect; onFail(HandshakeError) when the handshake failed.
function connect(addr, t, { onReady, onConnectFail, onFail }) {
  // Half-open allowed: after the server's end of stream an ERROR can still go out.
  const raw = net.connect({ host: addr.host, port: addr.port, allowHalfOpen: true });
  raw.setNoDelay(true);
  let connected = false;
  raw.once('error', (e) => {
    if (!connected) onConnectFail(e);
  });
  raw.once('connect', () => {
    connected = true;
    if (t.kind === 'tcp') {
      onReady(raw, null);
      return;
    }
    const t0 = process.hrtime.bigint();
    // host: the certificate's IP SAN is checked against it; an IP
    // address as host sends no SNI.
    const sock = tls.connect({
      socket: raw,
      host: addr.host,
      secureContext: t.context,
      ALPNProtocols: [ALPN],
      ...VERSIONS,
    });
    const secure = (info, t1) => {
      info.handshake_ns = Number(t1 - t0);
      onReady(sock, info);
    };
    watchHandshake(sock, 'secureConnect', 'server', secure, onFail);
  });
}

// The longest wait for the client's FIN after its close_notify.
const FIN_WAIT_MS = 1000;

// Calls done() once the TCP end of stream of raw (a socket that carries
// TLS) has arrived, within FIN_WAIT_MS. The client's close_notify ends the
// session and its FIN follows; a server that closed on close_notify alone
// could send its FIN first (its port left in TIME_WAIT:
// server_closed_first). node's TLS layer drops everything after
// close_notify, the FIN included, so the socket itself is asked: a read of
// its descriptor returns 0 once the FIN is in (the end of stream stays),
// EAGAIN before. Where node gives no descriptor (Windows) it ends at once.
function afterFin(raw, done) {
  const fd = raw._handle ? raw._handle.fd : -1;
  if (typeof fd !== 'number' || fd < 0) {
    done();
    return;
  }
  const scratch = Buffer.allocUnsafe(512);
  const deadline = Date.now() + FIN_WAIT_MS;
  const poll = () => {
    for (;;) {
      try {
        if (fs.readSync(fd, scratch, 0, scratch.length, null) === 0) break;
      } catch (e) {
        if (e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK') {
          if (Date.now() < deadline) {
            setTimeout(poll, 1);
            return;
          }
        }
        break;
      }
    }
    done();
  };
  poll();
}

module.exports = {
  ALPN,
  HandshakeError,
  parseServer,
  parseClient,
  acceptTls,
  afterFin,
  connect,
  describe,
};
