package crossrun.lane;

import static crossrun.lane.Proto.*;

/**
 * The server's session state machine (SPEC.md section 3), apart from any socket. Every frame it
 * sends is the frame it answers changed in place: HELLO becomes HELLO_ACK (type byte), REQUEST
 * becomes RESPONSE (type byte, payload XOR 0x5A after its check), BYE becomes BYE_ACK (type byte
 * and the server's counts). So the answer to a batch of frames is the batch itself, written with
 * one write straight from the receive buffer.
 */
public final class ServerSession extends FrameScanner {
  public static final int AWAIT_HELLO = 0;
  public static final int REQUESTS = 1;
  public static final int AFTER_BYE_ACK = 2;

  int state = AWAIT_HELLO;
  Workload workload;
  long total;
  long frame = HEADER;
  int payload;
  long nextSeq = 1;
  long requests, responses, bytesSent, bytesReceived;

  public int state() {
    return state;
  }

  public Workload workload() {
    return workload;
  }

  public Counts counts() {
    return new Counts(requests, responses, bytesSent, bytesReceived);
  }

  @Override
  boolean isNext(byte[] b, int pos, long seq, long len) {
    return state == REQUESTS && b[pos] == VERSION && b[pos + 1] == REQUEST && b[pos + 2] == 0
        && b[pos + 3] == 0 && seq == nextSeq && nextSeq <= total && len == payload;
  }

  @Override
  Rejection nextFrame(byte[] b, int pos, long seq) {
    if (!Payload.checkAndRespond(b, pos + HEADER, payload, seq)) {
      return new Rejection(Rejection.WRONG_PAYLOAD,
          "REQUEST " + u(seq) + " payload differs from gen(" + u(seq) + ")");
    }
    b[pos + 1] = RESPONSE;
    nextSeq++;
    requests++;
    responses++;
    bytesReceived += frame;
    bytesSent += frame;
    return null;
  }

  /** The session's checks on a header in SPEC.md's order: type, sequence, length. */
  @Override
  Rejection checkSession(byte[] b, int pos, long seq) {
    int type = b[pos + 1];
    switch (state) {
      case AWAIT_HELLO:
        if (type != HELLO) return unexpected(type, "HELLO");
        return checkSequence("HELLO", seq, 0);
      case REQUESTS:
        if (type == REQUEST) {
          if (Long.compareUnsigned(nextSeq, total) > 0) {
            return new Rejection(Rejection.UNEXPECTED_TYPE, "REQUEST with sequence " + u(seq)
                + " after all " + u(total) + " requests, only BYE may come");
          }
          return checkData("REQUEST", b, pos, nextSeq, payload);
        }
        if (type == BYE) {
          if (Long.compareUnsigned(nextSeq, total) <= 0) {
            return new Rejection(Rejection.UNEXPECTED_TYPE, "BYE after " + u(nextSeq - 1) + " of "
                + u(total) + " requests, expected REQUEST " + u(nextSeq));
          }
          return checkSequence("BYE", seq, total + 1);
        }
        return unexpected(type, Long.compareUnsigned(nextSeq, total) <= 0 ? "REQUEST" : "BYE");
      default:
        return new Rejection(Rejection.UNEXPECTED_TYPE, typeName(type) + " frame (type " + type
            + ") after BYE, only the end of stream may follow it");
    }
  }

  /** Checks a whole HELLO or BYE whose header passed, then turns it into its answer. */
  @Override
  Rejection completeFrame(byte[] b, int pos) {
    int body = pos + HEADER;
    if (b[pos + 1] == HELLO) {
      Workload w = Workload.decode(b, body);
      Rejection r = w.check();
      if (r != null) return r;
      workload = w;
      total = w.total();
      frame = w.frameSize();
      payload = (int) w.payloadBytes();
      nextSeq = 1;
      b[pos + 1] = HELLO_ACK;
      bytesReceived += 40;
      bytesSent += 40;
      state = REQUESTS;
      return null;
    }
    bytesReceived += 48;
    Counts got = Counts.decode(b, body);
    // The client's view, as the server sees it.
    Counts want = new Counts(requests, responses, bytesReceived - 48, bytesSent);
    if (!got.same(want)) return countMismatch("BYE", got, want);
    counts().encode(b, body);
    b[pos + 1] = BYE_ACK;
    bytesSent += 48;
    state = AFTER_BYE_ACK;
    return null;
  }

  /** Judges the end of stream with pending unhandled bytes; null when it is the clean end. */
  public Rejection onEof(int pending) {
    Rejection r = eofCheck(pending);
    if (r != null) return r;
    switch (state) {
      case AFTER_BYE_ACK:
        return null;
      case AWAIT_HELLO:
        return unexpectedEof("before HELLO");
      default:
        if (Long.compareUnsigned(nextSeq, total) <= 0) {
          return unexpectedEof("after " + u(nextSeq - 1) + " of " + u(total) + " requests");
        }
        return unexpectedEof("before BYE");
    }
  }

  /** The server's result line of lanes/README.md. */
  public String resultJson(Cpu cpu, String tls) {
    long warm = Long.compareUnsigned(responses, workload.warmup()) > 0 ? workload.warmup() : responses;
    StringBuilder b = new StringBuilder(512);
    b.append("{\"round_trips\":").append(u(responses - warm));
    b.append(",\"warmup_round_trips\":").append(u(warm));
    b.append(",\"payload_bytes\":").append(workload.payloadBytes());
    b.append(",\"max_in_flight\":").append(workload.maxInFlight());
    // HELLO and BYE came in, HELLO_ACK and BYE_ACK went out.
    b.append(",\"frames_sent\":").append(u(responses + 2));
    b.append(",\"frames_received\":").append(u(requests + 2));
    b.append(",\"bytes_sent\":").append(u(bytesSent));
    b.append(",\"bytes_received\":").append(u(bytesReceived));
    b.append(',');
    cpu.appendFields(b, workload.roundTrips() == 0);
    b.append(tls);
    b.append("\"runtime\":\"java\"}");
    return b.toString();
  }
}
