'use strict';
// Shared by the tests: the repository root, the vectors, chunkings,
// receivers built in the states of protocol/vectors/README.md, and the
// lane's programs run as the runner runs them.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const codec = require('../lib/codec');
const { ServerSession } = require('../lib/server');
const { ClientSession } = require('../lib/client');
const { FrameParser } = require('../lib/receiver');

const ROOT = process.env.CROSSRUN_ROOT
  ? path.resolve(process.env.CROSSRUN_ROOT)
  : path.resolve(__dirname, '..', '..', '..');
const VECTORS = path.join(ROOT, 'protocol', 'vectors');
const LANE = path.resolve(__dirname, '..');

function loadCases(file) {
  return JSON.parse(fs.readFileSync(path.join(VECTORS, file), 'utf8')).cases;
}

function hex(s) {
  return Buffer.from(s, 'hex');
}

function workloadOf(j) {
  return {
    warmup: BigInt(j.warmup),
    roundTrips: BigInt(j.round_trips),
    payloadBytes: j.payload_bytes,
    maxInFlight: j.max_in_flight,
  };
}

// A small deterministic PRNG (xorshift32) for reproducible random splits.
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

// Ways to cut `buf` into reads: whole, every byte apart, fixed sizes, and
// seeded random sizes. Each chunk is a fresh copy, as a socket read is.
function chunkings(buf, { byteByByte = true } = {}) {
  const out = [];
  const cut = (label, sizes) => {
    const chunks = [];
    let pos = 0;
    let i = 0;
    while (pos < buf.length) {
      const size = Math.max(1, sizes(i++));
      chunks.push(Buffer.from(buf.subarray(pos, pos + size)));
      pos += size;
    }
    out.push({ label, chunks });
  };
  cut('whole', () => buf.length);
  if (byteByByte) cut('1-byte', () => 1);
  for (const n of [2, 3, 7, 15, 16, 17, 41]) cut(`${n}-byte`, () => n);
  for (const seed of [1, 2, 3]) {
    const r = rng(seed);
    cut(`random-${seed}`, () => 1 + Math.floor(r() * 100));
  }
  return out;
}

// Splits a stream of whole frames into the frames' byte ranges.
function frameRanges(buf) {
  const ranges = [];
  let pos = 0;
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos + 4);
    ranges.push({ start: pos, end: pos + 16 + len, type: buf[pos + 1] });
    pos += 16 + len;
  }
  return ranges;
}

// A client driven as the bin drives it: after every read it sends what
// the session allows. Returns every byte it sent.
function pumpClient(client, sent) {
  for (;;) {
    const out = client.produce(256 * 1024);
    if (out === null) return;
    sent.push(Buffer.from(out));
    if (client.lastPooled) client.pool.release(out);
  }
}

// Builds a receiver in one of the states of protocol/vectors/README.md.
// Returns { feed(chunk), end() } which throw the receiver's rejections.
function receiverIn(state, c) {
  if (state === 'any') {
    const p = new FrameParser();
    return { feed: (b) => p.onData(b), end: () => p.onEnd() };
  }
  const w = c.workload ? workloadOf(c.workload) : null;
  const wlBytes = w ? codec.encodeWorkload(w) : null;
  const total = w ? Number(w.warmup + w.roundTrips) : 0;
  const P = w ? w.payloadBytes : 0;
  if (state.startsWith('server_')) {
    const s = new ServerSession();
    if (state === 'server_expecting_request' || state === 'server_after_bye') {
      s.onData(codec.encodeFrame(codec.T.HELLO, 0, wlBytes));
      const seq = state === 'server_after_bye' ? total + 1 : Number(c.sequence);
      for (let i = 1; i < seq; i++) s.onData(codec.encodeFrame(codec.T.REQUEST, i, codec.gen(i, P)));
      if (state === 'server_after_bye') {
        const bye = codec.encodeCounts(codec.expectedCounts(w, false));
        s.onData(codec.encodeFrame(codec.T.BYE, BigInt(total + 1), bye));
        if (!s.done) throw new Error('no BYE_ACK');
      }
    } else if (state !== 'server_expecting_hello') {
      throw new Error(`unknown state ${state}`);
    }
    return { feed: (b) => s.onData(b), end: () => s.onEnd(), session: s };
  }
  const cl = new ClientSession(w, () => 0n);
  const sent = [];
  cl.hello();
  const respond = (i) => codec.encodeFrame(codec.T.RESPONSE, i, codec.respond(codec.gen(i, P)));
  if (state === 'client_expecting_response' || state === 'client_expecting_bye_ack') {
    cl.onData(codec.encodeFrame(codec.T.HELLO_ACK, 0, wlBytes));
    pumpClient(cl, sent);
    const upto = state === 'client_expecting_bye_ack' ? total + 1 : Number(c.sequence);
    for (let i = 1; i < upto; i++) {
      cl.onData(respond(i));
      pumpClient(cl, sent);
    }
  } else if (state !== 'client_expecting_hello_ack') {
    throw new Error(`unknown state ${state}`);
  }
  return {
    feed: (b) => {
      cl.onData(b);
      pumpClient(cl, sent);
    },
    end: () => cl.onEnd(),
    session: cl,
  };
}

// Runs argv with a fresh TMPDIR that must be empty again at exit, as the
// runner gives every peer. Resolves to { code, signal, stdout, stderr }.
function run(argv, { onStdout } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crossrun-node-test-'));
  const env = { ...process.env, TMPDIR: tmp, TEMP: tmp, TMP: tmp };
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    stdout += d;
    if (onStdout) onStdout(stdout);
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const left = fs.readdirSync(tmp);
      fs.rmSync(tmp, { recursive: true, force: true });
      resolve({ code, signal, stdout, stderr, tmpLeft: left });
    });
  });
  return { child, done };
}

// host:port as the runner gives it to a peer: an IPv6 host in brackets.
function endpoint(host, port) {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

// Starts a server command on host; resolves once READY is printed.
async function startServer(argv, host = '127.0.0.1') {
  let ready;
  const portP = new Promise((resolve) => {
    ready = resolve;
  });
  const r = run([...argv, '--listen', endpoint(host, 0)], {
    onStdout: (out) => {
      const m = /^READY (\d+)\n/.exec(out);
      if (m) ready(Number(m[1]));
    },
  });
  const early = r.done.then((res) => {
    throw new Error(`server exited before READY: ${JSON.stringify(res)}`);
  });
  const port = await Promise.race([portP, early]);
  early.catch(() => {});
  return { port, done: r.done, child: r.child };
}

const SESSION_STATES = [
  'server_expecting_hello',
  'server_expecting_request',
  'server_after_bye',
  'client_expecting_hello_ack',
  'client_expecting_response',
  'client_expecting_bye_ack',
];

module.exports = {
  ROOT,
  VECTORS,
  LANE,
  loadCases,
  hex,
  workloadOf,
  rng,
  chunkings,
  frameRanges,
  pumpClient,
  receiverIn,
  SESSION_STATES,
  run,
  endpoint,
  startServer,
};
