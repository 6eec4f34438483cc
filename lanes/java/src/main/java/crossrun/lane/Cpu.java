package crossrun.lane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's own user and system CPU time (SPEC.md section 7). Java has no getrusage: on
 * Linux /proc/self/stat gives both, in clock ticks (USER_HZ, 100 on every Linux port crossrun
 * runs on); elsewhere the figures are left out of the result line ("not reported"). The finer
 * sources a JDK program has give only user plus system, so the two stay ticks (README.md).
 */
final class Cpu {
  private static final Path STAT = Path.of("/proc/self/stat");
  private static final long US_PER_TICK = 10000;

  long startUser = -1, startSystem, endUser = -1, endSystem;

  /** {user_us, system_us}, or null. */
  static long[] now() {
    try {
      String s = new String(Files.readAllBytes(STAT), StandardCharsets.US_ASCII);
      // Fields after the command name, which is in parentheses and may hold spaces.
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
      return new long[] {Long.parseLong(f[11]) * US_PER_TICK, Long.parseLong(f[12]) * US_PER_TICK};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  void open() {
    long[] t = now();
    if (t != null) {
      startUser = t[0];
      startSystem = t[1];
    }
  }

  void close() {
    long[] t = now();
    if (t != null) {
      endUser = t[0];
      endSystem = t[1];
    }
  }

  /** `"cpu_user_us":U,"cpu_system_us":S,` or nothing when a reading failed. */
  void appendFields(StringBuilder b, boolean empty) {
    if (startUser < 0 || endUser < 0) return;
    long u = 0, s = 0;
    if (!empty) {
      u = Math.max(0, endUser - startUser);
      s = Math.max(0, endSystem - startSystem);
    }
    b.append("\"cpu_user_us\":").append(u).append(",\"cpu_system_us\":").append(s).append(',');
  }
}
