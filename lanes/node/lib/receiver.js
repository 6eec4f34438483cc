'use strict';
// Frame reassembly shared by both session roles. Frames may be split across
// reads at any byte; the bytes of the one incomplete frame at the end of a
// read are kept in a bounded buffer (at most 16 + 1 MiB) until the rest
// arrives. Complete frames are parsed straight from the read's own buffer.
//
// A subclass provides:
//   _admit(buf, off, avail) -> payload length: every check the 16 header
//     bytes allow (SPEC.md section 1, then an ERROR frame as peer_error
//     and the session's type, sequence and length rules), with `avail`
//     bytes of the frame at buf[off..] (16 or more); throws a
//     ProtocolError on a rejection. Only the payload waits for the whole
//     frame.
//   _completeStashed(len): handles the whole frame now in this.acc[0..).

const codec = require('./codec');

const { HEADER_BYTES, MAX_FRAME_BYTES, ProtocolError } = codec;

const INITIAL_ACC = 4096;

class Receiver {
  constructor() {
    this.acc = Buffer.allocUnsafe(INITIAL_ACC);
    this.accLen = 0;
    // Payload length of the stashed frame once its header was admitted,
    // -1 while fewer than 16 bytes of it have arrived.
    this.pendingLen = -1;
  }

  _ensureAcc(size) {
    if (size > MAX_FRAME_BYTES) throw new Error(`frame of ${size} bytes over the maximum`);
    if (this.acc.length >= size) return;
    let cap = this.acc.length;
    while (cap < size) cap *= 2;
    if (cap > MAX_FRAME_BYTES) cap = MAX_FRAME_BYTES;
    const next = Buffer.allocUnsafe(cap);
    this.acc.copy(next, 0, 0, this.accLen);
    this.acc = next;
  }

  // Keeps chunk[pos..) (less than one frame) for the next read.
  // `len` is the admitted payload length, or -1 when the header is
  // incomplete.
  _stash(chunk, pos, len) {
    const rest = chunk.length - pos;
    this.accLen = 0;
    this._ensureAcc(len < 0 ? HEADER_BYTES : HEADER_BYTES + len);
    chunk.copy(this.acc, 0, pos);
    this.accLen = rest;
    this.pendingLen = len;
  }

  // Feeds the start of chunk to the stashed frame. Returns how many bytes
  // of chunk it took; this.accLen is 0 afterwards when the frame completed
  // (and was handled).
  _continue(chunk) {
    const n = chunk.length;
    let pos = 0;
    if (this.pendingLen < 0) {
      const take = Math.min(HEADER_BYTES - this.accLen, n);
      chunk.copy(this.acc, this.accLen, 0, take);
      this.accLen += take;
      pos = take;
      if (this.accLen < HEADER_BYTES) return pos;
      // The header is in: its own checks, then as much of the frame as
      // this chunk holds (an ERROR is reported with what arrived of its
      // reason), then the session's checks.
      codec.checkHeader(this.acc, 0);
      const len = this.acc.readUInt32BE(4);
      this._ensureAcc(HEADER_BYTES + len);
      const more = Math.min(len, n - pos);
      chunk.copy(this.acc, HEADER_BYTES, pos, pos + more);
      this.accLen = HEADER_BYTES + more;
      pos += more;
      this._admit(this.acc, 0, this.accLen);
      this.pendingLen = len;
    } else {
      const take = Math.min(HEADER_BYTES + this.pendingLen - this.accLen, n);
      chunk.copy(this.acc, this.accLen, 0, take);
      this.accLen += take;
      pos = take;
    }
    const size = HEADER_BYTES + this.pendingLen;
    if (this.accLen < size) return pos;
    const len = this.pendingLen;
    this.accLen = 0;
    this.pendingLen = -1;
    this._completeStashed(len);
    return pos;
  }

  // The rejection for end of stream with stashed bytes, or null.
  _eofPartial() {
    if (this.accLen === 0) return null;
    return new ProtocolError('truncated', `end of stream after ${this.accLen} bytes of a frame`);
  }

  // The rejection for a connection that failed (a reset) instead of
  // ending: truncated inside a frame, else unexpected_eof whatever the
  // state, even where a clean end would be allowed (SPEC.md section 3).
  resetRejection(cause) {
    const e = this._eofPartial() || new ProtocolError('unexpected_eof', 'the connection failed between frames');
    e.message += ` (connection error: ${cause})`;
    return e;
  }
}

// A frame of a type the session does not allow at this point.
// A Receiver for a session peer: every header gets SPEC.md section 1's
// checks, an ERROR frame is peer_error from its header on, and then the
// session's own rules. A subclass provides _check(buf, off, len): the
// type, sequence and length rules at its point of the session.
class SessionReceiver extends Receiver {
  // Every check the header allows, as soon as it is in (SPEC.md sections 1
  // and 3): a header that breaks a rule is reported by that rule even when
  // the stream then ends inside the frame.
  _admit(buf, off, avail) {
    codec.checkHeader(buf, off);
    const len = buf.readUInt32BE(off + 4);
    if (buf[off + 1] === codec.T.ERROR) throw peerError(buf, off + HEADER_BYTES, len, avail - HEADER_BYTES);
    this._check(buf, off, len);
    return len;
  }
}

function unexpected(type, wanted) {
  return new ProtocolError('unexpected_type', `${codec.typeName(type)} while waiting for ${wanted}`);
}

// The rejection for a received ERROR frame, from its header on (SPEC.md
// section 3): `have` of its `len` payload bytes are at buf[payloadOff..],
// and as much of the reason as arrived is reported.
function peerError(buf, payloadOff, len, have = len) {
  if (have > len) have = len;
  if (have < 2) {
    const e = new ProtocolError('peer_error', `ERROR frame of ${len} payload bytes (its code did not arrive)`);
    e.peerCode = null;
    e.peerReason = '';
    return e;
  }
  const { code, reason } = codec.decodeError(buf.subarray(payloadOff, payloadOff + have));
  const cut = have < len ? ` (${len - have} bytes of it did not arrive)` : '';
  // JSON.stringify escapes every C0 control but leaves DEL as it is; the
  // reason's invalid UTF-8 is already U+FFFD (SPEC.md section 6).
  const text = JSON.stringify(reason).replace(/\u007f/g, '\\u007f');
  const e = new ProtocolError('peer_error', `ERROR code ${code} (${codec.codeName(code)}): ${text}${cut}`);
  e.peerCode = code;
  e.peerReason = reason;
  return e;
}

// A bare frame parser with no session: the header checks of SPEC.md
// section 1 and end of stream inside a frame. onFrame(buf, off, len) sees
// every whole frame (valid only during the call).
class FrameParser extends Receiver {
  constructor(onFrame = () => {}) {
    super();
    this.onFrame = onFrame;
  }

  onData(chunk) {
    const n = chunk.length;
    let pos = 0;
    if (this.accLen > 0) {
      pos = this._continue(chunk);
      if (this.accLen > 0) return;
    }
    while (n - pos >= HEADER_BYTES) {
      const len = this._admit(chunk, pos, n - pos);
      if (n - pos < HEADER_BYTES + len) {
        this._stash(chunk, pos, len);
        return;
      }
      this.onFrame(chunk, pos, len);
      pos += HEADER_BYTES + len;
    }
    if (pos < n) this._stash(chunk, pos, -1);
  }

  onEnd() {
    const partial = this._eofPartial();
    if (partial) throw partial;
  }

  _admit(buf, off) {
    codec.checkHeader(buf, off);
    return buf.readUInt32BE(off + 4);
  }

  _completeStashed(len) {
    this.onFrame(this.acc, 0, len);
  }
}

module.exports = { Receiver, SessionReceiver, FrameParser, unexpected, peerError };
