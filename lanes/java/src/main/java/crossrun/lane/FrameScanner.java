package crossrun.lane;

import static crossrun.lane.Proto.*;

/**
 * The frame scan of both sessions: every check but the payload's is made as soon as a frame's 16
 * header bytes are there, in SPEC.md's order (the header's own, then the session's), so an
 * incomplete frame can be rejected too; a frame is handled once it is whole. The session's next
 * REQUEST or RESPONSE, the common case, passes the header checks at once.
 */
abstract class FrameScanner {
  /** The rejection met right after the frames the last process() handled, or null. */
  public Rejection rejection;

  /** Whether the header at b[pos..] is the session's next data frame, valid as it stands. */
  abstract boolean isNext(byte[] b, int pos, long seq, long len);

  /** The session's checks, in SPEC.md's order, on a header that passed checkHeader, not ERROR. */
  abstract Rejection checkSession(byte[] b, int pos, long seq);

  /** Handles a whole frame that isNext accepted; the rejection, or null. */
  abstract Rejection nextFrame(byte[] b, int pos, long seq);

  /** Handles any other whole frame whose header passed; the rejection, or null. */
  abstract Rejection completeFrame(byte[] b, int pos);

  /** Counts a whole frame of size bytes once it is handled. */
  void handled(int size) {}

  /** The rejection for the bytes b[pos..end) left after the last whole frame, or null. */
  Rejection leftover(int pos, int end) {
    return null;
  }

  /**
   * Handles every complete frame of b[start..end) and returns how many bytes they took;
   * rejection is set when it stopped at a rejected frame, whose bytes stay unhandled.
   */
  public int process(byte[] b, int start, int end) {
    int pos = start;
    rejection = null;
    while (end - pos >= HEADER) {
      long seq = getLong(b, pos + 8);
      long len = getUInt(b, pos + 4);
      boolean next = isNext(b, pos, seq, len);
      if (!next) {
        Rejection r = checkHeader(b, pos);
        // An ERROR frame ends the session in any state.
        if (r == null) r = b[pos + 1] == ERROR ? peerError(b, pos, end - pos) : checkSession(b, pos, seq);
        if (r != null) {
          rejection = r;
          return pos - start;
        }
      }
      int size = HEADER + (int) len;
      if (end - pos < size) break;
      Rejection r = next ? nextFrame(b, pos, seq) : completeFrame(b, pos);
      if (r != null) {
        rejection = r;
        return pos - start;
      }
      handled(size);
      pos += size;
    }
    rejection = leftover(pos, end);
    return pos - start;
  }

  /** wrong_sequence for a what frame whose sequence is not want; null when it is. */
  static Rejection checkSequence(String what, long seq, long want) {
    if (seq == want) return null;
    return new Rejection(Rejection.WRONG_SEQUENCE, what + " with sequence " + u(seq) + ", expected " + u(want));
  }

  /**
   * The session's next what (REQUEST or RESPONSE) at b[pos..]: its sequence must be want, then
   * its payload_length the workload's payload_bytes; null when they are.
   */
  static Rejection checkData(String what, byte[] b, int pos, long want, int payload) {
    long seq = getLong(b, pos + 8);
    Rejection r = checkSequence(what, seq, want);
    if (r != null) return r;
    long len = getUInt(b, pos + 4);
    if (len == payload) return null;
    return new Rejection(Rejection.BAD_LENGTH,
        what + " " + u(seq) + " with payload_length " + len + ", workload payload_bytes " + payload);
  }
}
