'use strict';
// SPEC.md section 7's cost figures: lib/histogram.js against
// protocol/vectors/histogram.json (bucket bounds of chosen values, and
// histograms with their merge and percentiles), and where the client's
// latencies and both peers' CPU windows come from.

const test = require('node:test');
const assert = require('node:assert/strict');

const hist = require('../lib/histogram');
const { loadCases } = require('./helpers');

const { Histogram, index, lower, width } = hist;

const cases = loadCases('histogram.json');
const bucketCases = cases.filter((c) => c.kind === 'bucket');
const histogramCases = cases.filter((c) => c.kind === 'histogram');

test('histogram.json has both kinds of case', () => {
  assert.ok(bucketCases.length > 0);
  assert.ok(histogramCases.length > 0);
  assert.equal(bucketCases.length + histogramCases.length, cases.length);
});

test('histogram.json buckets: index, lower and width of each value', () => {
  for (const c of bucketCases) {
    const v = BigInt(c.value);
    const i = index(v);
    assert.equal(i, c.index, `index(${c.value})`);
    // Exact as Numbers for every bucket (8 significant bits at most).
    assert.equal(BigInt(lower(i)), BigInt(c.lower), `lower(${i})`);
    assert.equal(BigInt(width(i)), BigInt(c.width), `width(${i})`);
    assert.ok(BigInt(lower(i)) <= v && v < BigInt(lower(i)) + BigInt(width(i)), `${c.value} in bucket ${i}`);
    // The Number path agrees wherever the value is one.
    if (v <= BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(index(Number(v)), c.index, `index(${c.value}) as a Number`);
  }
});

test('index, lower and width agree at every bucket boundary', () => {
  assert.equal(index(2n ** 63n - 1n), hist.BUCKETS - 1);
  for (let i = 0; i < hist.BUCKETS; i++) {
    const lo = BigInt(lower(i));
    const w = BigInt(width(i));
    assert.equal(index(lo), i, `index(lower(${i}))`);
    assert.equal(index(lo + w - 1n), i, `index(lower(${i}) + width - 1)`);
    if (i + 1 < hist.BUCKETS) assert.equal(BigInt(lower(i + 1)), lo + w, `bucket ${i + 1} follows ${i}`);
    if (lo + w - 1n <= BigInt(Number.MAX_SAFE_INTEGER)) {
      assert.equal(index(Number(lo)), i);
      assert.equal(index(Number(lo + w - 1n)), i);
    }
  }
});

function build(values) {
  const h = new Histogram();
  for (const v of values) h.record(Number(v));
  return h;
}

// A histogram against its vector: every figure, 64-bit ones compared as
// decimal strings.
function check(h, want, label) {
  const r = h.toResult();
  assert.equal(String(r.count), want.count, `${label} count`);
  assert.equal(String(r.min), want.min, `${label} min`);
  assert.equal(String(r.max), want.max, `${label} max`);
  assert.deepEqual(
    r.buckets.map(([i, n]) => [i, String(n)]),
    want.buckets,
    `${label} buckets`
  );
  for (const [name] of hist.PERCENTILES) assert.equal(String(r[name]), want[name], `${label} ${name}`);
}

for (const c of histogramCases) {
  test(`histogram.json ${c.name}: a, b, their merge, and all values in one`, () => {
    for (const v of [...c.a_values, ...c.b_values]) {
      assert.ok(BigInt(v) <= BigInt(Number.MAX_SAFE_INTEGER), `${v} is a safe integer`);
    }
    const a = build(c.a_values);
    const b = build(c.b_values);
    check(a, c.a, 'a');
    check(b, c.b, 'b');
    check(build([...c.a_values, ...c.b_values]), c.merged, 'a and b recorded together');
    a.merge(b);
    check(a, c.merged, 'a merged with b');
    const empty = new Histogram();
    empty.merge(b);
    check(empty, c.b, 'b merged into an empty histogram');
  });
}

test('an empty histogram: null figures, no buckets', () => {
  assert.deepEqual(new Histogram().toResult(), {
    count: 0,
    min: null,
    max: null,
    p50: null,
    p90: null,
    p99: null,
    p99_9: null,
    buckets: [],
  });
});

test('rank is ceil(q * count / 100000), at least 1, exact for large counts', () => {
  assert.equal(hist.rank(1, 50000), 1);
  assert.equal(hist.rank(2, 50000), 1);
  assert.equal(hist.rank(3, 50000), 2);
  assert.equal(hist.rank(1000, 99900), 999);
  assert.equal(hist.rank(1001, 99900), 1000);
  assert.equal(hist.rank(0, 50000), 1);
  const big = Number.MAX_SAFE_INTEGER;
  const want = (BigInt(big) * 99900n + 99999n) / 100000n;
  assert.equal(BigInt(hist.rank(big, 99900)), want);
});

test('a negative latency counts as 0', () => {
  const h = new Histogram();
  h.record(-5);
  assert.equal(h.min, 0);
  assert.deepEqual(h.buckets(), [[0, 1]]);
});

test('the client times each measured round trip from its write to the read of its response', () => {
  const codec = require('../lib/codec');
  const { ClientSession } = require('../lib/client');
  const { T } = codec;
  const w = { warmup: 2n, roundTrips: 3n, payloadBytes: 4, maxInFlight: 2 };
  let t = 1000n;
  const cpus = [
    { user: 100, system: 10 },
    { user: 175, system: 13 },
  ];
  const cl = new ClientSession(w, () => t, () => cpus.shift());
  const respond = (i) => codec.encodeFrame(T.RESPONSE, i, codec.respond(codec.gen(i, 4)));
  const produce = () => {
    const out = cl.produce(1 << 20);
    if (out !== null && cl.lastPooled) cl.pool.release(out);
    return out;
  };
  cl.hello();
  cl.onData(codec.encodeFrame(T.HELLO_ACK, 0, codec.encodeWorkload(w)));
  produce(); // warm-up requests 1 and 2, not timed
  t = 2000n;
  cl.onData(Buffer.concat([respond(1), respond(2)]));
  produce(); // requests 3 and 4, sent at 2000 (t0)
  t = 2500n;
  cl.onData(respond(3));
  produce(); // request 5, sent at 2500
  t = 2800n;
  cl.onData(Buffer.concat([respond(4), respond(5)]));
  const r = cl.result();
  assert.equal(r.elapsed_ns, 800);
  assert.equal(r.cpu_user_us, 75);
  assert.equal(r.cpu_system_us, 3);
  assert.deepEqual(r.latency, {
    count: 3,
    min: 300,
    max: 800,
    p50: 500,
    p90: 800,
    p99: 800,
    p99_9: 800,
    buckets: [
      [index(300), 1],
      [index(500), 1],
      [index(800), 1],
    ],
  });
});

test('the server times its CPU from the read that delivers request W + 1 to the read of BYE', () => {
  const codec = require('../lib/codec');
  const { ServerSession } = require('../lib/server');
  const { T } = codec;
  const w = { warmup: 1n, roundTrips: 2n, payloadBytes: 3, maxInFlight: 2 };
  const reads = [];
  const cpus = [
    { user: 1000, system: 50 },
    { user: 1040, system: 59 },
  ];
  const s = new ServerSession(() => {
    reads.push(s.received);
    return cpus.shift();
  });
  const req = (i) => codec.encodeFrame(T.REQUEST, i, codec.gen(i, 3));
  s.onData(codec.encodeFrame(T.HELLO, 0, codec.encodeWorkload(w)));
  s.onData(req(1));
  const r2 = req(2);
  s.onData(r2.subarray(0, 5)); // the window starts here, before request 2 is whole
  s.onData(Buffer.concat([r2.subarray(5), req(3)]));
  s.onData(codec.encodeFrame(T.BYE, 4, codec.encodeCounts(codec.expectedCounts(w, false))));
  s.onEnd();
  assert.deepEqual(reads, [1, 3]);
  const r = s.result();
  assert.equal(r.cpu_user_us, 40);
  assert.equal(r.cpu_system_us, 9);
  assert.equal(r.frames_sent, 5);
  assert.equal(r.frames_received, 5);
});
