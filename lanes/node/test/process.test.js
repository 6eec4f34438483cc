'use strict';
// bin/client.js and bin/server.js as processes, through the peer contract
// of lanes/README.md: sessions between the two, rejections against raw
// sockets on either side, flag errors, and the C runtime when it is built.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const codec = require('../lib/codec');
const hist = require('../lib/histogram');
const { FrameParser } = require('../lib/receiver');
const { ROOT, LANE, run, endpoint, startServer } = require('./helpers');

const { T } = codec;

const NODE_CLIENT = [process.execPath, path.join(LANE, 'bin', 'client.js')];
const NODE_SERVER = [process.execPath, path.join(LANE, 'bin', 'server.js')];
const C_CLIENT = [path.join(ROOT, 'build', 'lanes', 'c', 'client')];
const C_SERVER = [path.join(ROOT, 'build', 'lanes', 'c', 'server')];
const HAVE_C = fs.existsSync(C_CLIENT[0]) && fs.existsSync(C_SERVER[0]);

const TIMEOUT = 120000;


// Whether ::1 can be bound here (the machine has an IPv6 loopback).
async function haveIPv6Loopback() {
  const probe = net.createServer();
  const ok = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => resolve(true));
  });
  if (ok) await new Promise((resolve) => probe.close(resolve));
  return ok;
}

function clientArgs(port, w, host = '127.0.0.1') {
  return [
    '--connect',
    endpoint(host, port),
    '--warmup',
    String(w.W),
    '--round-trips',
    String(w.N),
    '--payload-bytes',
    String(w.P),
    '--max-in-flight',
    String(w.M),
  ];
}

function checkResult(stdout, w) {
  const lines = stdout.split('\n');
  assert.equal(lines.length, 2, `one line on stdout: ${JSON.stringify(stdout)}`);
  assert.equal(lines[1], '');
  const r = JSON.parse(lines[0]);
  const total = w.W + w.N;
  const bytes = 40 + total * (16 + w.P) + 48;
  assert.equal(r.round_trips, w.N);
  assert.equal(r.warmup_round_trips, w.W);
  assert.equal(r.payload_bytes, w.P);
  assert.equal(r.max_in_flight, w.M);
  assert.equal(r.frames_sent, total + 2);
  assert.equal(r.frames_received, total + 2);
  assert.equal(r.bytes_sent, bytes);
  assert.equal(r.bytes_received, bytes);
  assert.ok(Number.isInteger(r.elapsed_ns) && r.elapsed_ns > 0, `elapsed_ns ${r.elapsed_ns}`);
  checkCost(r, w);
  return r;
}

function isCount(v) {
  return Number.isSafeInteger(v) && v >= 0;
}

// The cost fields of a result line (lanes/README.md), checked as the runner
// checks them: CPU figures, and a latency histogram of N values whose
// percentiles follow from its buckets. This runtime's client always gives
// them; another may leave them out.
function checkCost(r, w) {
  if (r.runtime !== 'node' && !('cpu_user_us' in r) && !('cpu_system_us' in r) && !('latency' in r)) return;
  assert.ok(isCount(r.cpu_user_us), `cpu_user_us ${r.cpu_user_us}`);
  assert.ok(isCount(r.cpu_system_us), `cpu_system_us ${r.cpu_system_us}`);
  const l = r.latency;
  assert.deepEqual(Object.keys(l), ['count', 'min', 'max', 'p50', 'p90', 'p99', 'p99_9', 'buckets']);
  assert.equal(l.count, w.N);
  const h = new hist.Histogram();
  let last = -1;
  for (const [i, n] of l.buckets) {
    assert.ok(Number.isInteger(i) && i > last && i < hist.BUCKETS, `bucket index ${i} after ${last}`);
    assert.ok(Number.isSafeInteger(n) && n > 0, `bucket ${i} count ${n}`);
    h.counts[i] = n;
    h.count += n;
    last = i;
  }
  assert.equal(h.count, w.N, 'bucket counts add up to round_trips');
  const first = l.buckets[0][0];
  assert.ok(hist.index(l.min) === first, `min ${l.min} in bucket ${first}`);
  assert.ok(hist.index(l.max) === last, `max ${l.max} in bucket ${last}`);
  assert.ok(l.max <= r.elapsed_ns, `max ${l.max} <= elapsed_ns ${r.elapsed_ns}`);
  for (const [name, q] of hist.PERCENTILES) assert.equal(l[name], h.percentile(q), name);
}

// A server's stdout: READY, then at most its result line, checked against
// the workload and the client's result (what one sent, the other received).
// Returns the parsed line, or null when it printed none.
function checkServerOutput(stdout, port, w, client) {
  const ready = `READY ${port}\n`;
  assert.ok(stdout.startsWith(ready), `READY first: ${JSON.stringify(stdout)}`);
  const rest = stdout.slice(ready.length);
  if (rest === '') return null;
  const lines = rest.split('\n');
  assert.equal(lines.length, 2, `one result line after READY: ${JSON.stringify(rest)}`);
  assert.equal(lines[1], '');
  const s = JSON.parse(lines[0]);
  assert.equal(s.round_trips, w.N);
  assert.equal(s.warmup_round_trips, w.W);
  assert.equal(s.payload_bytes, w.P);
  assert.equal(s.max_in_flight, w.M);
  assert.equal(s.frames_sent, client.frames_received);
  assert.equal(s.frames_received, client.frames_sent);
  assert.equal(s.bytes_sent, client.bytes_received);
  assert.equal(s.bytes_received, client.bytes_sent);
  assert.ok(isCount(s.cpu_user_us), `server cpu_user_us ${s.cpu_user_us}`);
  assert.ok(isCount(s.cpu_system_us), `server cpu_system_us ${s.cpu_system_us}`);
  return s;
}

async function session(clientCmd, serverCmd, w, host = '127.0.0.1') {
  const srv = await startServer(serverCmd, host);
  const cli = await run([...clientCmd, ...clientArgs(srv.port, w, host)]).done;
  const s = await srv.done;
  assert.equal(cli.stderr, '', 'client stderr');
  assert.equal(cli.code, 0, `client exit: ${cli.stderr}`);
  assert.equal(s.stderr, '', 'server stderr');
  assert.equal(s.code, 0, `server exit: ${s.stderr}`);
  assert.deepEqual(cli.tmpLeft, []);
  assert.deepEqual(s.tmpLeft, []);
  const r = checkResult(cli.stdout, w);
  r.server = checkServerOutput(s.stdout, srv.port, w, r);
  if (serverCmd === NODE_SERVER) {
    assert.notEqual(r.server, null, 'the node server prints its result line');
    assert.equal(r.server.runtime, 'node');
  }
  return r;
}

const WORKLOADS = [
  { W: 0, N: 1, P: 0, M: 1 },
  { W: 10, N: 2000, P: 64, M: 64 },
  { W: 3, N: 500, P: 1, M: 65536 },
  { W: 100, N: 20000, P: 200, M: 7 },
  { W: 2, N: 12, P: 1048576, M: 4 },
  { W: 1, N: 300, P: 70000, M: 33 },
];

for (const w of WORKLOADS) {
  test(`node client vs node server: W=${w.W} N=${w.N} P=${w.P} M=${w.M}`, { timeout: TIMEOUT }, async () => {
    const r = await session(NODE_CLIENT, NODE_SERVER, w);
    assert.equal(r.runtime, 'node');
  });
}

// IPv6 loopback, as crossrun --host ::1 runs the lanes: --listen [::1]:0
// and --connect [::1]:PORT.
const IPV6_PAIRS = [
  ['node client vs node server', NODE_CLIENT, NODE_SERVER, true],
  ['node client vs C server', NODE_CLIENT, C_SERVER, HAVE_C],
  ['C client vs node server', C_CLIENT, NODE_SERVER, HAVE_C],
];

for (const [name, clientCmd, serverCmd, available] of IPV6_PAIRS) {
  test(`${name} on [::1]`, { timeout: TIMEOUT }, async (t) => {
    if (!available) return t.skip('the C lane is not built');
    if (!(await haveIPv6Loopback())) return t.skip('no IPv6 loopback here');
    const w = { W: 10, N: 2000, P: 64, M: 64 };
    await session(clientCmd, serverCmd, w, '::1');
    const srv = await startServer(serverCmd, '::1');
    // The server listens on ::1 only: 127.0.0.1 has nothing on its port.
    const v4 = net.connect({ host: '127.0.0.1', port: srv.port });
    const refused = await new Promise((resolve) => {
      v4.on('error', (e) => resolve(e.code));
      v4.on('connect', () => resolve('connected'));
    });
    v4.destroy();
    srv.child.kill();
    await srv.done;
    assert.equal(refused, 'ECONNREFUSED');
  });
}

const INTEROP = [
  { W: 0, N: 1, P: 0, M: 1 },
  { W: 50, N: 5000, P: 64, M: 64 },
  { W: 1, N: 40, P: 1048576, M: 3 },
  { W: 7, N: 999, P: 13, M: 65536 },
];

for (const w of INTEROP) {
  const name = `W=${w.W} N=${w.N} P=${w.P} M=${w.M}`;
  const skip = HAVE_C ? false : 'build/lanes/c/client and server not built';
  test(`node client vs C server: ${name}`, { timeout: TIMEOUT, skip }, async () => {
    await session(NODE_CLIENT, C_SERVER, w);
  });
  test(`C client vs node server: ${name}`, { timeout: TIMEOUT, skip }, async () => {
    await session(C_CLIENT, NODE_SERVER, w);
  });
}

// ---------------------------------------------------------------------------
// Rejections by the server, fed by a raw socket

function stderrLine(res, rejection) {
  const lines = res.stderr.split('\n');
  assert.equal(lines.length, 2, `one stderr line: ${JSON.stringify(res.stderr)}`);
  assert.ok(lines[0].startsWith(`${rejection}: `), `names ${rejection}: ${lines[0]}`);
}

// Connects to a node server, sends `bytes` (then ends the stream when
// `end`, or resets the connection when `reset`), and collects what comes
// back until the server closes.
async function rawToServer(bytes, { end = false, reset = false, pieces = 1 } = {}) {
  const srv = await startServer(NODE_SERVER);
  const sock = net.connect({ host: '127.0.0.1', port: srv.port });
  const back = [];
  sock.on('data', (d) => back.push(d));
  sock.on('error', () => {});
  await new Promise((resolve) => sock.on('connect', resolve));
  const step = Math.max(1, Math.ceil(bytes.length / pieces));
  for (let i = 0; i < bytes.length; i += step) {
    sock.write(bytes.subarray(i, i + step));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (end) sock.end();
  if (reset) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    sock.resetAndDestroy();
  }
  const res = await srv.done;
  await new Promise((resolve) => {
    if (sock.destroyed) resolve();
    else sock.on('close', resolve);
    sock.end();
  });
  return { res, back: Buffer.concat(back) };
}

function framesOf(buf) {
  const frames = [];
  const p = new FrameParser((b, off, len) => {
    frames.push({ type: b[off + 1], seq: codec.readSequence(b, off), payload: Buffer.from(b.subarray(off + 16, off + 16 + len)) });
  });
  p.onData(buf);
  p.onEnd();
  return frames;
}

function lastErrorCode(buf) {
  const frames = framesOf(buf);
  const last = frames[frames.length - 1];
  assert.ok(last, 'an ERROR frame came back');
  assert.equal(last.type, T.ERROR);
  return codec.decodeError(last.payload);
}

function rawHeader(type, seq, len) {
  const h = Buffer.alloc(16);
  h[0] = 1;
  h[1] = type;
  h.writeUInt32BE(len, 4);
  h.writeBigUInt64BE(BigInt(seq), 8);
  return h;
}

const W5 = { warmup: 2n, roundTrips: 3n, payloadBytes: 5, maxInFlight: 2 };
const hello = (w = W5) => codec.encodeFrame(T.HELLO, 0, codec.encodeWorkload(w));
const req = (i, P = 5) => codec.encodeFrame(T.REQUEST, i, codec.gen(i, P));
const resp = (i, P = 5) => codec.encodeFrame(T.RESPONSE, i, codec.respond(codec.gen(i, P)));
const allRequests = () => Buffer.concat([1, 2, 3, 4, 5].map((i) => req(i)));
const goodBye = () => codec.encodeFrame(T.BYE, 6, codec.encodeCounts(codec.expectedCounts(W5, false)));

const SERVER_REJECTIONS = [
  {
    name: 'HELLO of version 2',
    bytes: () => {
      const h = hello();
      h[0] = 2;
      return h;
    },
    rejection: 'unsupported_version',
    code: 1,
  },
  {
    name: 'HELLO with round_trips 0',
    bytes: () => hello({ ...W5, roundTrips: 0n }),
    rejection: 'bad_workload',
    code: 2,
  },
  { name: 'REQUEST 2 first', bytes: () => Buffer.concat([hello(), req(2)]), rejection: 'wrong_sequence', code: 3 },
  {
    name: 'REQUEST 1 with a flipped bit, byte by byte',
    bytes: () => {
      const b = Buffer.concat([hello(), req(1)]);
      b[b.length - 1] ^= 0x10;
      return b;
    },
    pieces: 60,
    rejection: 'wrong_payload',
    code: 3,
  },
  {
    name: 'REQUEST of P+1 bytes',
    bytes: () => Buffer.concat([hello(), codec.encodeFrame(T.REQUEST, 1, codec.gen(1, 6))]),
    rejection: 'bad_length',
    code: 3,
  },
  {
    name: 'BYE with one request too many',
    bytes: () => {
      const c = codec.expectedCounts(W5, false);
      c.requests += 1n;
      return Buffer.concat([hello(), allRequests(), codec.encodeFrame(T.BYE, 6, codec.encodeCounts(c))]);
    },
    rejection: 'count_mismatch',
    code: 4,
  },
  { name: 'flags set', bytes: () => { const h = hello(); h[3] = 1; return h; }, rejection: 'bad_flags', code: 3 },
  { name: 'type 9', bytes: () => { const h = hello(); h[1] = 9; return h; }, rejection: 'unknown_type', code: 3 },
  {
    name: 'payload_length 2^20+1',
    bytes: () => Buffer.concat([hello(), rawHeader(T.REQUEST, 1, codec.MAX_PAYLOAD_BYTES + 1)]),
    rejection: 'frame_too_large',
    code: 3,
  },
  { name: 'RESPONSE sent to a server', bytes: () => Buffer.concat([hello(), resp(1)]), rejection: 'unexpected_type', code: 3 },
  {
    name: 'a frame after BYE',
    bytes: () => Buffer.concat([hello(), allRequests(), goodBye(), req(6)]),
    rejection: 'unexpected_type',
    code: 3,
  },
  {
    name: 'a REQUEST header after BYE, connection left open',
    bytes: () => Buffer.concat([hello(), allRequests(), goodBye(), rawHeader(T.REQUEST, 6, 5)]),
    pieces: 3,
    rejection: 'unexpected_type',
    code: 3,
  },
  {
    name: 'one stray byte after BYE, then end of stream',
    bytes: () => Buffer.concat([hello(), allRequests(), goodBye(), Buffer.from([1])]),
    pieces: 3,
    end: true,
    rejection: 'truncated',
    code: 3,
  },
  {
    name: 'REQUEST 2 header and 2 payload bytes where 1 is next, then end of stream',
    bytes: () => Buffer.concat([hello(), req(2).subarray(0, 18)]),
    end: true,
    rejection: 'wrong_sequence',
    code: 3,
  },
  {
    name: 'REQUEST 1 header of P+1 bytes, connection left open',
    bytes: () => Buffer.concat([hello(), rawHeader(T.REQUEST, 1, 6)]),
    rejection: 'bad_length',
    code: 3,
  },
  {
    name: 'BYE after 2 of 5 requests',
    bytes: () => Buffer.concat([hello(), req(1), req(2), goodBye()]),
    rejection: 'unexpected_type',
    code: 3,
  },
  {
    name: 'an ERROR header and part of its reason, then end of stream',
    bytes: () => Buffer.concat([hello(), codec.encodeError(3, 'gave up').subarray(0, 20)]),
    end: true,
    rejection: 'peer_error',
    code: null,
  },
  { name: 'half a HELLO, then end of stream', bytes: () => hello().subarray(0, 20), end: true, rejection: 'truncated', code: 3 },
  { name: 'end of stream before HELLO', bytes: () => Buffer.alloc(0), end: true, rejection: 'unexpected_eof', code: 3 },
  {
    name: 'end of stream before BYE',
    bytes: () => Buffer.concat([hello(), allRequests()]),
    end: true,
    rejection: 'unexpected_eof',
    code: 3,
  },
  {
    name: 'ERROR from the client',
    bytes: () => Buffer.concat([hello(), codec.encodeError(3, 'gave up')]),
    rejection: 'peer_error',
    code: null,
  },
  {
    name: 'a reset right after BYE_ACK',
    bytes: () => Buffer.concat([hello(), allRequests(), goodBye()]),
    reset: true,
    rejection: 'unexpected_eof',
    code: null,
  },
  {
    name: 'a reset inside REQUEST 2',
    bytes: () => Buffer.concat([hello(), req(1), req(2).subarray(0, 10)]),
    reset: true,
    rejection: 'truncated',
    code: null,
  },
];

for (const c of SERVER_REJECTIONS) {
  test(`server rejects ${c.name}: ${c.rejection}`, { timeout: TIMEOUT }, async () => {
    const { res, back } = await rawToServer(c.bytes(), { end: c.end, reset: c.reset, pieces: c.pieces || 1 });
    assert.notEqual(res.code, 0, 'non-zero exit');
    stderrLine(res, c.rejection);
    assert.deepEqual(res.tmpLeft, []);
    if (c.code === null) {
      // No ERROR in answer to an ERROR.
      if (!c.reset) for (const f of framesOf(back)) assert.notEqual(f.type, T.ERROR);
    } else {
      const e = lastErrorCode(back);
      assert.equal(e.code, c.code);
      assert.ok(e.reason.startsWith(`${c.rejection}: `), e.reason);
    }
  });
}

test('server with a valid session over a raw socket, answered byte for byte', { timeout: TIMEOUT }, async () => {
  const { res, back } = await rawToServer(Buffer.concat([hello(), allRequests(), goodBye()]), { end: true, pieces: 7 });
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stderr, '');
  const want = Buffer.concat([
    codec.encodeFrame(T.HELLO_ACK, 0, codec.encodeWorkload(W5)),
    resp(1),
    resp(2),
    resp(3),
    resp(4),
    resp(5),
    codec.encodeFrame(T.BYE_ACK, 6, codec.encodeCounts(codec.expectedCounts(W5, true))),
  ]);
  assert.equal(back.toString('hex'), want.toString('hex'));
});

// ---------------------------------------------------------------------------
// Rejections by the client, against a raw server

// A scripted server: script(sock, frames) is called with every whole frame
// received so far after each read. Resolves to the client's result and
// every byte the client sent.
async function clientAgainst(script, w = W5) {
  const got = [];
  let closed;
  const sockClosed = new Promise((resolve) => {
    closed = resolve;
  });
  const server = net.createServer({ allowHalfOpen: true }, (sock) => {
    server.close();
    sock.on('close', closed);
    const frames = [];
    const p = new FrameParser((b, off, len) => {
      frames.push({ type: b[off + 1], seq: codec.readSequence(b, off), payload: Buffer.from(b.subarray(off + 16, off + 16 + len)) });
    });
    sock.on('data', (d) => {
      got.push(d);
      p.onData(d);
      script(sock, frames);
    });
    sock.on('end', () => sock.end());
    sock.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const res = await run([
    ...NODE_CLIENT,
    ...clientArgs(port, { W: Number(w.warmup), N: Number(w.roundTrips), P: w.payloadBytes, M: w.maxInFlight }),
  ]).done;
  server.close();
  await sockClosed;
  return { res, sent: Buffer.concat(got) };
}

// A well-behaved server script with one fault injected by `tamper`, which
// may replace the answer to a frame: with other bytes, with 'close' (end
// the stream instead), or with { bytes } (send them, then end the stream).
function scripted(tamper) {
  let answered = 0;
  let ended = false;
  return (sock, frames) => {
    while (!ended && answered < frames.length) {
      const f = frames[answered++];
      let out;
      if (f.type === T.HELLO) out = codec.encodeFrame(T.HELLO_ACK, 0, f.payload);
      else if (f.type === T.REQUEST) out = codec.encodeFrame(T.RESPONSE, f.seq, codec.respond(f.payload));
      else if (f.type === T.BYE) {
        out = codec.encodeFrame(T.BYE_ACK, f.seq, codec.encodeCounts(codec.expectedCounts(W5, true)));
      } else continue;
      const t = tamper(f, out);
      if (t === 'close') {
        ended = true;
        sock.end();
      } else if (Buffer.isBuffer(t)) {
        sock.write(t);
      } else if (t) {
        ended = true;
        sock.end(t.bytes);
      }
    }
  };
}

const CLIENT_REJECTIONS = [
  {
    name: 'HELLO_ACK with another payload size',
    tamper: (f, out) => (f.type === T.HELLO ? codec.encodeFrame(T.HELLO_ACK, 0, codec.encodeWorkload({ ...W5, payloadBytes: 6 })) : out),
    rejection: 'bad_workload',
    code: 2,
  },
  {
    name: 'RESPONSE with a plain echo',
    tamper: (f, out) => (f.type === T.REQUEST && f.seq === 3n ? codec.encodeFrame(T.RESPONSE, 3, f.payload) : out),
    rejection: 'wrong_payload',
    code: 3,
  },
  {
    name: 'RESPONSE 2 twice',
    tamper: (f, out) => (f.type === T.REQUEST && f.seq === 3n ? resp(2) : out),
    rejection: 'wrong_sequence',
    code: 3,
  },
  {
    name: 'BYE_ACK counting one response less',
    tamper: (f, out) => {
      if (f.type !== T.BYE) return out;
      const c = codec.expectedCounts(W5, true);
      c.responses -= 1n;
      return codec.encodeFrame(T.BYE_ACK, 6, codec.encodeCounts(c));
    },
    rejection: 'count_mismatch',
    code: 4,
  },
  {
    name: 'the server closing after REQUEST 4',
    tamper: (f, out) => (f.type === T.REQUEST && f.seq === 4n ? 'close' : out),
    rejection: 'unexpected_eof',
    code: 3,
  },
  {
    name: 'a BYE_ACK cut short',
    tamper: (f, out) => (f.type === T.BYE ? { bytes: out.subarray(0, 30) } : out),
    rejection: 'truncated',
    code: 3,
  },
  {
    name: 'ERROR from the server',
    tamper: (f, out) => (f.type === T.REQUEST && f.seq === 2n ? codec.encodeError(3, 'no thanks') : out),
    rejection: 'peer_error',
    code: null,
  },
  {
    name: 'an extra frame after BYE_ACK',
    tamper: (f, out) => (f.type === T.BYE ? Buffer.concat([out, resp(6)]) : out),
    rejection: 'unexpected_type',
    code: null,
  },
  {
    name: 'one stray byte after BYE_ACK, then end of stream',
    tamper: (f, out) => (f.type === T.BYE ? Buffer.concat([out, Buffer.from([1])]) : out),
    rejection: 'truncated',
    code: null,
  },
  {
    name: 'a RESPONSE 2 header instead of HELLO_ACK, connection left open',
    tamper: (f, out) => (f.type === T.HELLO ? rawHeader(T.RESPONSE, 2, 5) : out),
    rejection: 'unexpected_type',
    code: 3,
  },
  {
    name: 'RESPONSE 1 header and 1 payload byte before HELLO_ACK, then end of stream',
    tamper: (f, out) => (f.type === T.HELLO ? { bytes: resp(1).subarray(0, 17) } : out),
    rejection: 'unexpected_type',
    code: 3,
  },
  {
    name: 'RESPONSE of version 3',
    tamper: (f, out) => {
      if (f.type !== T.REQUEST || f.seq !== 1n) return out;
      const b = Buffer.from(out);
      b[0] = 3;
      return b;
    },
    rejection: 'unsupported_version',
    code: 1,
  },
];

for (const c of CLIENT_REJECTIONS) {
  test(`client rejects ${c.name}: ${c.rejection}`, { timeout: TIMEOUT }, async () => {
    const { res, sent } = await clientAgainst(scripted(c.tamper));
    assert.notEqual(res.code, 0, 'non-zero exit');
    assert.equal(res.stdout, '', 'nothing on stdout');
    stderrLine(res, c.rejection);
    if (c.code !== null) {
      const e = lastErrorCode(sent);
      assert.equal(e.code, c.code);
      assert.ok(e.reason.startsWith(`${c.rejection}: `), e.reason);
    } else if (c.rejection === 'peer_error') {
      for (const f of framesOf(sent)) assert.notEqual(f.type, T.ERROR);
    }
  });
}

test('client against a scripted correct server succeeds', { timeout: TIMEOUT }, async () => {
  const { res } = await clientAgainst(scripted((f, out) => out));
  assert.equal(res.code, 0, res.stderr);
  checkResult(res.stdout, { W: 2, N: 3, P: 5, M: 2 });
});

// ---------------------------------------------------------------------------
// Flags

const BAD_CLIENT_FLAGS = [
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1', '--bogus', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '-1', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1x', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '0', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '1048577', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '65537'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '0'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--round-trips', '4611686018427387904', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '18446744073709551616', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', 'localhost', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '::1:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '[localhost]:1', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
  ['--connect', '127.0.0.1:1', '--warmup', '0', '--warmup', '0', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1'],
];

for (const args of BAD_CLIENT_FLAGS) {
  test(`client flags ${args.join(' ')}: exit 2`, async () => {
    const res = await run([...NODE_CLIENT, ...args]).done;
    assert.equal(res.code, 2);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr.split('\n').length, 2, res.stderr);
  });
}

test('client flags in any order, --name=value accepted', { timeout: TIMEOUT }, async () => {
  const srv = await startServer(NODE_SERVER);
  const res = await run([
    ...NODE_CLIENT,
    '--max-in-flight=3',
    '--payload-bytes',
    '9',
    '--round-trips',
    '10',
    `--connect=127.0.0.1:${srv.port}`,
    '--warmup',
    '4',
  ]).done;
  assert.equal(res.code, 0, res.stderr);
  checkResult(res.stdout, { W: 4, N: 10, P: 9, M: 3 });
  assert.equal((await srv.done).code, 0);
});

test('client: warmup + round trips beyond 2^53 is unsupported (127)', async () => {
  const res = await run([
    ...NODE_CLIENT,
    '--connect', '127.0.0.1:1', '--warmup', '9007199254740992', '--round-trips', '1', '--payload-bytes', '0', '--max-in-flight', '1',
  ]).done;
  assert.equal(res.code, 127);
  assert.equal(res.stdout, '');
});

test('client: connection refused is one line and a non-zero exit', async () => {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  const res = await run([...NODE_CLIENT, ...clientArgs(port, { W: 0, N: 1, P: 0, M: 1 })]).done;
  assert.notEqual(res.code, 0);
  assert.equal(res.stdout, '');
  assert.equal(res.stderr.split('\n').length, 2, res.stderr);
});

for (const args of [[], ['--listen'], ['--listen', '127.0.0.1'], ['--listen', '127.0.0.1:0', '--extra', 'x'], ['--port', '0'], ['--listen', '::1:0'], ['--listen', '[127.0.0.1]:0']]) {
  test(`server flags [${args.join(' ')}]: exit 2`, async () => {
    const res = await run([...NODE_SERVER, ...args]).done;
    assert.equal(res.code, 2);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr.split('\n').length, 2, res.stderr);
  });
}

test('server serves one connection only and closes its listener', { timeout: TIMEOUT }, async () => {
  const srv = await startServer(NODE_SERVER);
  const first = net.connect({ host: '127.0.0.1', port: srv.port });
  first.on('error', () => {});
  await new Promise((resolve) => first.on('connect', resolve));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = net.connect({ host: '127.0.0.1', port: srv.port });
  const refused = await new Promise((resolve) => {
    second.on('error', (e) => resolve(e.code));
    second.on('close', () => resolve('closed'));
  });
  assert.ok(['ECONNREFUSED', 'ECONNRESET', 'closed'].includes(refused), refused);
  first.end();
  const res = await srv.done;
  assert.notEqual(res.code, 0);
  stderrLine(res, 'unexpected_eof');
});
