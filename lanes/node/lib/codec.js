'use strict';
// The crossrun wire protocol (protocol/SPEC.md): frame headers, the
// splitmix64 payload generator, workload, counts and ERROR payloads.
//
// The generator works on 32-bit halves so the per-frame paths never touch
// BigInt; 64-bit values that are not on the hot path (workload fields,
// counts, BYE sequences) are BigInt.

const VERSION = 1;
const HEADER_BYTES = 16;
const MAX_PAYLOAD_BYTES = 1048576;
const MAX_FRAME_BYTES = HEADER_BYTES + MAX_PAYLOAD_BYTES;
const MAX_IN_FLIGHT = 65536;
const WORKLOAD_BYTES = 24;
const COUNTS_BYTES = 32;
const MAX_REASON_BYTES = 512;
const RESPONSE_MASK = 0x5a;
const HELLO_FRAME_BYTES = HEADER_BYTES + WORKLOAD_BYTES;
const BYE_FRAME_BYTES = HEADER_BYTES + COUNTS_BYTES;
const WORKLOAD_SUM_LIMIT = 1n << 62n;
const U64 = (1n << 64n) - 1n;

const T = Object.freeze({
  HELLO: 1,
  HELLO_ACK: 2,
  REQUEST: 3,
  RESPONSE: 4,
  BYE: 5,
  BYE_ACK: 6,
  ERROR: 7,
});

const TYPE_NAMES = ['type 0', 'HELLO', 'HELLO_ACK', 'REQUEST', 'RESPONSE', 'BYE', 'BYE_ACK', 'ERROR'];

function typeName(type) {
  return type >= 1 && type <= 7 ? TYPE_NAMES[type] : `type ${type}`;
}

// Rejection names of SPEC.md section 6.
const REJECTIONS = Object.freeze([
  'unsupported_version',
  'unknown_type',
  'bad_flags',
  'frame_too_large',
  'bad_length',
  'truncated',
  'unexpected_eof',
  'unexpected_type',
  'wrong_sequence',
  'wrong_payload',
  'bad_workload',
  'count_mismatch',
  'peer_error',
]);

// ERROR frame codes of SPEC.md section 2.
const CODE = Object.freeze({
  unsupported_version: 1,
  bad_workload: 2,
  protocol_violation: 3,
  count_mismatch: 4,
});
const CODE_NAMES = ['code 0', 'unsupported_version', 'bad_workload', 'protocol_violation', 'count_mismatch'];

function codeName(code) {
  return code >= 1 && code <= 4 ? CODE_NAMES[code] : `code ${code}`;
}

function codeFor(rejection) {
  switch (rejection) {
    case 'unsupported_version':
      return CODE.unsupported_version;
    case 'bad_workload':
      return CODE.bad_workload;
    case 'count_mismatch':
      return CODE.count_mismatch;
    default:
      return CODE.protocol_violation;
  }
}

// A rejection of SPEC.md section 6: `rejection` is the spec's name,
// `message` says what was seen. `peerCode`/`peerReason` are set for
// peer_error.
class ProtocolError extends Error {
  constructor(rejection, detail) {
    super(`${rejection}: ${detail}`);
    this.name = 'ProtocolError';
    this.rejection = rejection;
    this.detail = detail;
  }
}

// ---------------------------------------------------------------------------
// Headers

// The header checks of SPEC.md section 1, in the order listed there.
// Returns null, or the rejection name. Needs 16 bytes at buf[off].
function headerRejection(buf, off) {
  if (buf[off] !== VERSION) return 'unsupported_version';
  const type = buf[off + 1];
  if (type < 1 || type > 7) return 'unknown_type';
  if (buf[off + 2] !== 0 || buf[off + 3] !== 0) return 'bad_flags';
  const len = buf.readUInt32BE(off + 4);
  if (len > MAX_PAYLOAD_BYTES) return 'frame_too_large';
  switch (type) {
    case T.HELLO:
    case T.HELLO_ACK:
      if (len !== WORKLOAD_BYTES) return 'bad_length';
      break;
    case T.BYE:
    case T.BYE_ACK:
      if (len !== COUNTS_BYTES) return 'bad_length';
      break;
    case T.ERROR:
      // Not a fixed length, but its bounds are known from the header alone.
      if (len < 2 || len > 2 + MAX_REASON_BYTES) return 'bad_length';
      break;
    default:
      break;
  }
  return null;
}

// A one-line description of the header at buf[off] for error lines.
function describeHeader(buf, off) {
  return (
    `version ${buf[off]}, ${typeName(buf[off + 1])}, flags ${buf.readUInt16BE(off + 2)}, ` +
    `length ${buf.readUInt32BE(off + 4)}, sequence ${buf.readBigUInt64BE(off + 8)}`
  );
}

// Throws the header's rejection, if any.
function checkHeader(buf, off) {
  const r = headerRejection(buf, off);
  if (r !== null) throw new ProtocolError(r, `header: ${describeHeader(buf, off)}`);
}

function readSequence(buf, off) {
  return buf.readBigUInt64BE(off + 8);
}

// Writes a header; `seq` is a Number (a safe integer) on the hot path.
function writeHeader(buf, off, type, seq, len) {
  buf[off] = VERSION;
  buf[off + 1] = type;
  buf[off + 2] = 0;
  buf[off + 3] = 0;
  buf[off + 4] = len >>> 24;
  buf[off + 5] = len >>> 16;
  buf[off + 6] = len >>> 8;
  buf[off + 7] = len;
  const hi = Math.floor(seq / 4294967296);
  const lo = seq >>> 0;
  buf[off + 8] = hi >>> 24;
  buf[off + 9] = hi >>> 16;
  buf[off + 10] = hi >>> 8;
  buf[off + 11] = hi;
  buf[off + 12] = lo >>> 24;
  buf[off + 13] = lo >>> 16;
  buf[off + 14] = lo >>> 8;
  buf[off + 15] = lo;
}

// A whole frame in a new Buffer; `seq` is a BigInt or a Number.
function encodeFrame(type, seq, payload) {
  const len = payload ? payload.length : 0;
  const out = Buffer.allocUnsafe(HEADER_BYTES + len);
  out[0] = VERSION;
  out[1] = type;
  out.writeUInt16BE(0, 2);
  out.writeUInt32BE(len, 4);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(seq)), 8);
  if (len) payload.copy(out, HEADER_BYTES);
  return out;
}

// ---------------------------------------------------------------------------
// The payload generator (SPEC.md section 4), on 32-bit halves.
//
// splitmix64 needs additions, shifts, xors and two multiplications by
// 64-bit constants, all modulo 2^64. With a = ah:al and b = bh:bl,
//   a * b mod 2^64 = al*bl + ((ah*bl + al*bh) mod 2^32) << 32
// where the high half of the full 64-bit product al*bl comes from 16-bit
// limbs (every partial product below 2^32, every sum below 2^53, so all
// exact in doubles) and Math.imul gives the low halves.

const GAMMA_LO = 0x7f4a7c15;
const GAMMA_HI = 0x9e3779b9;
const M1_LO = 0x1ce4e5b9;
const M1_HI = 0xbf58476d;
const M2_LO = 0x133111eb;
const M2_HI = 0x94d049bb;
const M1_L0 = M1_LO & 0xffff;
const M1_L1 = M1_LO >>> 16;
const M2_L0 = M2_LO & 0xffff;
const M2_L1 = M2_LO >>> 16;

// The two loops below share one block computation, written out in each
// (the per-frame paths: everything stays in local variables, and a shared
// helper or a mode switch measurably slows them down). The seed is
// seedHi:seedLo; each pass of a loop advances the state sHi:sLo and makes
// block zHi:zLo.

// Writes gen(seed, len) XOR `mask` (0 or 0x5A) to buf[off .. off + len).
function fillBlocks(buf, off, len, seedHi, seedLo, mask) {
  // Locals, not the parameters, hold the state: V8 keeps them as
  // untagged 32-bit values (reassigned parameters cost a third more).
  let sHi = seedHi >>> 0;
  let sLo = seedLo >>> 0;
  const end = off + len;
  let i = off;
  while (i < end) {
    // state += gamma
    let lo = sLo + GAMMA_LO;
    sHi = (sHi + GAMMA_HI + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    sLo = lo >>> 0;
    // z = state ^ (state >> 30)
    lo = (sLo ^ ((sLo >>> 30) | (sHi << 2))) >>> 0;
    let hi = (sHi ^ (sHi >>> 30)) >>> 0;
    // z *= 0xBF58476D1CE4E5B9 (high half of lo * M1_LO from 16-bit limbs)
    let a0 = lo & 0xffff;
    let a1 = lo >>> 16;
    let p00 = a0 * M1_L0;
    let p01 = a0 * M1_L1;
    let p10 = a1 * M1_L0;
    let mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    let carry = a1 * M1_L1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
    let nhi = (carry + Math.imul(hi, M1_LO) + Math.imul(lo, M1_HI)) >>> 0;
    let nlo = Math.imul(lo, M1_LO) >>> 0;
    // z ^= z >> 27
    lo = (nlo ^ ((nlo >>> 27) | (nhi << 5))) >>> 0;
    hi = (nhi ^ (nhi >>> 27)) >>> 0;
    // z *= 0x94D049BB133111EB
    a0 = lo & 0xffff;
    a1 = lo >>> 16;
    p00 = a0 * M2_L0;
    p01 = a0 * M2_L1;
    p10 = a1 * M2_L0;
    mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    carry = a1 * M2_L1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
    nhi = (carry + Math.imul(hi, M2_LO) + Math.imul(lo, M2_HI)) >>> 0;
    nlo = Math.imul(lo, M2_LO) >>> 0;
    // z ^= z >> 31: the block is zHi:zLo, bytes least significant first
    const zLo = nlo ^ ((nlo >>> 31) | (nhi << 1));
    const zHi = nhi ^ (nhi >>> 31);
    if (end - i >= 8) {
      buf[i] = zLo ^ mask;
      buf[i + 1] = (zLo >>> 8) ^ mask;
      buf[i + 2] = (zLo >>> 16) ^ mask;
      buf[i + 3] = (zLo >>> 24) ^ mask;
      buf[i + 4] = zHi ^ mask;
      buf[i + 5] = (zHi >>> 8) ^ mask;
      buf[i + 6] = (zHi >>> 16) ^ mask;
      buf[i + 7] = (zHi >>> 24) ^ mask;
      i += 8;
    } else {
      // The last block, cut to fit.
      let l = zLo;
      let h = zHi;
      for (; i < end; i++) {
        buf[i] = l ^ mask;
        l = (l >>> 8) | (h << 24);
        h >>>= 8;
      }
    }
  }
}

// Compares buf[off .. off + len) with gen(seed, len) XOR `mask` (0 or
// 0x5A), 32-bit words at a time; with `respond`, also XORs each matching
// block with 0x5A in place. Returns false at the first difference.
function checkBlocks(buf, off, len, seedHi, seedLo, mask, respond) {
  let sHi = seedHi >>> 0;
  let sLo = seedLo >>> 0;
  const mask32 = (mask | (mask << 8) | (mask << 16) | (mask << 24)) | 0;
  const end = off + len;
  let i = off;
  while (i < end) {
    // state += gamma
    let lo = sLo + GAMMA_LO;
    sHi = (sHi + GAMMA_HI + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    sLo = lo >>> 0;
    // z = state ^ (state >> 30)
    lo = (sLo ^ ((sLo >>> 30) | (sHi << 2))) >>> 0;
    let hi = (sHi ^ (sHi >>> 30)) >>> 0;
    // z *= 0xBF58476D1CE4E5B9 (high half of lo * M1_LO from 16-bit limbs)
    let a0 = lo & 0xffff;
    let a1 = lo >>> 16;
    let p00 = a0 * M1_L0;
    let p01 = a0 * M1_L1;
    let p10 = a1 * M1_L0;
    let mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    let carry = a1 * M1_L1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
    let nhi = (carry + Math.imul(hi, M1_LO) + Math.imul(lo, M1_HI)) >>> 0;
    let nlo = Math.imul(lo, M1_LO) >>> 0;
    // z ^= z >> 27
    lo = (nlo ^ ((nlo >>> 27) | (nhi << 5))) >>> 0;
    hi = (nhi ^ (nhi >>> 27)) >>> 0;
    // z *= 0x94D049BB133111EB
    a0 = lo & 0xffff;
    a1 = lo >>> 16;
    p00 = a0 * M2_L0;
    p01 = a0 * M2_L1;
    p10 = a1 * M2_L0;
    mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    carry = a1 * M2_L1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
    nhi = (carry + Math.imul(hi, M2_LO) + Math.imul(lo, M2_HI)) >>> 0;
    nlo = Math.imul(lo, M2_LO) >>> 0;
    // z ^= z >> 31: the block is zHi:zLo, bytes least significant first
    const zLo = nlo ^ ((nlo >>> 31) | (nhi << 1));
    const zHi = nhi ^ (nhi >>> 31);
    if (end - i >= 8) {
      const wLo = buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
      const wHi = buf[i + 4] | (buf[i + 5] << 8) | (buf[i + 6] << 16) | (buf[i + 7] << 24);
      if ((wLo ^ mask32) !== zLo || (wHi ^ mask32) !== zHi) return false;
      if (respond) {
        buf[i] ^= 0x5a;
        buf[i + 1] ^= 0x5a;
        buf[i + 2] ^= 0x5a;
        buf[i + 3] ^= 0x5a;
        buf[i + 4] ^= 0x5a;
        buf[i + 5] ^= 0x5a;
        buf[i + 6] ^= 0x5a;
        buf[i + 7] ^= 0x5a;
      }
      i += 8;
    } else {
      let l = zLo;
      let h = zHi;
      for (; i < end; i++) {
        if (buf[i] !== ((l ^ mask) & 0xff)) return false;
        if (respond) buf[i] ^= 0x5a;
        l = (l >>> 8) | (h << 24);
        h >>>= 8;
      }
    }
  }
  return true;
}

function seedHi(seq) {
  return typeof seq === 'bigint' ? Number(BigInt.asUintN(64, seq) >> 32n) : Math.floor(seq / 4294967296) >>> 0;
}

function seedLo(seq) {
  return typeof seq === 'bigint' ? Number(seq & 0xffffffffn) : seq >>> 0;
}

// Writes gen(seq, len) with every byte XORed with `mask` (0 or 0x5A) to
// buf[off .. off + len). `seq` is a Number (a safe integer) or a BigInt.
function fillPayload(buf, off, len, seq, mask) {
  fillBlocks(buf, off, len, seedHi(seq), seedLo(seq), mask);
}

// True when buf[off .. off + len) is gen(seq, len) XOR `mask` (0 or
// 0x5A); compares 32-bit words, builds nothing.
function checkPayload(buf, off, len, seq, mask) {
  return checkBlocks(buf, off, len, seedHi(seq), seedLo(seq), mask, false);
}

// The server's step: checks that buf[off .. off + len) is gen(seq, len)
// and turns it into respond(gen(seq, len)) in place. Returns false (with
// the bytes partly rewritten) when the payload is wrong.
function checkAndRespond(buf, off, len, seq) {
  return checkBlocks(buf, off, len, seedHi(seq), seedLo(seq), 0, true);
}

// gen(seq, len) in a new Buffer (tests and cold paths).
function gen(seq, len) {
  const out = Buffer.allocUnsafe(len);
  fillPayload(out, 0, len, seq, 0);
  return out;
}

// respond(x): every byte XOR 0x5A, in a new Buffer.
function respond(x) {
  const out = Buffer.allocUnsafe(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] ^ RESPONSE_MASK;
  return out;
}

// ---------------------------------------------------------------------------
// Workload, counts, ERROR payloads

// { warmup: BigInt, roundTrips: BigInt, payloadBytes: Number, maxInFlight: Number }
function encodeWorkload(w) {
  const out = Buffer.allocUnsafe(WORKLOAD_BYTES);
  out.writeBigUInt64BE(BigInt(w.warmup), 0);
  out.writeBigUInt64BE(BigInt(w.roundTrips), 8);
  out.writeUInt32BE(w.payloadBytes, 16);
  out.writeUInt32BE(w.maxInFlight, 20);
  return out;
}

function decodeWorkload(buf, off = 0) {
  return {
    warmup: buf.readBigUInt64BE(off),
    roundTrips: buf.readBigUInt64BE(off + 8),
    payloadBytes: buf.readUInt32BE(off + 16),
    maxInFlight: buf.readUInt32BE(off + 20),
  };
}

// null when the workload follows SPEC.md section 2, else why not.
function workloadProblem(w) {
  if (w.roundTrips < 1n) return 'round_trips is 0';
  if (w.payloadBytes > MAX_PAYLOAD_BYTES) return `payload_bytes ${w.payloadBytes} is over ${MAX_PAYLOAD_BYTES}`;
  if (w.maxInFlight < 1 || w.maxInFlight > MAX_IN_FLIGHT) {
    return `max_in_flight ${w.maxInFlight} is outside 1..${MAX_IN_FLIGHT}`;
  }
  if (w.warmup + w.roundTrips >= WORKLOAD_SUM_LIMIT) return 'warmup + round_trips is not below 2^62';
  return null;
}

function describeWorkload(w) {
  return (
    `warmup ${w.warmup}, round_trips ${w.roundTrips}, ` +
    `payload_bytes ${w.payloadBytes}, max_in_flight ${w.maxInFlight}`
  );
}

// { requests, responses, bytesSent, bytesReceived }, all BigInt.
function encodeCounts(c) {
  const out = Buffer.allocUnsafe(COUNTS_BYTES);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(c.requests)), 0);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(c.responses)), 8);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(c.bytesSent)), 16);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(c.bytesReceived)), 24);
  return out;
}

function decodeCounts(buf, off = 0) {
  return {
    requests: buf.readBigUInt64BE(off),
    responses: buf.readBigUInt64BE(off + 8),
    bytesSent: buf.readBigUInt64BE(off + 16),
    bytesReceived: buf.readBigUInt64BE(off + 24),
  };
}

function countsEqual(a, b) {
  return (
    BigInt.asUintN(64, BigInt(a.requests)) === BigInt.asUintN(64, BigInt(b.requests)) &&
    BigInt.asUintN(64, BigInt(a.responses)) === BigInt.asUintN(64, BigInt(b.responses)) &&
    BigInt.asUintN(64, BigInt(a.bytesSent)) === BigInt.asUintN(64, BigInt(b.bytesSent)) &&
    BigInt.asUintN(64, BigInt(a.bytesReceived)) === BigInt.asUintN(64, BigInt(b.bytesReceived))
  );
}

function describeCounts(c) {
  return (
    `requests ${c.requests}, responses ${c.responses}, ` +
    `bytes_sent ${c.bytesSent}, bytes_received ${c.bytesReceived}`
  );
}

// The counts BYE (isAck false) or BYE_ACK (isAck true) must carry for a
// workload, modulo 2^64 like every counter on the wire.
function expectedCounts(w, isAck) {
  const rt = BigInt(w.warmup) + BigInt(w.roundTrips);
  const frame = BigInt(HEADER_BYTES + w.payloadBytes);
  const traffic = BigInt(HELLO_FRAME_BYTES) + rt * frame;
  return {
    requests: rt,
    responses: rt,
    bytesSent: BigInt.asUintN(64, traffic),
    bytesReceived: BigInt.asUintN(64, traffic + (isAck ? BigInt(BYE_FRAME_BYTES) : 0n)),
  };
}

// Cuts a string's UTF-8 encoding to at most `max` bytes without splitting
// a character.
function utf8Cut(reason, max) {
  const bytes = Buffer.from(reason, 'utf8');
  if (bytes.length <= max) return bytes;
  let len = max;
  while (len > 0 && (bytes[len] & 0xc0) === 0x80) len--;
  return bytes.subarray(0, len);
}

function encodeError(code, reason) {
  const r = utf8Cut(reason || '', MAX_REASON_BYTES);
  const payload = Buffer.allocUnsafe(2 + r.length);
  payload.writeUInt16BE(code, 0);
  r.copy(payload, 2);
  return encodeFrame(T.ERROR, 0, payload);
}

function decodeError(payload) {
  return {
    code: payload.readUInt16BE(0),
    reason: payload.toString('utf8', 2),
  };
}

module.exports = {
  VERSION,
  HEADER_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_FRAME_BYTES,
  MAX_IN_FLIGHT,
  WORKLOAD_BYTES,
  COUNTS_BYTES,
  MAX_REASON_BYTES,
  RESPONSE_MASK,
  HELLO_FRAME_BYTES,
  BYE_FRAME_BYTES,
  WORKLOAD_SUM_LIMIT,
  U64,
  T,
  REJECTIONS,
  CODE,
  typeName,
  codeName,
  codeFor,
  ProtocolError,
  headerRejection,
  checkHeader,
  describeHeader,
  readSequence,
  writeHeader,
  encodeFrame,
  fillPayload,
  checkPayload,
  checkAndRespond,
  gen,
  respond,
  encodeWorkload,
  decodeWorkload,
  workloadProblem,
  describeWorkload,
  encodeCounts,
  decodeCounts,
  countsEqual,
  describeCounts,
  expectedCounts,
  encodeError,
  decodeError,
};
