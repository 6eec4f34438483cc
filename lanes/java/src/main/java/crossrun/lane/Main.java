package crossrun.lane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** What the two programs share: exit statuses, the stderr line, stdout, I/O failures. */
final class Main {
  private Main() {}

  static final int EXIT_USAGE = 2;

  /** One line on stderr, whatever the text holds. */
  static void say(String text) {
    byte[] b = (Proto.oneLine(text, 4000) + "\n").getBytes(StandardCharsets.UTF_8);
    System.err.write(b, 0, b.length);
    System.err.flush();
  }

  /** A line on stdout, flushed; false when it could not be written. */
  static boolean out(String line) {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    System.out.write(b, 0, b.length);
    System.out.flush();
    return !System.out.checkError();
  }

  static String describe(Throwable e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
  }

  /**
   * A failed read with pending unparsed bytes, as SPEC.md section 3 names it: a reset (or a TLS
   * failure after the handshake) counts as the end of stream.
   */
  static Rejection readFailure(IOException e, int pending) {
    if (pending > 0) {
      return new Rejection(Rejection.TRUNCATED, "read failed " + pending + " bytes into a frame: " + describe(e));
    }
    return new Rejection(Rejection.UNEXPECTED_EOF, "read failed between frames: " + describe(e));
  }

  static Rejection writeFailure(IOException e) {
    return new Rejection(Rejection.UNEXPECTED_EOF, "write failed, peer closed the connection: " + describe(e));
  }
}
