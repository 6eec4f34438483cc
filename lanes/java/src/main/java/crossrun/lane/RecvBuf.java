package crossrun.lane;

import java.io.IOException;

/**
 * The receive buffer of a session: reads land at its end, handled frames are consumed from its
 * start, and the unhandled tail moves to the front only when it is short or the free room runs
 * low. Twice the largest frame, so a partial frame always fits after a move and one read can
 * deliver many frames; its size bounds memory whatever the peer sends.
 */
final class RecvBuf {
  final byte[] buf = new byte[2 * Proto.MAX_FRAME];
  int start, end;

  int pending() {
    return end - start;
  }

  void consume(int n) {
    start += n;
    if (start == end) start = end = 0;
  }

  /** One read into the free room: as Conn.read, the count, 0 or -1. */
  int read(Conn c) throws IOException {
    if (start > 0 && (end - start <= 4096 || buf.length - end < buf.length / 4)) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      start = 0;
    }
    int n = c.read(buf, end, buf.length - end);
    if (n > 0) end += n;
    return n;
  }
}
