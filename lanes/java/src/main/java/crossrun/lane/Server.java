package crossrun.lane;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.Inet4Address;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import javax.net.ssl.SSLEngine;

/**
 * The server program: `READY <port>`, one session on blocking reads and writes (each read's
 * frames answered in place with one write), then its result line after the end of stream that
 * follows its BYE_ACK.
 */
public final class Server {
  private Server() {}

  public static void main(String[] args) {
    Main.run("server", args);
  }

  static int run(Args.Server a) {
    // The JDK's TLS set-up (providers, certificate parsing, the context) takes longer than the
    // JVM's own start: it runs on a second thread while the server binds, says READY and waits
    // for its connection, and the handshake waits for it. A certificate or key that cannot be
    // used still ends the server with exit 1, as soon as that is known.
    FutureTask<SSLEngine> tls = null;
    if (a.transport.tls) {
      String cert = a.transport.cert, key = a.transport.key;
      tls = new FutureTask<>(() -> {
        try {
          return Tls.serverEngine(Tls.serverContext(cert, key));
        } catch (Exception e) {
          Main.say("server: cannot load the certificate and key: " + Main.describe(e));
          System.exit(1);
          throw e;
        }
      });
      Thread t = new Thread(tls, "tls-setup");
      t.setDaemon(true);
      t.start();
    }
    SocketChannel ch;
    try (ServerSocketChannel ss = ServerSocketChannel.open(
        a.host instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6)) {
      ss.bind(new InetSocketAddress(a.host, a.port), 1);
      int port = ((InetSocketAddress) ss.getLocalAddress()).getPort();
      if (!Main.out("READY " + port + "\n")) {
        Main.say("server: cannot write the READY line");
        return 1;
      }
      ch = ss.accept();
    } catch (IOException e) {
      Main.say("server: cannot listen on " + a.text + " or accept: " + Main.describe(e));
      return 1;
    }
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    } catch (IOException e) {
      // Only a latency matter.
    }
    SSLEngine engine = null;
    if (tls != null) {
      try {
        engine = tls.get();
      } catch (InterruptedException | ExecutionException e) {
        Main.say("server: cannot load the certificate and key: " + Main.describe(e));
        return 1;
      }
    }
    Conn c = new Conn(ch, engine);
    if (engine != null && Main.handshake("server", c, engine, true) < 0) return 1;
    return serve(c, engine);
  }

  static int serve(Conn c, SSLEngine engine) {
    ServerSession s = new ServerSession();
    Cpu cpu = new Cpu();
    RecvBuf in = new RecvBuf();
    boolean opened = false, closed = false;
    Rejection rej;
    boolean sendError = true;
    while (true) {
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
        if (rej != null) break;
        // The clean end. Over tls close_notify came first: the TCP end of stream follows it,
        // and the server closes only after it, so the client has closed first.
        if (c.closeNotify) c.drain(5 * Conn.LINGER_NS);
        c.close();
        return Main.out(s.resultJson(cpu, Tls.json(engine, 0)) + "\n") ? 0 : 1;
      }
      // The CPU window opens before the read that holds request W + 1: the client sends it only
      // once every warm-up answer is in.
      if (!opened && s.state() == ServerSession.REQUESTS && Long.compareUnsigned(s.responses, s.workload.warmup()) >= 0) {
        opened = true;
        cpu.open();
      }
      int used = s.process(in.buf, in.start, in.end);
      if (opened && !closed && s.state() == ServerSession.AFTER_BYE_ACK) {
        closed = true;
        cpu.close();
      }
      if (used > 0) {
        try {
          c.writeAll(in.buf, in.start, used, 0);
        } catch (IOException e) {
          rej = s.rejection != null ? s.rejection : Main.writeFailure(e);
          sendError = false;
          break;
        }
        in.consume(used);
      }
      if (s.rejection != null) {
        rej = s.rejection;
        break;
      }
    }
    return Main.reject("server", c, rej, sendError, in.buf, 0, 0);
  }
}
