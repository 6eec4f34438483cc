package crossrun.lane;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Frames of SPEC.md sections 1 and 2: header, workload, counts, ERROR. */
public final class Proto {
  private Proto() {}

  public static final int VERSION = 1;
  public static final int HEADER = 16;
  public static final int MAX_PAYLOAD = 1048576;
  public static final int MAX_FRAME = HEADER + MAX_PAYLOAD;
  public static final int MAX_IN_FLIGHT = 65536;
  public static final int WORKLOAD_BYTES = 24;
  public static final int COUNTS_BYTES = 32;
  public static final int MAX_REASON = 512;
  /** W + N must be below this. */
  public static final long MAX_TOTAL = 1L << 62;

  public static final int HELLO = 1;
  public static final int HELLO_ACK = 2;
  public static final int REQUEST = 3;
  public static final int RESPONSE = 4;
  public static final int BYE = 5;
  public static final int BYE_ACK = 6;
  public static final int ERROR = 7;

  static final VarHandle BE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  static final VarHandle BE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  static final VarHandle BE16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

  public static long getLong(byte[] b, int off) {
    return (long) BE64.get(b, off);
  }

  public static void putLong(byte[] b, int off, long v) {
    BE64.set(b, off, v);
  }

  /** The 32-bit field as an unsigned value. */
  public static long getUInt(byte[] b, int off) {
    return ((int) BE32.get(b, off)) & 0xffffffffL;
  }

  public static void putInt(byte[] b, int off, int v) {
    BE32.set(b, off, v);
  }

  public static int getUShort(byte[] b, int off) {
    return ((short) BE16.get(b, off)) & 0xffff;
  }

  public static String typeName(int t) {
    switch (t) {
      case HELLO:
        return "HELLO";
      case HELLO_ACK:
        return "HELLO_ACK";
      case REQUEST:
        return "REQUEST";
      case RESPONSE:
        return "RESPONSE";
      case BYE:
        return "BYE";
      case BYE_ACK:
        return "BYE_ACK";
      case ERROR:
        return "ERROR";
      default:
        return "unknown";
    }
  }

  public static String u(long v) {
    return Long.toUnsignedString(v);
  }

  /** Writes a header at out[off..off+16]. */
  public static void putHeader(byte[] out, int off, int type, int len, long seq) {
    out[off] = VERSION;
    out[off + 1] = (byte) type;
    out[off + 2] = 0;
    out[off + 3] = 0;
    putInt(out, off + 4, len);
    putLong(out, off + 8, seq);
  }

  /**
   * The checks of SPEC.md section 1 due as soon as a header arrived, in the spec's order; null
   * when it passes.
   */
  public static Rejection checkHeader(byte[] b, int off) {
    int version = b[off] & 0xff;
    int type = b[off + 1] & 0xff;
    int flags = getUShort(b, off + 2);
    long len = getUInt(b, off + 4);
    if (version != VERSION) {
      return new Rejection(Rejection.UNSUPPORTED_VERSION, "frame version " + version + ", expected 1");
    }
    if (type < HELLO || type > ERROR) {
      return new Rejection(Rejection.UNKNOWN_TYPE, "frame type " + type);
    }
    if (flags != 0) {
      return new Rejection(Rejection.BAD_FLAGS,
          String.format("flags 0x%04x in a %s frame", flags, typeName(type)));
    }
    if (len > MAX_PAYLOAD) {
      return new Rejection(Rejection.FRAME_TOO_LARGE,
          "payload_length " + len + " in a " + typeName(type) + " frame, maximum " + MAX_PAYLOAD);
    }
    int fixed = type == HELLO || type == HELLO_ACK ? WORKLOAD_BYTES
        : type == BYE || type == BYE_ACK ? COUNTS_BYTES : -1;
    if (fixed >= 0 && len != fixed) {
      return new Rejection(Rejection.BAD_LENGTH,
          "payload_length " + len + " in a " + typeName(type) + " frame, must be " + fixed);
    }
    if (type == ERROR && (len < 2 || len > 2 + MAX_REASON)) {
      return new Rejection(Rejection.BAD_LENGTH,
          "payload_length " + len + " in an ERROR frame, must be 2.." + (2 + MAX_REASON));
    }
    return null;
  }

  /** The end of stream with pending unparsed bytes: null between frames, else truncated. */
  public static Rejection eofCheck(int pending) {
    if (pending == 0) return null;
    return new Rejection(Rejection.TRUNCATED, "end of stream " + pending + " bytes into a frame");
  }

  /** peer_error for an ERROR frame of which avail bytes (header included) arrived so far. */
  public static Rejection peerError(byte[] b, int off, int avail) {
    int size = HEADER + (int) getUInt(b, off + 4);
    if (avail < HEADER + 2) {
      return new Rejection(Rejection.PEER_ERROR, "received an ERROR frame header ("
          + (size - HEADER) + " payload bytes announced), its code not yet");
    }
    int code = getUShort(b, off + HEADER);
    int have = Math.min(avail, size);
    String reason = new String(b, off + HEADER + 2, have - HEADER - 2, StandardCharsets.UTF_8);
    String detail = "received ERROR code " + code + " (" + Rejection.codeName(code) + "): "
        + oneLine(reason, 600);
    if (avail < size) {
      detail += " (reason cut: " + avail + " of " + size + " frame bytes arrived)";
    }
    return new Rejection(Rejection.PEER_ERROR, detail);
  }

  /** An ERROR frame; the reason is cut to 512 bytes at a character boundary. */
  public static byte[] errorFrame(int code, String reason) {
    byte[] r = reason.getBytes(StandardCharsets.UTF_8);
    int n = r.length;
    if (n > MAX_REASON) {
      n = MAX_REASON;
      while (n > 0 && (r[n] & 0xC0) == 0x80) n--;
    }
    byte[] f = new byte[HEADER + 2 + n];
    putHeader(f, 0, ERROR, 2 + n, 0);
    f[HEADER] = (byte) (code >>> 8);
    f[HEADER + 1] = (byte) code;
    System.arraycopy(r, 0, f, HEADER + 2, n);
    return f;
  }

  /**
   * Text made safe for one stderr line: control characters escaped (invalid UTF-8 already became
   * U+FFFD when decoded), cut at max code points.
   */
  public static String oneLine(String text, int max) {
    StringBuilder b = new StringBuilder(Math.min(text.length(), max) + 8);
    int n = 0;
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      if (n >= max) {
        b.append("...");
        break;
      }
      n++;
      if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else if (c == '\t') b.append("\\t");
      else if (c < 0x20 || c == 0x7f) b.append(String.format("\\x%02x", c));
      else if (c >= 0xD800 && c <= 0xDFFF) b.append('\uFFFD');
      else b.appendCodePoint(c);
    }
    return b.toString();
  }

  /** The HELLO and HELLO_ACK payload. */
  public record Workload(long warmup, long roundTrips, long payloadBytes, long maxInFlight) {
    public static Workload decode(byte[] b, int off) {
      return new Workload(getLong(b, off), getLong(b, off + 8), getUInt(b, off + 16), getUInt(b, off + 20));
    }

    public void encode(byte[] b, int off) {
      putLong(b, off, warmup);
      putLong(b, off + 8, roundTrips);
      putInt(b, off + 16, (int) payloadBytes);
      putInt(b, off + 20, (int) maxInFlight);
    }

    /** The workload rules of SPEC.md section 2; null when they hold. */
    public Rejection check() {
      if (roundTrips == 0) {
        return new Rejection(Rejection.BAD_WORKLOAD, "round_trips 0, must be 1 or more");
      }
      if (payloadBytes > MAX_PAYLOAD) {
        return new Rejection(Rejection.BAD_WORKLOAD, "payload_bytes " + payloadBytes + ", maximum " + MAX_PAYLOAD);
      }
      if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
        return new Rejection(Rejection.BAD_WORKLOAD, "max_in_flight " + maxInFlight + ", must be 1.." + MAX_IN_FLIGHT);
      }
      long t = warmup + roundTrips;
      if (Long.compareUnsigned(warmup, MAX_TOTAL) >= 0 || Long.compareUnsigned(roundTrips, MAX_TOTAL) >= 0
          || Long.compareUnsigned(t, MAX_TOTAL) >= 0) {
        return new Rejection(Rejection.BAD_WORKLOAD,
            "warmup " + u(warmup) + " + round_trips " + u(roundTrips) + " is not below 2^62");
      }
      return null;
    }

    public long total() {
      return warmup + roundTrips;
    }

    public long frameSize() {
      return HEADER + payloadBytes;
    }

    public String describe() {
      return "warmup=" + u(warmup) + " round_trips=" + u(roundTrips) + " payload_bytes=" + payloadBytes
          + " max_in_flight=" + maxInFlight;
    }
  }

  /** The BYE and BYE_ACK payload. */
  public record Counts(long requests, long responses, long bytesSent, long bytesReceived) {
    public static Counts decode(byte[] b, int off) {
      return new Counts(getLong(b, off), getLong(b, off + 8), getLong(b, off + 16), getLong(b, off + 24));
    }

    public void encode(byte[] b, int off) {
      putLong(b, off, requests);
      putLong(b, off + 8, responses);
      putLong(b, off + 16, bytesSent);
      putLong(b, off + 24, bytesReceived);
    }

    /** Every count equal (not equals, whose first call links a bootstrap inside the CPU window). */
    public boolean same(Counts o) {
      return requests == o.requests && responses == o.responses && bytesSent == o.bytesSent
          && bytesReceived == o.bytesReceived;
    }

    public String describe() {
      return "requests=" + u(requests) + " responses=" + u(responses) + " bytes_sent=" + u(bytesSent)
          + " bytes_received=" + u(bytesReceived);
    }

    /** The counts a BYE (ack false) or BYE_ACK (ack true) carries for w, modulo 2^64. */
    public static Counts expected(Workload w, boolean ack) {
      long t = w.total();
      long base = t * w.frameSize() + 40;
      return new Counts(t, t, base, ack ? base + 48 : base);
    }
  }

  static Rejection countMismatch(String what, Counts got, Counts want) {
    return new Rejection(Rejection.COUNT_MISMATCH,
        what + " counts " + got.describe() + ", expected " + want.describe());
  }

  static Rejection unexpected(int type, String expected) {
    return new Rejection(Rejection.UNEXPECTED_TYPE,
        typeName(type) + " frame (type " + type + "), expected " + expected);
  }

  static Rejection unexpectedEof(String what) {
    return new Rejection(Rejection.UNEXPECTED_EOF, "end of stream " + what);
  }
}
