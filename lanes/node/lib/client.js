'use strict';
// The client side of one session (SPEC.md section 3), independent of any
// socket: hello() gives the HELLO frame, onData(bytes) validates what the
// server sent, produce(maxBytes) gives the next frames to send (requests
// up to the in-flight limit, then BYE), onEnd() checks the end of stream.
// Rejections are thrown as ProtocolError.

const codec = require('./codec');
const { Histogram } = require('./histogram');
const { SessionReceiver, unexpected } = require('./receiver');

const { T, HEADER_BYTES, ProtocolError } = codec;

const C_HELLO_ACK = 0; // HELLO sent, waiting for HELLO_ACK
const C_RUN = 1; // requests and responses
const C_BYE_ACK = 2; // BYE sent, waiting for BYE_ACK
const C_DONE = 3; // BYE_ACK validated; only end of stream may follow

const STATE_NAMES = ['HELLO_ACK', 'RESPONSE', 'BYE_ACK', 'end of stream'];

// Output buffers are reused once the socket is done with them: a batch is
// written from a buffer taken here and given back by the write callback.
class BufferPool {
  constructor(max = 8) {
    this.free = [];
    this.max = max;
  }

  acquire(size) {
    const free = this.free;
    for (let i = free.length - 1; i >= 0; i--) {
      if (free[i].length >= size) {
        const b = free[i];
        free[i] = free[free.length - 1];
        free.pop();
        return b;
      }
    }
    // Whole 4 KiB pages, at least 8 KiB; never a slice of Node's shared
    // pool, so the whole ArrayBuffer is ours to reuse.
    const cap = Math.max(8192, Math.ceil(size / 4096) * 4096);
    return Buffer.allocUnsafeSlow(cap);
  }

  // Takes back a buffer from acquire(), or a slice of one.
  release(buf) {
    if (this.free.length < this.max) this.free.push(Buffer.from(buf.buffer, 0, buf.buffer.byteLength));
  }
}

class ClientSession extends SessionReceiver {
  // w: { warmup: BigInt, roundTrips: BigInt, payloadBytes, maxInFlight };
  // W + N must be a safe integer. now() is the monotonic clock (BigInt ns),
  // cpu() the process CPU time ({ user, system } in microseconds).
  constructor(w, now = process.hrtime.bigint, cpu = () => process.cpuUsage()) {
    super();
    this.workload = w;
    this.now = now;
    this.cpu = cpu;
    this.W = Number(w.warmup);
    this.N = Number(w.roundTrips);
    this.total = this.W + this.N;
    this.totalBig = BigInt(w.warmup) + BigInt(w.roundTrips);
    this.P = w.payloadBytes;
    this.F = HEADER_BYTES + w.payloadBytes;
    this.M = w.maxInFlight;
    this.helloPayload = codec.encodeWorkload(w);
    this.state = C_HELLO_ACK;
    this.sent = 0; // REQUEST frames sent (the last sequence sent)
    this.recv = 0; // RESPONSE frames validated
    this.framesOut = 0;
    this.framesIn = 0;
    this.bytesOut = 0;
    this.bytesIn = 0;
    this.t0 = 0n;
    this.t1 = 0n;
    this.timing = false;
    this.cpu0 = null;
    this.cpuUser = 0;
    this.cpuSystem = 0;
    // Latency (SPEC.md section 7): each measured request's send time, in
    // ns after t0, in a ring of M slots (at most M are outstanding), and
    // the receive time of the read being validated, read once per read.
    this.sendTimes = new Float64Array(w.maxInFlight);
    this.recvAt = 0;
    this.latency = new Histogram();
    this.pool = new BufferPool();
    this.lastPooled = false; // whether produce() last returned a pooled buffer
  }

  get done() {
    return this.state === C_DONE;
  }

  hello() {
    const f = codec.encodeFrame(T.HELLO, 0, this.helloPayload);
    this.framesOut++;
    this.bytesOut += f.length;
    return f;
  }

  // Validates every complete frame of one read. Once BYE_ACK has
  // validated the session ends with this read: a frame begun after it is
  // cut short (whole headers there are rejected by _check).
  onData(chunk) {
    this._onData(chunk);
    if (this.state === C_DONE && this.accLen > 0) {
      throw new ProtocolError('truncated', `${this.accLen} bytes of a frame after BYE_ACK`);
    }
  }

  _onData(chunk) {
    const n = chunk.length;
    let pos = 0;
    if (this.timing) this.recvAt = Number(this.now() - this.t0);
    if (this.accLen > 0) {
      pos = this._continue(chunk);
      if (this.accLen > 0) return;
    }
    const P = this.P;
    const F = this.F;
    while (n - pos >= HEADER_BYTES) {
      if (this.state === C_RUN && this.recv < this.sent) {
        // The common case, checked byte by byte: the RESPONSE to the
        // oldest outstanding request, length P.
        const seq = this.recv + 1;
        if (
          chunk[pos] === 1 &&
          chunk[pos + 1] === T.RESPONSE &&
          chunk[pos + 2] === 0 &&
          chunk[pos + 3] === 0 &&
          ((chunk[pos + 4] << 24) | (chunk[pos + 5] << 16) | (chunk[pos + 6] << 8) | chunk[pos + 7]) >>> 0 === P &&
          ((chunk[pos + 8] << 24) | (chunk[pos + 9] << 16) | (chunk[pos + 10] << 8) | chunk[pos + 11]) >>> 0 ===
            Math.floor(seq / 4294967296) &&
          ((chunk[pos + 12] << 24) | (chunk[pos + 13] << 16) | (chunk[pos + 14] << 8) | chunk[pos + 15]) >>> 0 ===
            seq >>> 0
        ) {
          if (n - pos < F) {
            this._stash(chunk, pos, P);
            return;
          }
          this._response(chunk, pos, seq);
          pos += F;
          continue;
        }
      }
      const len = this._admit(chunk, pos, n - pos);
      if (n - pos < HEADER_BYTES + len) {
        this._stash(chunk, pos, len);
        return;
      }
      this._complete(chunk, pos, len);
      pos += HEADER_BYTES + len;
    }
    if (pos < n) this._stash(chunk, pos, -1);
  }

  // The next frames to send as one Buffer of at most about maxBytes (at
  // least one frame), or null when nothing may be sent now. Buffers come
  // from this.pool; give each back with this.pool.release() once written.
  produce(maxBytes) {
    if (this.state !== C_RUN) return null;
    const recv = this.recv;
    if (recv === this.total) {
      this.lastPooled = false;
      return this._bye();
    }
    // Warm-up responses all arrive before the first measured request.
    const limit = recv < this.W ? this.W : this.total;
    let k = Math.min(limit - this.sent, this.M - (this.sent - recv));
    if (k <= 0) return null;
    const F = this.F;
    const P = this.P;
    const cap = Math.max(1, Math.floor(maxBytes / F));
    if (k > cap) k = cap;
    const size = k * F;
    const buf = this.pool.acquire(size);
    const first = this.sent;
    if (!this.timing && first === this.W) {
      this.timing = true;
      this.cpu0 = this.cpu();
      this.t0 = this.now();
    }
    let seq = first;
    for (let off = 0; off < size; off += F) {
      seq++;
      codec.writeHeader(buf, off, T.REQUEST, seq, P);
      codec.fillPayload(buf, off + HEADER_BYTES, P, seq, 0);
    }
    // Warm-up and measured requests never share a batch (see `limit`); a
    // measured one's send time is read once the batch is ready to write.
    if (this.timing) {
      const at = Number(this.now() - this.t0);
      const times = this.sendTimes;
      const M = this.M;
      for (let s = first + 1; s <= seq; s++) times[s % M] = at;
    }
    this.sent = seq;
    this.framesOut += k;
    this.bytesOut += size;
    this.lastPooled = true;
    return buf.subarray(0, size);
  }

  // End of stream: returns normally only after BYE_ACK.
  onEnd() {
    const partial = this._eofPartial();
    if (partial) throw partial;
    if (this.state !== C_DONE) {
      throw new ProtocolError('unexpected_eof', `end of stream while waiting for ${this._waitingFor()}`);
    }
  }

  // The result line's fields (README: the peer contract).
  result() {
    return {
      round_trips: this.N,
      warmup_round_trips: this.W,
      payload_bytes: this.P,
      max_in_flight: this.M,
      frames_sent: this.framesOut,
      frames_received: this.framesIn,
      bytes_sent: this.bytesOut,
      bytes_received: this.bytesIn,
      elapsed_ns: Number(this.t1 - this.t0),
      cpu_user_us: this.cpuUser,
      cpu_system_us: this.cpuSystem,
      latency: this.latency.toResult(),
      runtime: 'node',
    };
  }

  _waitingFor() {
    if (this.state === C_RUN) return `RESPONSE ${this.recv + 1}`;
    return STATE_NAMES[this.state];
  }

  _bye() {
    // Counts wrap modulo 2^64 (SPEC.md section 2).
    const counts = codec.encodeCounts({
      requests: BigInt(this.sent),
      responses: BigInt(this.recv),
      bytesSent: BigInt.asUintN(64, BigInt(this.bytesOut)),
      bytesReceived: BigInt.asUintN(64, BigInt(this.bytesIn)),
    });
    const f = codec.encodeFrame(T.BYE, this.totalBig + 1n, counts);
    this.framesOut++;
    this.bytesOut += f.length;
    this.state = C_BYE_ACK;
    return f;
  }

  _response(buf, off, seq) {
    if (!codec.checkPayload(buf, off + HEADER_BYTES, this.P, seq, codec.RESPONSE_MASK)) {
      throw new ProtocolError(
        'wrong_payload',
        `RESPONSE ${seq}: payload differs from respond(gen(${seq}, ${this.P}))`
      );
    }
    this.recv = seq;
    this.framesIn++;
    this.bytesIn += this.F;
    if (seq > this.W) {
      this.latency.record(this.recvAt - this.sendTimes[seq % this.M]);
      if (seq === this.total) {
        // elapsed_ns ends once that response is validated (SPEC.md
        // section 3), so no latency can exceed it.
        this.t1 = this.now();
        const c = this.cpu();
        this.cpuUser = c.user - this.cpu0.user;
        this.cpuSystem = c.system - this.cpu0.system;
      }
    }
  }

  // The session's checks on a header (not an ERROR one). The type comes
  // before the sequence (SPEC.md section 3): a RESPONSE is allowed only
  // while a request is outstanding, whatever its sequence.
  _check(buf, off, len) {
    const type = buf[off + 1];
    const seq = codec.readSequence(buf, off);
    if (type === T.RESPONSE && this.state !== C_RUN && this.state !== C_DONE) {
      throw new ProtocolError(
        'unexpected_type',
        this.state === C_HELLO_ACK
          ? `RESPONSE ${seq} before HELLO_ACK (no request is outstanding)`
          : `RESPONSE ${seq} after every response (no request outstanding)`
      );
    }
    switch (this.state) {
      case C_HELLO_ACK:
        if (type !== T.HELLO_ACK) throw unexpected(type, 'HELLO_ACK');
        if (seq !== 0n) throw new ProtocolError('wrong_sequence', `HELLO_ACK sequence ${seq}, expected 0`);
        break;
      case C_RUN: {
        if (type !== T.RESPONSE) throw unexpected(type, `RESPONSE ${this.recv + 1}`);
        // The window is refilled between reads (produce() after onData()),
        // so within one read it may drain.
        if (this.recv >= this.sent) {
          throw new ProtocolError('unexpected_type', `RESPONSE ${seq} with no request outstanding`);
        }
        // Responses come in order: the oldest outstanding request's.
        const want = BigInt(this.recv + 1);
        if (seq !== want) throw new ProtocolError('wrong_sequence', `RESPONSE sequence ${seq}, expected ${want}`);
        if (len !== this.P) {
          throw new ProtocolError('bad_length', `RESPONSE ${seq} payload length ${len}, expected ${this.P}`);
        }
        break;
      }
      case C_BYE_ACK: {
        if (type !== T.BYE_ACK) throw unexpected(type, 'BYE_ACK');
        const want = this.totalBig + 1n;
        if (seq !== want) throw new ProtocolError('wrong_sequence', `BYE_ACK sequence ${seq}, expected ${want}`);
        break;
      }
      default:
        throw new ProtocolError('unexpected_type', `${codec.typeName(type)} after BYE_ACK (expected the end of stream)`);
    }
  }

  // The whole frame at buf[off..] passed _admit: the payload's checks.
  _complete(buf, off, len) {
    const payloadOff = off + HEADER_BYTES;
    switch (this.state) {
      case C_HELLO_ACK: {
        const echo = buf.subarray(payloadOff, payloadOff + len);
        if (!echo.equals(this.helloPayload)) {
          const got = codec.decodeWorkload(echo);
          throw new ProtocolError(
            'bad_workload',
            `HELLO_ACK echoes ${codec.describeWorkload(got)}; sent ${codec.describeWorkload(this.workload)}`
          );
        }
        this.framesIn++;
        this.bytesIn += HEADER_BYTES + len;
        this.state = C_RUN;
        break;
      }
      case C_RUN:
        this._response(buf, off, this.recv + 1);
        break;
      case C_BYE_ACK: {
        const got = codec.decodeCounts(buf, payloadOff);
        // The server's view mirrors this side's.
        const own = {
          requests: BigInt(this.sent),
          responses: BigInt(this.recv),
          bytesSent: BigInt.asUintN(64, BigInt(this.bytesIn)),
          bytesReceived: BigInt.asUintN(64, BigInt(this.bytesOut)),
        };
        if (!codec.countsEqual(got, own)) {
          throw new ProtocolError(
            'count_mismatch',
            `BYE_ACK carries ${codec.describeCounts(got)}; expected ${codec.describeCounts(own)}`
          );
        }
        this.framesIn++;
        this.bytesIn += HEADER_BYTES + len;
        this.state = C_DONE;
        break;
      }
      default:
        throw new Error('unreachable');
    }
  }

  _completeStashed(len) {
    this._complete(this.acc, 0, len);
  }
}

module.exports = { ClientSession, BufferPool, C_HELLO_ACK, C_RUN, C_BYE_ACK, C_DONE };
