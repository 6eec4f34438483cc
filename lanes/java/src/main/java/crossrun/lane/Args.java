package crossrun.lane;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Command lines of the peer contract (lanes/README.md): `--flag value` or `--flag=value` in any
 * order, each once; an unknown, missing or repeated flag, a flag without its value, or a bad
 * number is a usage error (exit status 2).
 */
final class Args {
  static final class UsageError extends Exception {
    private static final long serialVersionUID = 1L;

    UsageError(String msg) {
      super(msg, null, false, false);
    }
  }

  /** The transport flags: tls false over tcp. */
  static final class Transport {
    boolean tls;
    String cert, key, ca;
  }

  static final class Server {
    InetAddress host;
    int port;
    String text;
    Transport transport;
  }

  static final class Client {
    InetAddress host;
    int port;
    String text;
    Proto.Workload workload;
    Transport transport;
  }

  static Map<String, String> flags(String[] args, List<String> required, List<String> optional)
      throws UsageError {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String flag = arg;
      String value = null;
      if (arg.startsWith("--")) {
        int eq = arg.indexOf('=');
        if (eq >= 0) {
          flag = arg.substring(0, eq);
          value = arg.substring(eq + 1);
        }
      }
      if (!flag.startsWith("--") || !(required.contains(flag) || optional.contains(flag))) {
        throw new UsageError("unknown flag \"" + Proto.oneLine(arg, 100) + "\"");
      }
      if (value == null) {
        if (i + 1 >= args.length) throw new UsageError("flag " + flag + " needs a value");
        value = args[++i];
      }
      if (out.containsKey(flag)) throw new UsageError("flag " + flag + " given twice");
      out.put(flag, value);
    }
    for (String f : required) {
      if (!out.containsKey(f)) throw new UsageError("missing flag " + f);
    }
    return out;
  }

  /** A plain decimal: ASCII digits only (leading zeros allowed), within lo..hi. */
  static long number(String flag, String text, long lo, long hi) throws UsageError {
    boolean digits = !text.isEmpty();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') digits = false;
    }
    if (!digits) throw new UsageError("bad number \"" + Proto.oneLine(text, 100) + "\" for " + flag);
    long v;
    try {
      v = Long.parseUnsignedLong(text);
    } catch (NumberFormatException e) {
      v = -1;
    }
    if (Long.compareUnsigned(v, lo) < 0 || Long.compareUnsigned(v, hi) > 0) {
      throw new UsageError("bad number \"" + text + "\" for " + flag + ": must be " + lo + ".." + hi);
    }
    return v;
  }

  static boolean ipv4(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) return false;
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3) return false;
      for (int i = 0; i < p.length(); i++) {
        if (p.charAt(i) < '0' || p.charAt(i) > '9') return false;
      }
      if (Integer.parseInt(p) > 255) return false;
    }
    return true;
  }

  /**
   * IPV4:PORT or [IPV6]:PORT; an IPv6 address without its brackets (::1:0) is refused, since its
   * port cannot be told from it. Names are never given, so none is resolved.
   */
  static Object[] address(String flag, String text, int minPort) throws UsageError {
    int colon = text.lastIndexOf(':');
    String bad = "bad address \"" + Proto.oneLine(text, 100) + "\" for " + flag;
    if (colon < 0) throw new UsageError(bad + ": expected HOST:PORT or [IPv6]:PORT");
    String host = text.substring(0, colon);
    String port = text.substring(colon + 1);
    InetAddress ip;
    if (host.startsWith("[") && host.endsWith("]") && host.length() > 2) {
      host = host.substring(1, host.length() - 1);
      for (int i = 0; i < host.length(); i++) {
        char c = host.charAt(i);
        boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
            || c == ':' || c == '.';
        if (!ok) throw new UsageError(bad + ": not a numeric IP address");
      }
      if (host.indexOf(':') < 0) throw new UsageError(bad + ": only IPv6 addresses go in brackets");
      try {
        // A literal with a colon is parsed as IPv6, never looked up.
        ip = InetAddress.getByName("[" + host + "]");
      } catch (UnknownHostException e) {
        throw new UsageError(bad + ": not a numeric IP address");
      }
      if (!(ip instanceof Inet6Address)) {
        throw new UsageError(bad + ": IPv6 addresses, and only they, go in brackets");
      }
    } else {
      if (host.indexOf(':') >= 0 || host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
        throw new UsageError(bad + ": an IPv6 address goes in brackets, [::1]:PORT");
      }
      if (!ipv4(host)) throw new UsageError(bad + ": not a numeric IP address");
      String[] p = host.split("\\.");
      byte[] a = new byte[4];
      for (int i = 0; i < 4; i++) a[i] = (byte) Integer.parseInt(p[i]);
      try {
        ip = InetAddress.getByAddress(a);
      } catch (UnknownHostException e) {
        throw new UsageError(bad);
      }
      if (!(ip instanceof Inet4Address)) throw new UsageError(bad);
    }
    long n = number(flag + " port", port, minPort, 65535);
    return new Object[] {ip, (int) n};
  }

  static Transport transport(Map<String, String> v, List<String> files) throws UsageError {
    Transport t = new Transport();
    String tr = v.get("--transport");
    if (tr == null || tr.equals("tcp")) {
      for (String f : files) {
        if (v.containsKey(f)) throw new UsageError(f + " is for --transport tls only");
      }
      return t;
    }
    if (tr.equals("tls")) {
      for (String f : files) {
        String s = v.get(f);
        if (s == null || s.isEmpty()) throw new UsageError("--transport tls needs " + f + " FILE");
      }
      t.tls = true;
      t.cert = v.get("--cert");
      t.key = v.get("--key");
      t.ca = v.get("--ca");
      return t;
    }
    throw new UsageError("bad --transport \"" + Proto.oneLine(tr, 100) + "\": tcp or tls");
  }

  static Server server(String[] args) throws UsageError {
    Map<String, String> v = flags(args, List.of("--listen"), List.of("--transport", "--cert", "--key"));
    Server s = new Server();
    Object[] a = address("--listen", v.get("--listen"), 0);
    s.host = (InetAddress) a[0];
    s.port = (Integer) a[1];
    s.text = v.get("--listen");
    s.transport = transport(v, List.of("--cert", "--key"));
    return s;
  }

  static Client client(String[] args) throws UsageError {
    Map<String, String> v = flags(args,
        List.of("--connect", "--warmup", "--round-trips", "--payload-bytes", "--max-in-flight"),
        List.of("--transport", "--ca"));
    Client c = new Client();
    Object[] a = address("--connect", v.get("--connect"), 1);
    c.host = (InetAddress) a[0];
    c.port = (Integer) a[1];
    c.text = v.get("--connect");
    long w = number("--warmup", v.get("--warmup"), 0, Proto.MAX_TOTAL - 2);
    long n = number("--round-trips", v.get("--round-trips"), 1, Proto.MAX_TOTAL - 1);
    long p = number("--payload-bytes", v.get("--payload-bytes"), 0, Proto.MAX_PAYLOAD);
    long m = number("--max-in-flight", v.get("--max-in-flight"), 1, Proto.MAX_IN_FLIGHT);
    c.workload = new Proto.Workload(w, n, p, m);
    Rejection r = c.workload.check();
    if (r != null) throw new UsageError("bad workload: " + r.detail);
    c.transport = transport(v, List.of("--ca"));
    return c;
  }
}
