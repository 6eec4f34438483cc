package crossrun.lane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small JSON reader for the vector files: objects, arrays, strings, integers, booleans. */
final class Json {
  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    Json j = new Json(text);
    Object v = j.value();
    j.ws();
    if (j.i != text.length()) throw new IllegalArgumentException("trailing text at " + j.i);
    return v;
  }

  static Path root() {
    String r = System.getProperty("crossrun.root");
    if (r == null) r = System.getenv("CROSSRUN_ROOT");
    if (r == null) r = "../..";
    return Path.of(r);
  }

  /** The "cases" array of protocol/vectors/NAME. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> cases(String name) throws IOException {
    String text = new String(Files.readAllBytes(root().resolve("protocol/vectors").resolve(name)), StandardCharsets.UTF_8);
    Map<String, Object> doc = (Map<String, Object>) parse(text);
    return (List<Map<String, Object>>) doc.get("cases");
  }

  static byte[] hex(Object v) {
    String h = (String) v;
    byte[] out = new byte[h.length() / 2];
    for (int k = 0; k < out.length; k++) out[k] = (byte) Integer.parseInt(h.substring(2 * k, 2 * k + 2), 16);
    return out;
  }

  /** A 64-bit quantity written as a decimal string, or a small JSON number. */
  static long u64(Object v) {
    if (v instanceof String) return Long.parseUnsignedLong((String) v);
    return (Long) v;
  }

  @SuppressWarnings("unchecked")
  static Proto.Workload workload(Object v) {
    Map<String, Object> m = (Map<String, Object>) v;
    return new Proto.Workload(u64(m.get("warmup")), u64(m.get("round_trips")), u64(m.get("payload_bytes")),
        u64(m.get("max_in_flight")));
  }

  @SuppressWarnings("unchecked")
  static Proto.Counts counts(Object v) {
    Map<String, Object> m = (Map<String, Object>) v;
    return new Proto.Counts(u64(m.get("requests")), u64(m.get("responses")), u64(m.get("bytes_sent")),
        u64(m.get("bytes_received")));
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
  }

  private Object value() {
    ws();
    char c = s.charAt(i);
    switch (c) {
      case '{': {
        i++;
        Map<String, Object> m = new LinkedHashMap<>();
        ws();
        if (s.charAt(i) == '}') {
          i++;
          return m;
        }
        while (true) {
          ws();
          String k = string();
          ws();
          expect(':');
          m.put(k, value());
          ws();
          if (s.charAt(i) == ',') {
            i++;
            continue;
          }
          expect('}');
          return m;
        }
      }
      case '[': {
        i++;
        List<Object> l = new ArrayList<>();
        ws();
        if (s.charAt(i) == ']') {
          i++;
          return l;
        }
        while (true) {
          l.add(value());
          ws();
          if (s.charAt(i) == ',') {
            i++;
            continue;
          }
          expect(']');
          return l;
        }
      }
      case '"':
        return string();
      case 't':
        i += 4;
        return Boolean.TRUE;
      case 'f':
        i += 5;
        return Boolean.FALSE;
      case 'n':
        i += 4;
        return null;
      default: {
        int st = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
        return Long.parseLong(s.substring(st, i));
      }
    }
  }

  private void expect(char c) {
    if (s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
    i++;
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') return b.toString();
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case 'n':
          b.append('\n');
          break;
        case 't':
          b.append('\t');
          break;
        case 'r':
          b.append('\r');
          break;
        case 'b':
          b.append('\b');
          break;
        case 'f':
          b.append('\f');
          break;
        case 'u':
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
          break;
        default:
          b.append(e);
      }
    }
  }
}
