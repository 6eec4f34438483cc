package crossrun.lane;

import static crossrun.lane.Proto.*;

/**
 * The client's session state machine (SPEC.md section 3), apart from any socket: HELLO, the
 * warm-up, the measured round trips with at most M requests outstanding, BYE. The window is
 * refilled between reads, never between the frames of one read. Every measured round trip's
 * latency goes into the histogram of SPEC.md section 7: the clock is read once per write for
 * every request in it and once per read for every response it completes.
 */
public final class ClientSession extends FrameScanner {
  public static final int AWAIT_HELLO_ACK = 0;
  public static final int RUNNING = 1;
  public static final int AWAIT_BYE_ACK = 2;
  public static final int DONE = 3;

  final Workload w;
  final long total;
  final long frame;
  final int payload;
  final int m;
  int phase = AWAIT_HELLO_ACK;
  /** The next request sequence to send; the sequence of the oldest outstanding request. */
  long nextSend = 1, expect = 1;
  int expectSlot;
  /** Requests are sent up to this sequence (W during the warm-up). */
  long limit;
  /** Whether openMeasured() has run: the histogram is emptied then, once. */
  private boolean measuredOpen;
  long framesSent, framesReceived, bytesSent, bytesReceived;
  /** The send time of each outstanding request, indexed by sequence modulo M. */
  final long[] sendTimes;
  long receivedAt;
  final Histogram latency = new Histogram();

  public ClientSession(Workload w) {
    this.w = w;
    total = w.total();
    frame = w.frameSize();
    payload = (int) w.payloadBytes();
    m = (int) Math.max(1, w.maxInFlight());
    expectSlot = 1 % m;
    sendTimes = new long[m];
    limit = w.warmup() > 0 ? w.warmup() : total;
  }

  public int phase() {
    return phase;
  }

  public Histogram latency() {
    return latency;
  }

  /** Writes the HELLO at out[off..]; returns its size. */
  public int hello(byte[] out, int off) {
    putHeader(out, off, HELLO, WORKLOAD_BYTES, 0);
    w.encode(out, off + HEADER);
    framesSent++;
    bytesSent += 40;
    return 40;
  }

  /** Whether HELLO_ACK and every warm-up response are in. */
  public boolean warmupDone() {
    return phase != AWAIT_HELLO_ACK && Long.compareUnsigned(expect, w.warmup()) > 0;
  }

  /**
   * Lets the measured requests be sent, once every warm-up response is in. The warm-up's
   * latencies are recorded too, so that the JIT compiles the recording into the response path
   * while the warm-up runs: a branch that the warm-up never takes is compiled as a trap, which
   * the first measured response would spring, running the session deoptimised until the
   * compiler is done again, inside the measured window. They are dropped here, before it starts.
   */
  public void openMeasured() {
    if (!measuredOpen) {
      measuredOpen = true;
      latency.reset();
    }
    limit = total;
  }

  /** Whether the response to W + N has been validated. */
  public boolean measuredDone() {
    return Long.compareUnsigned(expect, total) > 0;
  }

  /**
   * Writes the requests the window allows at out[off..], at most room bytes of them, stamped
   * with the time now; returns the bytes written.
   */
  public int fill(byte[] out, int off, int room, long now) {
    if (phase != RUNNING) return 0;
    long hi = expect - 1 + w.maxInFlight();
    if (limit < hi) hi = limit;
    if (nextSend > hi) return 0;
    long count = hi - nextSend + 1;
    long most = room / frame;
    if (most < count) count = most;
    if (count <= 0) return 0;
    int f = (int) frame;
    int p = off;
    int slot = (int) (nextSend % m);
    for (long k = 0; k < count; k++) {
      long seq = nextSend + k;
      putHeader(out, p, REQUEST, payload, seq);
      Payload.fillPayload(out, p + HEADER, payload, seq);
      sendTimes[slot] = now;
      if (++slot == m) slot = 0;
      p += f;
    }
    nextSend += count;
    framesSent += count;
    bytesSent += count * frame;
    return p - off;
  }

  /** Writes the BYE with the client's counts at out[off..]; returns its size. */
  public int bye(byte[] out, int off) {
    putHeader(out, off, BYE, COUNTS_BYTES, total + 1);
    new Counts(nextSend - 1, expect - 1, bytesSent, bytesReceived).encode(out, off + HEADER);
    framesSent++;
    bytesSent += 48;
    phase = AWAIT_BYE_ACK;
    return 48;
  }

  /** The time the bytes about to be processed were read. */
  public void receivedAt(long t) {
    receivedAt = t;
  }

  /** The rejection for the end of stream with pending unparsed bytes: never clean. */
  public Rejection onEof(int pending) {
    Rejection r = eofCheck(pending);
    if (r != null) return r;
    switch (phase) {
      case AWAIT_HELLO_ACK:
        return unexpectedEof("before HELLO_ACK");
      case RUNNING:
        return unexpectedEof("with responses outstanding");
      case AWAIT_BYE_ACK:
        return unexpectedEof("before BYE_ACK");
      default:
        return unexpectedEof("after BYE_ACK");
    }
  }

  @Override
  boolean isNext(byte[] b, int pos, long seq, long len) {
    return phase == RUNNING && b[pos] == VERSION && b[pos + 1] == RESPONSE && b[pos + 2] == 0
        && b[pos + 3] == 0 && seq == expect && expect < nextSend && len == payload;
  }

  @Override
  Rejection nextFrame(byte[] b, int pos, long seq) {
    if (!Payload.checkResponse(b, pos + HEADER, payload, seq)) {
      return new Rejection(Rejection.WRONG_PAYLOAD,
          "RESPONSE " + u(seq) + " payload differs from respond(gen(" + u(seq) + "))");
    }
    latency.record(Math.max(0, receivedAt - sendTimes[expectSlot]));
    expect++;
    if (++expectSlot == m) expectSlot = 0;
    return null;
  }

  @Override
  void handled(int size) {
    framesReceived++;
    bytesReceived += size;
  }

  /**
   * The session ends with the read that validated BYE_ACK: a frame begun after it there is cut
   * short (a whole header was rejected by its checks).
   */
  @Override
  Rejection leftover(int pos, int end) {
    if (phase == DONE && pos < end) {
      return new Rejection(Rejection.TRUNCATED, (end - pos) + " bytes of a frame after BYE_ACK");
    }
    return null;
  }

  /** The session's checks on a header in SPEC.md's order: type, sequence, length. */
  @Override
  Rejection checkSession(byte[] b, int pos, long seq) {
    int type = b[pos + 1];
    // The type comes before the sequence: a RESPONSE is allowed only while a request is
    // outstanding, whatever its sequence.
    if (type == RESPONSE && phase != RUNNING && phase != DONE) {
      if (phase == AWAIT_HELLO_ACK) {
        return new Rejection(Rejection.UNEXPECTED_TYPE,
            "RESPONSE " + u(seq) + " before HELLO_ACK, no request is outstanding");
      }
      return new Rejection(Rejection.UNEXPECTED_TYPE,
          "RESPONSE " + u(seq) + " after every response, expected BYE_ACK");
    }
    switch (phase) {
      case AWAIT_HELLO_ACK:
        if (type != HELLO_ACK) return unexpected(type, "HELLO_ACK");
        return checkSequence("HELLO_ACK", seq, 0);
      case RUNNING:
        if (type != RESPONSE) return unexpected(type, "RESPONSE");
        // The window is refilled between reads, so it may drain within one.
        if (expect >= nextSend) {
          if (expect > total) {
            return new Rejection(Rejection.UNEXPECTED_TYPE,
                "RESPONSE " + u(seq) + " whose request does not exist, after the last response");
          }
          return new Rejection(Rejection.UNEXPECTED_TYPE,
              "RESPONSE " + u(seq) + " whose request was not sent yet");
        }
        return checkData("RESPONSE", b, pos, expect, payload);
      case AWAIT_BYE_ACK:
        if (type != BYE_ACK) return unexpected(type, "BYE_ACK");
        return checkSequence("BYE_ACK", seq, total + 1);
      default:
        return new Rejection(Rejection.UNEXPECTED_TYPE,
            typeName(type) + " frame (type " + type + ") after BYE_ACK");
    }
  }

  /** Checks a whole HELLO_ACK or BYE_ACK whose header passed. */
  @Override
  Rejection completeFrame(byte[] b, int pos) {
    int body = pos + HEADER;
    if (b[pos + 1] == HELLO_ACK) {
      byte[] want = new byte[WORKLOAD_BYTES];
      w.encode(want, 0);
      if (!java.util.Arrays.equals(b, body, body + WORKLOAD_BYTES, want, 0, WORKLOAD_BYTES)) {
        return new Rejection(Rejection.BAD_WORKLOAD, "HELLO_ACK echoes "
            + Workload.decode(b, body).describe() + ", sent " + w.describe());
      }
      phase = RUNNING;
      return null;
    }
    Counts got = Counts.decode(b, body);
    Counts want = new Counts(nextSend - 1, expect - 1, bytesReceived, bytesSent);
    if (!got.same(want)) return countMismatch("BYE_ACK", got, want);
    phase = DONE;
    return null;
  }

  /** The client's result line of lanes/README.md. */
  public String resultJson(long elapsedNs, Cpu cpu, String tls) {
    StringBuilder b = new StringBuilder(1024);
    b.append("{\"round_trips\":").append(u(w.roundTrips()));
    b.append(",\"warmup_round_trips\":").append(u(w.warmup()));
    b.append(",\"payload_bytes\":").append(w.payloadBytes());
    b.append(",\"max_in_flight\":").append(w.maxInFlight());
    b.append(",\"frames_sent\":").append(u(framesSent));
    b.append(",\"frames_received\":").append(u(framesReceived));
    b.append(",\"bytes_sent\":").append(u(bytesSent));
    b.append(",\"bytes_received\":").append(u(bytesReceived));
    b.append(",\"elapsed_ns\":").append(elapsedNs);
    b.append(',');
    cpu.appendFields(b, w.roundTrips() == 0);
    b.append("\"latency\":");
    latency.appendJson(b);
    b.append(',');
    b.append(tls);
    b.append("\"runtime\":\"java\"}");
    return b.toString();
  }
}
