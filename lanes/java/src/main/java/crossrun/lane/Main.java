package crossrun.lane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLEngine;

/**
 * What the two programs share: the command line, exit statuses, the stderr line, stdout, the
 * handshake, I/O failures, the end after a rejection.
 */
final class Main {
  private Main() {}

  static final int EXIT_USAGE = 2;

  /**
   * The main of program ("client" or "server"): its command line parsed (a bad one is one stderr
   * line and exit status 2), the program run, stdout flushed, the program's exit status.
   */
  static void run(String program, String[] argv) {
    boolean server = program.equals("server");
    int rc;
    try {
      rc = server ? Server.run(Args.server(argv)) : Client.run(Args.client(argv));
    } catch (Args.UsageError e) {
      say(program + ": usage error: " + e.getMessage());
      rc = EXIT_USAGE;
    }
    System.out.flush();
    System.exit(rc);
  }

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

  /**
   * The TLS handshake, ALPN checked: its time in nanoseconds (at least 1), or -1 when it failed:
   * then program's `tls_handshake:` line is said, an alert sent and the connection closed.
   */
  static long handshake(String program, Conn c, SSLEngine engine, boolean server) {
    String problem;
    long ns = -1;
    long t0 = System.nanoTime();
    try {
      c.handshake();
      ns = Math.max(1, System.nanoTime() - t0);
      problem = Tls.alpnProblem(engine, server);
    } catch (IOException | RuntimeException e) {
      problem = Tls.handshakeReason(e);
      c.sendAlert();
    }
    if (problem == null) return ns;
    say(program + ": tls_handshake: " + problem);
    c.close();
    return -1;
  }

  /**
   * The end after a rejection: its stderr line, the queued bytes queued[off..off+len), then an
   * ERROR frame unless the peer's own ERROR or a failed transfer (sendError false) ended it, the
   * close; the exit status.
   */
  static int reject(String program, Conn c, Rejection rej, boolean sendError, byte[] queued, int off,
      int len) {
    say(program + ": " + rej.getMessage());
    byte[] error = null;
    if (sendError && rej.kind != Rejection.PEER_ERROR) error = Proto.errorFrame(rej.code(), rej.getMessage());
    c.rejectAndClose(queued, off, len, error);
    return 1;
  }
}
