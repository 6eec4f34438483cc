package crossrun.lane;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * The client program: one session, then its result line. One thread. A window of up to 32 KiB
 * (every outstanding request and response fit in any common system's socket buffers) runs on
 * blocking reads and writes; a larger one on non-blocking ones around a selector, so that it
 * reads whenever its writes would block and the two peers can never block writing at once.
 * Either way: write the requests the window allows, read, validate every complete frame of the
 * read, refill.
 */
public final class Client {
  private Client() {}

  static final int SINGLE_WINDOW_BYTES = 32 * 1024;
  /** The most request bytes queued for one write. */
  static final int WRITE_BATCH_BYTES = 256 * 1024;

  public static void main(String[] args) {
    Main.run("client", args);
  }

  static int run(Args.Client a) {
    SSLContext ctx = null;
    if (a.transport.tls) {
      try {
        ctx = Tls.clientContext(a.transport.ca);
      } catch (Exception e) {
        Main.say("client: cannot load the CA certificate: " + Main.describe(e));
        return 1;
      }
    }
    SocketChannel ch;
    try {
      ch = SocketChannel.open(a.host instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
      ch.connect(new InetSocketAddress(a.host, a.port));
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    } catch (IOException e) {
      Main.say("client: cannot connect to " + a.text + ": " + Main.describe(e));
      return 1;
    }
    SSLEngine engine = null;
    long handshakeNs = 0;
    Conn c;
    if (ctx != null) {
      engine = Tls.clientEngine(ctx, a.host.getHostAddress(), a.port);
      c = new Conn(ch, engine);
      handshakeNs = Main.handshake("client", c, engine, false);
      if (handshakeNs < 0) return 1;
    } else {
      c = new Conn(ch, null);
    }
    Proto.Workload w = a.workload;
    if (w.maxInFlight() * w.frameSize() > SINGLE_WINDOW_BYTES) {
      try {
        c.nonBlocking();
      } catch (IOException e) {
        Main.say("client: cannot set up the connection: " + Main.describe(e));
        c.close();
        return 1;
      }
    }
    return session(c, engine, w, handshakeNs);
  }

  static int session(Conn c, SSLEngine engine, Proto.Workload w, long handshakeNs) {
    ClientSession s = new ClientSession(w);
    Cpu cpu = new Cpu();
    RecvBuf in = new RecvBuf();
    byte[] out = new byte[WRITE_BATCH_BYTES + Proto.MAX_FRAME + 64];
    int os = 0, oe = s.hello(out, 0);
    long t0 = 0, t1 = 0;
    boolean started = false, byeQueued = false;
    Rejection rej;
    boolean sendError = true;
    while (true) {
      if (!started && s.warmupDone()) {
        s.openMeasured();
        cpu.open();
        t0 = System.nanoTime();
        started = true;
      }
      if (started && !byeQueued && s.measuredDone()) {
        t1 = System.nanoTime();
        cpu.close();
        if (os == oe) os = oe = 0;
        oe += s.bye(out, oe);
        byeQueued = true;
      }
      if (s.phase() == ClientSession.RUNNING && oe - os < WRITE_BATCH_BYTES) {
        if (os > 0 && out.length - oe < WRITE_BATCH_BYTES) {
          System.arraycopy(out, os, out, 0, oe - os);
          oe -= os;
          os = 0;
        }
        int room = Math.min(WRITE_BATCH_BYTES - (oe - os), out.length - oe);
        oe += s.fill(out, oe, Math.max(room, (int) Math.min(w.frameSize(), out.length - oe)), System.nanoTime());
      }
      if (oe > os || c.pending()) {
        try {
          os += c.write(out, os, oe - os);
          if (os == oe) os = oe = 0;
        } catch (IOException e) {
          rej = writeFailed(c, s, in, e);
          sendError = false;
          break;
        }
      }
      int n;
      try {
        n = in.read(c);
      } catch (IOException e) {
        rej = Main.readFailure(e, in.pending());
        sendError = false;
        break;
      }
      if (n < 0) {
        rej = s.onEof(in.pending());
        break;
      }
      if (n == 0) {
        try {
          c.await(oe > os || c.pending(), 0);
        } catch (IOException e) {
          rej = Main.readFailure(e, in.pending());
          sendError = false;
          break;
        }
        continue;
      }
      s.receivedAt(System.nanoTime());
      in.consume(s.process(in.buf, in.start, in.end));
      if (s.rejection != null) {
        rej = s.rejection;
        break;
      }
      if (s.phase() == ClientSession.DONE) {
        // The client closes first (SPEC.md section 3, step 6); over tls after close_notify.
        c.closeNotify(System.nanoTime() + Conn.LINGER_NS);
        c.close();
        String line = s.resultJson(Math.max(1, t1 - t0), cpu, Tls.json(engine, handshakeNs));
        return Main.out(line + "\n") ? 0 : 1;
      }
    }
    return Main.reject("client", c, rej, sendError, out, os, oe - os);
  }

  /**
   * A write that failed because the peer went away: what it sent before says why (its ERROR
   * frame, most likely), read for a moment; else the failed write is the rejection.
   */
  static Rejection writeFailed(Conn c, ClientSession s, RecvBuf in, IOException e) {
    try {
      c.nonBlocking();
      long deadline = System.nanoTime() + Conn.LINGER_NS;
      while (true) {
        int n = in.read(c);
        if (n < 0) break;
        if (n == 0) {
          long left = (deadline - System.nanoTime()) / 1_000_000;
          if (left <= 0) break;
          c.await(false, left);
          continue;
        }
        in.consume(s.process(in.buf, in.start, in.end));
        if (s.rejection != null) return s.rejection;
      }
    } catch (IOException | RuntimeException x) {
      // The failed write is what is reported.
    }
    return Main.writeFailure(e);
  }
}
