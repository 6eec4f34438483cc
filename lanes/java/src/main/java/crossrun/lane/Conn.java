package crossrun.lane;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * One connection: application bytes over a SocketChannel, directly (tcp) or through an SSLEngine
 * (tls). Blocking or non-blocking; in non-blocking mode read returns 0 and write takes part or
 * nothing when the socket would block, and await waits on the connection's own selector. Over
 * tls, one read unwraps every whole record the socket delivered and one write wraps as many
 * full-size records as fit, so a batch of frames costs one system call either way.
 */
final class Conn {
  /** How long a rejecting peer drains input after its ERROR frame, and bounded flushes. */
  static final long LINGER_NS = 1_000_000_000L;

  static final int NET_BYTES = 256 * 1024;
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  final SocketChannel ch;
  final SSLEngine engine;
  private ByteBuffer netIn, netOut, appIn;
  private int packetSize;
  private Selector selector;
  private SelectionKey key;
  /** Over tls: the peer's close_notify arrived (else end of stream was the TCP one). */
  boolean closeNotify;

  Conn(SocketChannel ch, SSLEngine engine) {
    this.ch = ch;
    this.engine = engine;
    if (engine != null) {
      packetSize = engine.getSession().getPacketBufferSize();
      netIn = ByteBuffer.allocate(Math.max(NET_BYTES, 2 * packetSize));
      netOut = ByteBuffer.allocate(NET_BYTES + packetSize);
      netOut.flip();
      appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }
  }

  boolean blocking() {
    return ch.isBlocking();
  }

  /** Switches to non-blocking mode, for good. */
  void nonBlocking() throws IOException {
    if (key != null) return;
    ch.configureBlocking(false);
    selector = Selector.open();
    key = ch.register(selector, SelectionKey.OP_READ);
  }

  /** Waits until the connection is readable (or writable, with write) or timeoutMs passed. */
  void await(boolean write, long timeoutMs) throws IOException {
    key.interestOps(SelectionKey.OP_READ | (write ? SelectionKey.OP_WRITE : 0));
    if (timeoutMs > 0) selector.select(timeoutMs);
    else selector.select();
    selector.selectedKeys().clear();
  }

  /** Runs the TLS handshake on a blocking channel. */
  void handshake() throws IOException {
    engine.beginHandshake();
    SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
    while (true) {
      switch (hs) {
        case NEED_WRAP: {
          netOut.compact();
          SSLEngineResult r = engine.wrap(EMPTY, netOut);
          netOut.flip();
          while (netOut.hasRemaining()) ch.write(netOut);
          hs = r.getHandshakeStatus();
          if (r.getStatus() == SSLEngineResult.Status.CLOSED && hs == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            throw new SSLException("the handshake was closed");
          }
          break;
        }
        case NEED_UNWRAP:
        case NEED_UNWRAP_AGAIN: {
          netIn.flip();
          SSLEngineResult r = engine.unwrap(netIn, appIn);
          netIn.compact();
          hs = r.getHandshakeStatus();
          if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
            if (ch.read(netIn) < 0) throw new EOFException("the peer closed the connection during the handshake");
          } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new SSLException("the peer closed TLS during the handshake");
          }
          break;
        }
        case NEED_TASK: {
          Runnable t;
          while ((t = engine.getDelegatedTask()) != null) t.run();
          hs = engine.getHandshakeStatus();
          break;
        }
        default:
          return;
      }
    }
  }

  /** After a failed handshake: the alert the engine holds, sent as far as the socket takes it. */
  void sendAlert() {
    try {
      netOut.compact();
      engine.wrap(EMPTY, netOut);
      netOut.flip();
      if (!ch.isBlocking()) return;
      while (netOut.hasRemaining()) ch.write(netOut);
    } catch (IOException | RuntimeException e) {
      // The handshake's own failure is what gets reported.
    }
  }

  /**
   * Reads application bytes into b[off..off+len): their count, 0 when a non-blocking socket has
   * none yet, -1 at the end of stream (over tls also close_notify).
   */
  int read(byte[] b, int off, int len) throws IOException {
    if (engine == null) return ch.read(ByteBuffer.wrap(b, off, len));
    if (appIn.position() > 0) {
      appIn.flip();
      int n = Math.min(len, appIn.remaining());
      appIn.get(b, off, n);
      appIn.compact();
      return n;
    }
    ByteBuffer dst = ByteBuffer.wrap(b, off, len);
    while (true) {
      if (netIn.position() > 0) {
        netIn.flip();
        SSLEngineResult r;
        int produced = 0;
        do {
          r = engine.unwrap(netIn, dst);
          produced += r.bytesProduced();
          if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            Runnable t;
            while ((t = engine.getDelegatedTask()) != null) t.run();
          }
        } while (r.getStatus() == SSLEngineResult.Status.OK && netIn.hasRemaining());
        netIn.compact();
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP && !engine.isOutboundDone()) {
          // A post-handshake message (a key update) wants an answer.
          write(b, off, 0);
        }
        if (produced > 0) return produced;
        if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
          closeNotify = true;
          return -1;
        }
        if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
          throw new IOException("a TLS record does not fit the receive buffer");
        }
      }
      int n = ch.read(netIn);
      if (n < 0) return -1;
      if (n == 0) return 0;
    }
  }

  /**
   * Writes application bytes from b[off..off+len): how many it took (all of them on a blocking
   * socket). Over tls what it took may still wait in the engine's output (pending()).
   */
  int write(byte[] b, int off, int len) throws IOException {
    if (engine == null) return ch.write(ByteBuffer.wrap(b, off, len));
    if (netOut.hasRemaining()) {
      ch.write(netOut);
      if (netOut.hasRemaining()) return 0;
    }
    ByteBuffer src = ByteBuffer.wrap(b, off, len);
    netOut.compact();
    do {
      SSLEngineResult r = engine.wrap(src, netOut);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("TLS is closed for writing");
      if (r.getStatus() != SSLEngineResult.Status.OK) break;
    } while (src.hasRemaining() && netOut.remaining() >= packetSize);
    netOut.flip();
    while (netOut.hasRemaining()) {
      if (ch.write(netOut) == 0) break;
    }
    return src.position() - off;
  }

  /** Whether taken bytes still wait to go out (tls). */
  boolean pending() {
    return engine != null && netOut.hasRemaining();
  }

  /** Writes all of b[off..off+len) and what is pending; false when deadline (nanoTime) passed. */
  boolean writeAll(byte[] b, int off, int len, long deadline) throws IOException {
    while (len > 0 || pending()) {
      int n = write(b, off, len);
      off += n;
      len -= n;
      if (len > 0 || pending()) {
        if (ch.isBlocking()) continue;
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) return false;
        awaitWrite(left);
      }
    }
    return true;
  }

  private void awaitWrite(long timeoutMs) throws IOException {
    key.interestOps(SelectionKey.OP_WRITE);
    selector.select(timeoutMs);
    selector.selectedKeys().clear();
  }

  /** Over tls: close_notify, as far as the socket takes it within the deadline. */
  void closeNotify(long deadline) {
    if (engine == null) return;
    try {
      engine.closeOutbound();
      if (netOut.hasRemaining() && !writeAll(new byte[0], 0, 0, deadline)) return;
      netOut.compact();
      engine.wrap(EMPTY, netOut);
      netOut.flip();
      writeAll(new byte[0], 0, 0, deadline);
    } catch (IOException | RuntimeException e) {
      // Closing anyway.
    }
  }

  /**
   * Reads and drops what the peer still sends until its end of stream, for at most timeoutNs:
   * a rejecting peer's ERROR frame reaches the other side instead of a reset, and a server's
   * close waits for the client's.
   */
  void drain(long timeoutNs) {
    try {
      nonBlocking();
      long deadline = System.nanoTime() + timeoutNs;
      ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
      long total = 0;
      while (total < (64 << 20)) {
        scratch.clear();
        int n = ch.read(scratch);
        if (n < 0) return;
        total += n;
        if (n == 0) {
          long left = (deadline - System.nanoTime()) / 1_000_000;
          if (left <= 0) return;
          key.interestOps(SelectionKey.OP_READ);
          selector.select(left);
          selector.selectedKeys().clear();
        }
      }
    } catch (IOException | RuntimeException e) {
      // The drain is a courtesy.
    }
  }

  /**
   * The end of a rejecting peer: the rest of its whole frames then the ERROR frame (when
   * error is not null and they go out within the linger), close_notify over tls, a half-close
   * and a bounded drain, then the close.
   */
  void rejectAndClose(byte[] queued, int off, int len, byte[] error) {
    try {
      nonBlocking();
      long deadline = System.nanoTime() + LINGER_NS;
      if (error != null && writeAll(queued, off, len, deadline)) {
        writeAll(error, 0, error.length, deadline);
      }
      closeNotify(deadline);
      ch.shutdownOutput();
      drain(LINGER_NS);
    } catch (IOException | RuntimeException e) {
      // Closing anyway.
    }
    close();
  }

  void close() {
    try {
      ch.close();
    } catch (IOException e) {
      // Nothing more to do.
    }
    if (selector != null) {
      try {
        selector.close();
      } catch (IOException e) {
        // Nothing more to do.
      }
    }
  }
}
