package crossrun.lane;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The payload generator of SPEC.md section 4: gen(s, P) is the first P bytes of the splitmix64
 * stream seeded with s, each block little-endian; respond XORs every byte with 0x5A. Whole 8-byte
 * blocks at a time, the last one cut to fit.
 */
public final class Payload {
  private Payload() {}

  static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  static final long GAMMA = 0x9E3779B97F4A7C15L;
  static final long MASK64 = 0x5A5A5A5A5A5A5A5AL;

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static void fill(byte[] out, int off, int len, long seq, long mask) {
    long state = seq;
    int end = off + len;
    int p = off;
    for (; end - p >= 8; p += 8) {
      state += GAMMA;
      LE.set(out, p, mix(state) ^ mask);
    }
    if (p < end) {
      state += GAMMA;
      long z = mix(state) ^ mask;
      for (int i = 0; p < end; p++, i += 8) out[p] = (byte) (z >>> i);
    }
  }

  static boolean check(byte[] in, int off, int len, long seq, long mask) {
    long state = seq;
    long diff = 0;
    int end = off + len;
    int p = off;
    for (; end - p >= 8; p += 8) {
      state += GAMMA;
      diff |= ((long) LE.get(in, p)) ^ mix(state) ^ mask;
    }
    if (p < end) {
      state += GAMMA;
      long z = mix(state) ^ mask;
      for (int i = 0; p < end; p++, i += 8) diff |= (in[p] ^ (z >>> i)) & 0xff;
    }
    return diff == 0;
  }

  /** Writes gen(seq, len) at out[off..]. */
  public static void fillPayload(byte[] out, int off, int len, long seq) {
    fill(out, off, len, seq, 0);
  }

  /** Writes respond(gen(seq, len)) at out[off..]. */
  public static void fillResponse(byte[] out, int off, int len, long seq) {
    fill(out, off, len, seq, MASK64);
  }

  public static boolean checkPayload(byte[] in, int off, int len, long seq) {
    return check(in, off, len, seq, 0);
  }

  public static boolean checkResponse(byte[] in, int off, int len, long seq) {
    return check(in, off, len, seq, MASK64);
  }

  /**
   * Checks a request payload in place and turns it into its response: returns whether it was
   * gen(seq, len); afterwards it holds respond(gen(seq, len)) either way.
   */
  public static boolean checkAndRespond(byte[] b, int off, int len, long seq) {
    long state = seq;
    long diff = 0;
    int end = off + len;
    int p = off;
    for (; end - p >= 8; p += 8) {
      state += GAMMA;
      long z = mix(state);
      diff |= ((long) LE.get(b, p)) ^ z;
      LE.set(b, p, z ^ MASK64);
    }
    if (p < end) {
      state += GAMMA;
      long z = mix(state);
      for (int i = 0; p < end; p++, i += 8) {
        byte want = (byte) (z >>> i);
        diff |= (b[p] ^ want) & 0xff;
        b[p] = (byte) (want ^ 0x5A);
      }
    }
    return diff == 0;
  }
}
