'use strict';
// The server side of one session (SPEC.md section 3), independent of any
// socket: onData(bytes) returns the bytes to send back (or null), onEnd()
// checks the end of stream. Rejections are thrown as ProtocolError.
//
// A REQUEST frame becomes its RESPONSE in place: the header differs only in
// the type byte and the payload is validated and XORed with 0x5A in one
// pass, so the responses to the requests of one read are a slice of that
// read's own buffer and need no copy.

const codec = require('./codec');
const { SessionReceiver, unexpected } = require('./receiver');

const { T, HEADER_BYTES, ProtocolError } = codec;

const S_HELLO = 0; // waiting for HELLO
const S_REQUESTS = 1; // waiting for request `received + 1`
const S_BYE = 2; // all W + N requests in, waiting for BYE
const S_CLOSED = 3; // BYE_ACK sent, only end of stream may follow

const STATE_NAMES = ['HELLO', 'REQUEST', 'BYE', 'end of stream'];

const IN_PLACE = 1;

class ServerSession extends SessionReceiver {
  // cpu() is the process CPU time ({ user, system } in microseconds).
  constructor(cpu = () => process.cpuUsage()) {
    super();
    this.cpu = cpu;
    this.state = S_HELLO;
    this.workload = null;
    this.P = 0;
    this.F = HEADER_BYTES;
    this.W = 0;
    this.total = 0; // W + N as a Number
    this.totalBig = 0n;
    this.received = 0; // REQUEST frames received (= RESPONSE frames sent)
    this.bytesIn = 0;
    this.bytesOut = 0;
    // HELLO and BYE in, HELLO_ACK and BYE_ACK out: with one RESPONSE per
    // REQUEST, the frame counts need nothing on the per-request path.
    this.controlIn = 0;
    this.controlOut = 0;
    // CPU over the measured window (SPEC.md section 7): from just before
    // the read that delivers request W + 1 to the read of BYE.
    this.cpu0 = null;
    this.cpuUser = 0;
    this.cpuSystem = 0;
    this.segs = [];
    this.done = false; // BYE_ACK sent
  }

  // The result line's fields (lanes/README.md), once the session is done.
  result() {
    const measured = this.received - this.W;
    return {
      round_trips: measured,
      warmup_round_trips: this.received - measured,
      payload_bytes: this.P,
      max_in_flight: this.workload.maxInFlight,
      frames_sent: this.received + this.controlOut,
      frames_received: this.received + this.controlIn,
      bytes_sent: this.bytesOut,
      bytes_received: this.bytesIn,
      cpu_user_us: this.cpuUser,
      cpu_system_us: this.cpuSystem,
      runtime: 'node',
    };
  }

  // Bytes of one read in; the answer to every complete frame in them out,
  // as one Buffer (possibly a slice of `chunk`, rewritten in place), or
  // null when there is nothing to send.
  onData(chunk) {
    const segs = this.segs;
    segs.length = 0;
    const n = chunk.length;
    let pos = 0;
    if (this.cpu0 === null && this.state === S_REQUESTS && this.received === this.W && this.total > this.W) {
      this.cpu0 = this.cpu();
    }
    if (this.accLen > 0) {
      pos = this._continue(chunk);
      if (this.accLen > 0) return null;
    }
    let regionStart = 0;
    let regionEnd = -1;
    let P = this.P;
    let F = this.F;
    while (n - pos >= HEADER_BYTES) {
      if (this.state === S_REQUESTS) {
        // The common case, checked byte by byte: a REQUEST with the next
        // sequence and length P.
        const seq = this.received + 1;
        if (
          chunk[pos] === 1 &&
          chunk[pos + 1] === T.REQUEST &&
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
            pos = n;
            break;
          }
          this._request(chunk, pos, seq);
          if (regionEnd !== pos) {
            if (regionEnd >= 0) segs.push(chunk.subarray(regionStart, regionEnd));
            regionStart = pos;
          }
          pos += F;
          regionEnd = pos;
          continue;
        }
      }
      const len = this._admit(chunk, pos, n - pos);
      if (n - pos < HEADER_BYTES + len) {
        this._stash(chunk, pos, len);
        pos = n;
        break;
      }
      const r = this._complete(chunk, pos, len);
      if (r === IN_PLACE) {
        if (regionEnd !== pos) {
          if (regionEnd >= 0) segs.push(chunk.subarray(regionStart, regionEnd));
          regionStart = pos;
        }
        regionEnd = pos + HEADER_BYTES + len;
      } else if (r !== null) {
        if (regionEnd >= 0) segs.push(chunk.subarray(regionStart, regionEnd));
        regionEnd = -1;
        segs.push(r);
        P = this.P;
        F = this.F;
      }
      pos += HEADER_BYTES + len;
    }
    if (pos < n) this._stash(chunk, pos, -1);
    if (regionEnd >= 0) segs.push(chunk.subarray(regionStart, regionEnd));
    if (segs.length === 0) return null;
    if (segs.length === 1) return segs[0];
    return Buffer.concat(segs);
  }

  // End of stream: returns normally only where the session allows it
  // (right after the BYE this side acknowledged).
  onEnd() {
    const partial = this._eofPartial();
    if (partial) throw partial;
    if (this.state !== S_CLOSED) {
      throw new ProtocolError('unexpected_eof', `end of stream while waiting for ${STATE_NAMES[this.state]}`);
    }
  }

  // Validates request `seq` at buf[off..] and rewrites it as its response.
  _request(buf, off, seq) {
    if (!codec.checkAndRespond(buf, off + HEADER_BYTES, this.P, seq)) {
      throw new ProtocolError('wrong_payload', `REQUEST ${seq}: payload differs from gen(${seq}, ${this.P})`);
    }
    buf[off + 1] = T.RESPONSE;
    this.received = seq;
    this.bytesIn += this.F;
    this.bytesOut += this.F;
    // A client that does not wait for the warm-up responses (or sends its
    // first requests with HELLO) mixes request W + 1 into an earlier read.
    if (this.cpu0 === null && seq > this.W) this.cpu0 = this.cpu();
    if (seq === this.total) this.state = S_BYE;
  }

  // The session's checks on a header (not an ERROR one): type, sequence,
  // payload length.
  _check(buf, off, len) {
    const type = buf[off + 1];
    const seq = codec.readSequence(buf, off);
    switch (this.state) {
      case S_HELLO:
        if (type !== T.HELLO) throw unexpected(type, 'HELLO');
        if (seq !== 0n) throw new ProtocolError('wrong_sequence', `HELLO sequence ${seq}, expected 0`);
        break;
      case S_REQUESTS: {
        // A BYE before all W + N requests, too, whatever its sequence.
        if (type !== T.REQUEST) throw unexpected(type, `REQUEST ${this.received + 1}`);
        const want = BigInt(this.received + 1);
        if (seq !== want) {
          throw new ProtocolError('wrong_sequence', `REQUEST sequence ${seq}, expected ${want}`);
        }
        if (len !== this.P) {
          throw new ProtocolError('bad_length', `REQUEST ${seq} payload length ${len}, expected ${this.P}`);
        }
        break;
      }
      case S_BYE: {
        const want = this.totalBig + 1n;
        if (type === T.REQUEST) {
          // After W + N requests only BYE is allowed: the type comes
          // before the sequence (SPEC.md section 3).
          throw new ProtocolError('unexpected_type', `REQUEST sequence ${seq} after all ${this.totalBig} requests`);
        }
        if (type !== T.BYE) throw unexpected(type, 'BYE');
        if (seq !== want) throw new ProtocolError('wrong_sequence', `BYE sequence ${seq}, expected ${want}`);
        break;
      }
      default:
        // Fewer than 16 bytes and then end of stream: truncated (onEnd).
        throw new ProtocolError('unexpected_type', `${codec.typeName(type)} after BYE (expected the end of stream)`);
    }
  }

  // The whole frame at buf[off..] passed _admit: the payload's checks.
  // Returns IN_PLACE for a request rewritten as its response, a Buffer to
  // send, or null.
  _complete(buf, off, len) {
    const payloadOff = off + HEADER_BYTES;
    switch (this.state) {
      case S_HELLO: {
        const w = codec.decodeWorkload(buf, payloadOff);
        const problem = codec.workloadProblem(w);
        if (problem) throw new ProtocolError('bad_workload', `HELLO ${codec.describeWorkload(w)}: ${problem}`);
        this.workload = w;
        this.P = w.payloadBytes;
        this.F = HEADER_BYTES + w.payloadBytes;
        this.totalBig = w.warmup + w.roundTrips;
        // Beyond 2^53 requests a session cannot run to its end anyway; the
        // Numbers only count requests actually received.
        this.total = Number(this.totalBig);
        this.W = Number(w.warmup);
        this.bytesIn += HEADER_BYTES + len;
        this.controlIn++;
        const ack = Buffer.allocUnsafe(HEADER_BYTES + len);
        buf.copy(ack, 0, off, off + HEADER_BYTES + len);
        ack[1] = T.HELLO_ACK;
        this.bytesOut += ack.length;
        this.controlOut++;
        this.state = S_REQUESTS;
        return ack;
      }
      case S_REQUESTS:
        this._request(buf, off, this.received + 1);
        return IN_PLACE;
      case S_BYE: {
        if (this.cpu0 !== null) {
          const c = this.cpu();
          this.cpuUser = c.user - this.cpu0.user;
          this.cpuSystem = c.system - this.cpu0.system;
        }
        const got = codec.decodeCounts(buf, payloadOff);
        // The client's view mirrors this side's: what it sent is what this
        // side received before BYE, and the other way round.
        const own = {
          requests: BigInt(this.received),
          responses: BigInt(this.received),
          bytesSent: BigInt.asUintN(64, BigInt(this.bytesIn)),
          bytesReceived: BigInt.asUintN(64, BigInt(this.bytesOut)),
        };
        if (!codec.countsEqual(got, own)) {
          throw new ProtocolError(
            'count_mismatch',
            `BYE carries ${codec.describeCounts(got)}; expected ${codec.describeCounts(own)}`
          );
        }
        this.bytesIn += HEADER_BYTES + len;
        this.controlIn++;
        // Counts wrap modulo 2^64 (SPEC.md section 2).
        const counts = codec.encodeCounts({
          requests: BigInt(this.received),
          responses: BigInt(this.received),
          bytesSent: BigInt.asUintN(64, BigInt(this.bytesOut)),
          bytesReceived: BigInt.asUintN(64, BigInt(this.bytesIn)),
        });
        const ack = codec.encodeFrame(T.BYE_ACK, this.totalBig + 1n, counts);
        this.bytesOut += ack.length;
        this.controlOut++;
        this.state = S_CLOSED;
        this.done = true;
        return ack;
      }
      default:
        throw new Error('unreachable');
    }
  }

  _completeStashed(len) {
    const r = this._complete(this.acc, 0, len);
    if (r === IN_PLACE) {
      this.segs.push(Buffer.from(this.acc.subarray(0, HEADER_BYTES + len)));
    } else if (r !== null) {
      this.segs.push(r);
    }
  }
}

module.exports = { ServerSession };
