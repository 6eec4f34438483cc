'use strict';
// bin/client.js and bin/server.js over --transport tls (lanes/README.md
// "Transports"): sessions with the tls objects of both result lines,
// the certificate checks (another CA, another IP), ALPN and version on
// either side, no session tickets and no SNI, and the flags.
// The certificates are the fixed test-only ones of test/tls/ (README.md).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { Duplex } = require('node:stream');
const tls = require('node:tls');

const codec = require('../lib/codec');
const { LANE, run, endpoint, startServer } = require('./helpers');

const { T } = codec;

const PEM = path.join(__dirname, 'tls');
const pem = (name) => path.join(PEM, name);
const CLIENT = [process.execPath, path.join(LANE, 'bin', 'client.js')];
// As matrix.yaml runs it: with the OpenSSL settings that stop tickets.
const SERVER = [process.execPath, `--openssl-config=${path.join(LANE, 'lib', 'openssl.cnf')}`, path.join(LANE, 'bin', 'server.js')];
const SERVER_TLS = ['--transport', 'tls', '--cert', pem('cert.pem'), '--key', pem('key.pem')];
const CLIENT_TLS = ['--transport', 'tls', '--ca', pem('ca.pem')];
const TIMEOUT = 120000;

// A server as helpers.startServer starts it, with the TLS flags after it.
const startTlsServer = (extra, host = '127.0.0.1') => startServer([...SERVER, ...extra], host);

function workloadArgs(w) {
  return ['--warmup', String(w.W), '--round-trips', String(w.N), '--payload-bytes', String(w.P), '--max-in-flight', String(w.M)];
}

const clientRun = (port, w, extra, host = '127.0.0.1') =>
  run([...CLIENT, '--connect', endpoint(host, port), ...workloadArgs(w), ...extra]).done;

// A one-line stderr naming the handshake failure.
function handshakeLine(res, pattern) {
  if (process.env.CROSSRUN_TLS_TEST_VERBOSE) console.log(res.stderr);
  const lines = res.stderr.split('\n');
  assert.equal(lines.length, 2, `one stderr line: ${JSON.stringify(res.stderr)}`);
  assert.match(lines[0], /tls_handshake: /);
  if (pattern) assert.match(lines[0], pattern);
}

function checkTls(info, client) {
  assert.equal(info.version, 'TLSv1.3');
  assert.equal(info.alpn, 'crossrun/1');
  assert.match(info.cipher, /^TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256)$/);
  if (client) {
    assert.ok(Number.isSafeInteger(info.handshake_ns) && info.handshake_ns > 0, `handshake_ns ${info.handshake_ns}`);
  } else {
    assert.equal(info.handshake_ns, undefined);
  }
}

const WORKLOADS = [
  { W: 0, N: 1, P: 0, M: 1 },
  { W: 10, N: 2000, P: 64, M: 64 },
  { W: 3, N: 500, P: 1, M: 65536 },
  { W: 2, N: 12, P: 1048576, M: 4 },
  { W: 1, N: 300, P: 70000, M: 33 },
];

async function tlsSession(w, host = '127.0.0.1') {
  const srv = await startTlsServer(SERVER_TLS, host);
  const cli = await clientRun(srv.port, w, CLIENT_TLS, host);
  const s = await srv.done;
  assert.equal(cli.stderr, '', 'client stderr');
  assert.equal(cli.code, 0);
  assert.equal(s.stderr, '', 'server stderr');
  assert.equal(s.code, 0);
  assert.deepEqual(cli.tmpLeft, []);
  assert.deepEqual(s.tmpLeft, []);
  const c = JSON.parse(cli.stdout);
  const lines = s.stdout.split('\n');
  assert.equal(lines[0], `READY ${srv.port}`);
  assert.equal(lines.length, 3, JSON.stringify(s.stdout));
  const r = JSON.parse(lines[1]);
  // The counts and wire bytes are the application's, as over tcp.
  const bytes = 40 + (w.W + w.N) * (16 + w.P) + 48;
  for (const line of [c, r]) {
    assert.equal(line.round_trips, w.N);
    assert.equal(line.frames_sent, w.W + w.N + 2);
    assert.equal(line.frames_received, w.W + w.N + 2);
    assert.equal(line.bytes_sent, bytes);
    assert.equal(line.bytes_received, bytes);
  }
  assert.equal(c.latency.count, w.N);
  checkTls(c.tls, true);
  checkTls(r.tls, false);
  assert.equal(c.tls.cipher, r.tls.cipher, 'both name the same cipher');
  return c;
}

for (const w of WORKLOADS) {
  test(`tls: node client vs node server: W=${w.W} N=${w.N} P=${w.P} M=${w.M}`, { timeout: TIMEOUT }, async () => {
    await tlsSession(w);
  });
}

test('tls: node client vs node server on [::1]', { timeout: TIMEOUT }, async (t) => {
  const probe = net.createServer();
  const ok = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => resolve(true));
  });
  if (!ok) return t.skip('no IPv6 loopback here');
  await new Promise((resolve) => probe.close(resolve));
  await tlsSession({ W: 10, N: 2000, P: 64, M: 64 }, '::1');
});

test('tls: a tcp session still prints no tls object', { timeout: TIMEOUT }, async () => {
  const srv = await startTlsServer([]);
  const cli = await clientRun(srv.port, { W: 1, N: 10, P: 8, M: 2 }, []);
  const s = await srv.done;
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(s.code, 0, s.stderr);
  assert.equal(JSON.parse(cli.stdout).tls, undefined);
  assert.equal(JSON.parse(s.stdout.split('\n')[1]).tls, undefined);
});

// The client against certificates it must refuse: each ends in one
// tls_handshake line and exit 1, with nothing on stdout; the server sees
// the handshake fail too.
const REFUSED = [
  { name: 'a server certificate from another CA', cert: 'other-cert.pem', key: 'other-key.pem', ca: 'ca.pem', why: /verify|issuer/i },
  { name: 'a --ca that is another CA', cert: 'cert.pem', key: 'key.pem', ca: 'other-ca.pem', why: /verify|issuer/i },
  { name: 'a certificate for another IP address', cert: 'wrongip-cert.pem', key: 'wrongip-key.pem', ca: 'ca.pem', why: /127\.0\.0\.1|altname/i },
];

for (const c of REFUSED) {
  test(`tls: the client refuses ${c.name}`, { timeout: TIMEOUT }, async () => {
    const srv = await startTlsServer(['--transport', 'tls', '--cert', pem(c.cert), '--key', pem(c.key)]);
    const cli = await clientRun(srv.port, { W: 0, N: 1, P: 0, M: 1 }, ['--transport', 'tls', '--ca', pem(c.ca)]);
    const s = await srv.done;
    assert.equal(cli.code, 1);
    assert.equal(cli.stdout, '');
    handshakeLine(cli, c.why);
    assert.equal(s.code, 1);
    assert.equal(s.stdout, `READY ${srv.port}\n`);
    handshakeLine(s);
  });
}

// An in-test TLS server (node:tls with the given options) for the client
// to run against; resolves to the client's result and what the server saw.
async function clientAgainstTls(options) {
  const seen = {};
  const server = tls.createServer(
    { cert: fs.readFileSync(pem('cert.pem')), key: fs.readFileSync(pem('key.pem')), ...options },
    (sock) => {
      seen.servername = sock.servername;
      sock.on('error', () => {});
      sock.destroy();
    }
  );
  server.on('tlsClientError', (e) => {
    seen.error = e.code || e.message;
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const res = await clientRun(server.address().port, { W: 0, N: 1, P: 0, M: 1 }, CLIENT_TLS);
  await new Promise((resolve) => server.close(resolve));
  return { res, seen };
}

test('tls: the client refuses a server that selects no ALPN', { timeout: TIMEOUT }, async () => {
  const { res } = await clientAgainstTls({ minVersion: 'TLSv1.3' });
  assert.equal(res.code, 1);
  assert.equal(res.stdout, '');
  handshakeLine(res, /ALPN/);
});

test('tls: the client refuses TLS 1.2', { timeout: TIMEOUT }, async () => {
  const { res } = await clientAgainstTls({ maxVersion: 'TLSv1.2', ALPNProtocols: ['crossrun/1'] });
  assert.equal(res.code, 1);
  assert.equal(res.stdout, '');
  handshakeLine(res, /version|protocol/i);
});

test('tls: the client sends no SNI to an IP address', { timeout: TIMEOUT }, async () => {
  const { seen } = await clientAgainstTls({ minVersion: 'TLSv1.3', ALPNProtocols: ['crossrun/1'] });
  assert.equal(seen.servername, false);
});

// An in-test TLS client against the node server: it completes the
// handshake with the given options, then sends one whole session.
async function tlsClientToServer(options) {
  const srv = await startTlsServer(SERVER_TLS);
  let tickets = 0;
  const got = [];
  const outcome = await new Promise((resolve) => {
    const sock = tls.connect({ host: '127.0.0.1', port: srv.port, ca: fs.readFileSync(pem('ca.pem')), ...options });
    sock.on('session', () => {
      tickets++;
    });
    sock.on('secureConnect', () => {
      const w = { warmup: 0n, roundTrips: 1n, payloadBytes: 3, maxInFlight: 1 };
      const counts = codec.encodeCounts(codec.expectedCounts(w, false));
      sock.write(codec.encodeFrame(T.HELLO, 0, codec.encodeWorkload(w)));
      sock.write(codec.encodeFrame(T.REQUEST, 1, codec.gen(1, 3)));
      sock.write(codec.encodeFrame(T.BYE, 2, counts));
    });
    sock.on('data', (d) => {
      got.push(d);
      if (Buffer.concat(got).length >= 40 + 19 + 48) sock.end();
    });
    sock.on('error', (e) => resolve({ error: e.code || e.message }));
    sock.on('close', () => resolve({ alpn: sock.alpnProtocol }));
  });
  const res = await srv.done;
  return { res, tickets, outcome, bytes: Buffer.concat(got).length };
}

test('tls: the server sends no session tickets', { timeout: TIMEOUT }, async () => {
  const { res, tickets, outcome, bytes } = await tlsClientToServer({ ALPNProtocols: ['crossrun/1'] });
  assert.equal(res.code, 0, res.stderr);
  assert.equal(outcome.alpn, 'crossrun/1');
  assert.equal(bytes, 40 + 19 + 48);
  assert.equal(tickets, 0);
});

// close_notify alone must not end the server's side of the TCP
// connection: it waits for the FIN that follows (else it would close first
// in TCP, server_closed_first), then exits 0 with its result line.
test('tls: after close_notify the server waits for the FIN', { timeout: TIMEOUT }, async () => {
  const srv = await startTlsServer(SERVER_TLS);
  const raw = net.connect({ host: '127.0.0.1', port: srv.port, allowHalfOpen: true });
  let serverFin = false;
  // The TLS client runs over a stream whose end does not end raw, so its
  // end() sends close_notify without a FIN.
  const carrier = new Duplex({
    write: (chunk, enc, cb) => raw.write(chunk, cb),
    final: (cb) => cb(),
    read: () => {},
  });
  raw.on('data', (d) => carrier.push(d));
  raw.on('end', () => {
    serverFin = true;
    carrier.push(null);
  });
  raw.on('error', () => {});
  const sock = tls.connect({ socket: carrier, host: '127.0.0.1', ca: fs.readFileSync(pem('ca.pem')), ALPNProtocols: ['crossrun/1'] });
  sock.on('error', () => {});
  const w = { warmup: 0n, roundTrips: 1n, payloadBytes: 3, maxInFlight: 1 };
  let got = 0;
  await new Promise((resolve) => {
    sock.on('secureConnect', () => {
      sock.write(codec.encodeFrame(T.HELLO, 0, codec.encodeWorkload(w)));
      sock.write(codec.encodeFrame(T.REQUEST, 1, codec.gen(1, 3)));
      sock.write(codec.encodeFrame(T.BYE, 2, codec.encodeCounts(codec.expectedCounts(w, false))));
    });
    sock.on('data', (d) => {
      got += d.length;
      if (got >= 40 + 19 + 48) resolve();
    });
  });
  sock.end();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(serverFin, false, 'the server closed on close_notify alone');
  raw.end();
  const res = await srv.done;
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stdout.split('\n').length, 3, res.stdout);
  assert.ok(serverFin);
});

for (const [name, options] of [
  ['no ALPN', {}],
  ['another ALPN', { ALPNProtocols: ['http/1.1'] }],
]) {
  test(`tls: the server refuses a client with ${name}`, { timeout: TIMEOUT }, async () => {
    const { res } = await tlsClientToServer(options);
    assert.equal(res.code, 1);
    handshakeLine(res, /ALPN|application protocol/i);
  });
}

test('tls: the server refuses TLS 1.2', { timeout: TIMEOUT }, async () => {
  const { res } = await tlsClientToServer({ maxVersion: 'TLSv1.2', ALPNProtocols: ['crossrun/1'] });
  assert.equal(res.code, 1);
  handshakeLine(res, /version|protocol/i);
});

const W1 = workloadArgs({ W: 0, N: 1, P: 0, M: 1 });
const BAD_FLAGS = [
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'udp']],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'tls']],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'tcp', '--ca', pem('ca.pem')]],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--ca', pem('ca.pem')]],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'tls', '--ca', pem('missing.pem')]],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'tls', '--ca', pem('ca.pem'), '--cert', pem('cert.pem')]],
  ['client', ['--connect', '127.0.0.1:1', ...W1, '--transport', 'tls', '--transport', 'tls', '--ca', pem('ca.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tls']],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tls', '--cert', pem('cert.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tcp', '--cert', pem('cert.pem'), '--key', pem('key.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--key', pem('key.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'TLS', '--cert', pem('cert.pem'), '--key', pem('key.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tls', '--cert', pem('cert.pem'), '--key', pem('other-key.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tls', '--cert', pem('cert.pem'), '--key', pem('cert.pem')]],
  ['server', ['--listen', '127.0.0.1:0', '--transport', 'tls', '--cert', pem('cert.pem'), '--key', pem('key.pem'), '--ca', pem('ca.pem')]],
];

for (const [role, args] of BAD_FLAGS) {
  test(`tls: ${role} flags ${args.slice(role === 'client' ? 2 + W1.length : 2).map((a) => path.basename(a)).join(' ')}: exit 2`, async () => {
    const res = await run([...(role === 'client' ? CLIENT : SERVER), ...args]).done;
    assert.equal(res.code, 2, res.stderr);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr.split('\n').length, 2, res.stderr);
  });
}

test('tls: --transport tcp given explicitly runs over tcp', { timeout: TIMEOUT }, async () => {
  const srv = await startTlsServer(['--transport', 'tcp']);
  const cli = await clientRun(srv.port, { W: 0, N: 3, P: 1, M: 1 }, ['--transport=tcp']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal((await srv.done).code, 0);
});
