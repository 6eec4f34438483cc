'use strict';
// The codec against protocol/vectors/payloads.json and frames.json, and the
// 32-bit-halves generator against a BigInt reference.

const test = require('node:test');
const assert = require('node:assert/strict');

const codec = require('../lib/codec');
const { loadCases, hex, workloadOf, rng } = require('./helpers');

const { T } = codec;

test('payloads.json: gen, respond and both checkers', () => {
  const cases = loadCases('payloads.json');
  assert.ok(cases.length > 300);
  for (const c of cases) {
    const seq = BigInt(c.sequence);
    const want = hex(c.payload);
    const resp = hex(c.response);
    const name = `(${c.sequence}, ${c.length})`;
    assert.equal(codec.gen(seq, c.length).toString('hex'), c.payload, name);
    assert.equal(codec.respond(want).toString('hex'), c.response, name);
    // Safe-integer seeds take the Number path of the generator.
    if (seq <= BigInt(Number.MAX_SAFE_INTEGER)) {
      assert.equal(codec.gen(Number(seq), c.length).toString('hex'), c.payload, name);
    }
    const masked = Buffer.alloc(c.length + 5);
    codec.fillPayload(masked, 3, c.length, seq, codec.RESPONSE_MASK);
    assert.equal(masked.subarray(3, 3 + c.length).toString('hex'), c.response, name);
    assert.ok(codec.checkPayload(want, 0, c.length, seq, 0), name);
    assert.ok(codec.checkPayload(resp, 0, c.length, seq, codec.RESPONSE_MASK), name);
    if (c.length > 0) {
      assert.ok(!codec.checkPayload(resp, 0, c.length, seq, 0), name);
      assert.ok(!codec.checkPayload(want, 0, c.length, seq, codec.RESPONSE_MASK), name);
    }
    const inPlace = Buffer.from(want);
    assert.ok(codec.checkAndRespond(inPlace, 0, c.length, seq), name);
    assert.equal(inPlace.toString('hex'), c.response, name);
  }
});

test('payloads.json: every single-bit flip is caught', () => {
  for (const c of loadCases('payloads.json')) {
    if (c.length === 0 || c.length > 100) continue;
    const seq = BigInt(c.sequence);
    for (let i = 0; i < c.length; i++) {
      const bad = hex(c.payload);
      bad[i] ^= 1 << (i % 8);
      assert.ok(!codec.checkPayload(bad, 0, c.length, seq, 0));
      assert.ok(!codec.checkAndRespond(bad, 0, c.length, seq));
      const badResp = hex(c.response);
      badResp[i] ^= 0x80 >> (i % 8);
      assert.ok(!codec.checkPayload(badResp, 0, c.length, seq, codec.RESPONSE_MASK));
    }
  }
});

const MASK64 = (1n << 64n) - 1n;
function referenceGen(seq, len) {
  let state = BigInt(seq) & MASK64;
  const out = Buffer.alloc(len);
  for (let i = 0; i < len; ) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    for (let k = 0; k < 8 && i < len; k++, i++) out[i] = Number((z >> BigInt(8 * k)) & 0xffn);
  }
  return out;
}

test('generator matches a BigInt splitmix64 over random 64-bit seeds', () => {
  const r = rng(12345);
  const word = () => BigInt(Math.floor(r() * 4294967296));
  for (let t = 0; t < 3000; t++) {
    const seq = (word() << 32n) | word();
    const len = Math.floor(r() * 80);
    assert.equal(codec.gen(seq, len).toString('hex'), referenceGen(seq, len).toString('hex'), `seed ${seq}`);
  }
  for (let t = 0; t < 3000; t++) {
    const seq = Math.floor(r() * Number.MAX_SAFE_INTEGER);
    assert.equal(codec.gen(seq, 24).toString('hex'), referenceGen(seq, 24).toString('hex'), `seed ${seq}`);
  }
});

function frameFromFields(c) {
  let payload;
  switch (c.type) {
    case T.HELLO:
    case T.HELLO_ACK:
      payload = codec.encodeWorkload(workloadOf(c.workload));
      break;
    case T.REQUEST:
      payload = codec.gen(BigInt(c.sequence), c.payload_length);
      break;
    case T.RESPONSE:
      payload = codec.respond(codec.gen(BigInt(c.sequence), c.payload_length));
      break;
    case T.BYE:
    case T.BYE_ACK:
      payload = codec.encodeCounts({
        requests: BigInt(c.counts.requests),
        responses: BigInt(c.counts.responses),
        bytesSent: BigInt(c.counts.bytes_sent),
        bytesReceived: BigInt(c.counts.bytes_received),
      });
      break;
    case T.ERROR:
      return codec.encodeError(c.code, c.reason);
    default:
      throw new Error(`type ${c.type}`);
  }
  return codec.encodeFrame(c.type, BigInt(c.sequence), payload);
}

test('frames.json: encode from the fields, decode every field', () => {
  const cases = loadCases('frames.json');
  assert.ok(cases.length >= 7);
  const seen = new Set();
  for (const c of cases) {
    seen.add(c.type);
    const frame = hex(c.frame);
    assert.equal(frameFromFields(c).toString('hex'), c.frame, c.name);
    // Decode.
    assert.equal(codec.headerRejection(frame, 0), null, c.name);
    assert.equal(frame[0], c.version, c.name);
    assert.equal(frame[1], c.type, c.name);
    assert.equal(codec.typeName(frame[1]), c.type_name, c.name);
    assert.equal(frame.readUInt16BE(2), c.flags, c.name);
    assert.equal(frame.readUInt32BE(4), c.payload_length, c.name);
    assert.equal(codec.readSequence(frame, 0), BigInt(c.sequence), c.name);
    const payload = frame.subarray(16);
    assert.equal(payload.toString('hex'), c.payload, c.name);
    if (c.workload) {
      const w = codec.decodeWorkload(payload);
      assert.deepEqual(w, workloadOf(c.workload), c.name);
    }
    if (c.counts) {
      const k = codec.decodeCounts(payload);
      assert.equal(k.requests, BigInt(c.counts.requests), c.name);
      assert.equal(k.responses, BigInt(c.counts.responses), c.name);
      assert.equal(k.bytesSent, BigInt(c.counts.bytes_sent), c.name);
      assert.equal(k.bytesReceived, BigInt(c.counts.bytes_received), c.name);
      // The counts that close a session of `session`, modulo 2^64.
      if (c.session) assert.deepEqual(codec.expectedCounts(workloadOf(c.session), c.type === T.BYE_ACK), k, c.name);
    }
    if (c.type === T.ERROR) {
      assert.deepEqual(codec.decodeError(payload), { code: c.code, reason: c.reason }, c.name);
    }
    if (c.type === T.REQUEST) {
      assert.ok(codec.checkPayload(payload, 0, c.payload_length, BigInt(c.sequence), 0), c.name);
    }
    if (c.type === T.RESPONSE) {
      assert.ok(codec.checkPayload(payload, 0, c.payload_length, BigInt(c.sequence), codec.RESPONSE_MASK), c.name);
    }
    // The hot-path header writer agrees for safe-integer sequences.
    if (BigInt(c.sequence) <= BigInt(Number.MAX_SAFE_INTEGER)) {
      const h = Buffer.alloc(16);
      codec.writeHeader(h, 0, c.type, Number(c.sequence), c.payload_length);
      assert.equal(h.toString('hex'), c.frame.slice(0, 32), c.name);
    }
  }
  for (let t = 1; t <= 7; t++) assert.ok(seen.has(t), `frames.json covers type ${t}`);
});

test('workload rules', () => {
  const ok = { warmup: 0n, roundTrips: 1n, payloadBytes: 0, maxInFlight: 1 };
  assert.equal(codec.workloadProblem(ok), null);
  assert.equal(codec.workloadProblem({ ...ok, warmup: (1n << 62n) - 2n }), null);
  assert.equal(codec.workloadProblem({ ...ok, payloadBytes: 1048576, maxInFlight: 65536 }), null);
  assert.notEqual(codec.workloadProblem({ ...ok, roundTrips: 0n }), null);
  assert.notEqual(codec.workloadProblem({ ...ok, warmup: (1n << 62n) - 1n }), null);
  assert.notEqual(codec.workloadProblem({ ...ok, payloadBytes: 1048577 }), null);
  assert.notEqual(codec.workloadProblem({ ...ok, maxInFlight: 0 }), null);
  assert.notEqual(codec.workloadProblem({ ...ok, maxInFlight: 65537 }), null);
});

test('ERROR reasons are cut at 512 bytes on a character boundary', () => {
  const long = 'é'.repeat(300); // 600 bytes of UTF-8
  const f = codec.encodeError(3, long);
  assert.equal(codec.headerRejection(f, 0), null);
  const { code, reason } = codec.decodeError(f.subarray(16));
  assert.equal(code, 3);
  assert.equal(reason, 'é'.repeat(256));
  assert.equal(f.length, 16 + 2 + 512);
});
