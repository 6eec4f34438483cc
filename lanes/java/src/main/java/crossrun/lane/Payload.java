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

  /**
   * The one walk over gen(seq, len) at b[off..], 8 bytes z of it at a time (the last ones cut to
   * fit): where check, the bits where b differs from z ^ expectMask are gathered; where write, b
   * then holds z ^ writeMask. Returns whether nothing differed. The callers pass constant flags:
   * once it is inlined into one, the branches fold away.
   */
  static boolean walk(byte[] b, int off, int len, long seq, boolean check, long expectMask,
      boolean write, long writeMask) {
    long state = seq;
    long diff = 0;
    int end = off + len;
    int p = off;
    for (; end - p >= 8; p += 8) {
      state += GAMMA;
      long z = mix(state);
      if (check) diff |= ((long) LE.get(b, p)) ^ z ^ expectMask;
      if (write) LE.set(b, p, z ^ writeMask);
    }
    if (p < end) {
      state += GAMMA;
      long z = mix(state);
      for (int i = 0; p < end; p++, i += 8) {
        if (check) diff |= (b[p] ^ ((z ^ expectMask) >>> i)) & 0xff;
        if (write) b[p] = (byte) ((z ^ writeMask) >>> i);
      }
    }
    return diff == 0;
  }

  /** Writes gen(seq, len) at out[off..]. */
  public static void fillPayload(byte[] out, int off, int len, long seq) {
    walk(out, off, len, seq, false, 0, true, 0);
  }

  /** Writes respond(gen(seq, len)) at out[off..]. */
  public static void fillResponse(byte[] out, int off, int len, long seq) {
    walk(out, off, len, seq, false, 0, true, MASK64);
  }

  public static boolean checkPayload(byte[] in, int off, int len, long seq) {
    return walk(in, off, len, seq, true, 0, false, 0);
  }

  public static boolean checkResponse(byte[] in, int off, int len, long seq) {
    return walk(in, off, len, seq, true, MASK64, false, 0);
  }

  /**
   * Checks a request payload in place and turns it into its response: returns whether it was
   * gen(seq, len); afterwards it holds respond(gen(seq, len)) either way.
   */
  public static boolean checkAndRespond(byte[] b, int off, int len, long seq) {
    return walk(b, off, len, seq, true, 0, true, MASK64);
  }
}
