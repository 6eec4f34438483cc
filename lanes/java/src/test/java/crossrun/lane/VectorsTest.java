package crossrun.lane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every file of protocol/vectors/ against the codec and both session state machines. */
class VectorsTest {
  /** A receive buffer for the state machines: bytes pushed at its end, consumed from its start. */
  static final class Buf {
    byte[] data = new byte[1 << 16];
    int start, end;

    void push(byte[] b, int off, int len) {
      if (end + len > data.length) {
        byte[] d = new byte[Math.max(data.length * 2, end - start + len + 1024)];
        System.arraycopy(data, start, d, 0, end - start);
        end -= start;
        start = 0;
        data = d;
      }
      System.arraycopy(b, off, data, end, len);
      end += len;
    }

    int pending() {
      return end - start;
    }
  }

  /** The delivery patterns: all at once, then pieces of these sizes. */
  static final int[] CHUNKS = {1 << 30, 1, 3, 7, 64};

  static byte[] frame(int type, long seq, byte[] payload) {
    byte[] f = new byte[Proto.HEADER + payload.length];
    Proto.putHeader(f, 0, type, payload.length, seq);
    System.arraycopy(payload, 0, f, Proto.HEADER, payload.length);
    return f;
  }

  static byte[] workloadBytes(Proto.Workload w) {
    byte[] p = new byte[Proto.WORKLOAD_BYTES];
    w.encode(p, 0);
    return p;
  }

  static byte[] countsBytes(Proto.Counts c) {
    byte[] p = new byte[Proto.COUNTS_BYTES];
    c.encode(p, 0);
    return p;
  }

  // ---- payloads.json, frames.json

  @Test
  void payloads() throws Exception {
    List<Map<String, Object>> cs = Json.cases("payloads.json");
    assertTrue(cs.size() > 100);
    for (Map<String, Object> c : cs) {
      long seq = Json.u64(c.get("sequence"));
      int len = (int) Json.u64(c.get("length"));
      byte[] want = Json.hex(c.get("payload"));
      byte[] resp = Json.hex(c.get("response"));
      byte[] got = new byte[len];
      Payload.fillPayload(got, 0, len, seq);
      assertArrayEquals(want, got, "gen(" + Long.toUnsignedString(seq) + ", " + len + ")");
      byte[] r = new byte[len];
      Payload.fillResponse(r, 0, len, seq);
      assertArrayEquals(resp, r);
      assertTrue(Payload.checkPayload(want, 0, len, seq));
      assertTrue(Payload.checkResponse(resp, 0, len, seq));
      if (len > 0) {
        assertTrue(!Payload.checkPayload(resp, 0, len, seq));
        byte[] flipped = want.clone();
        flipped[len - 1] ^= 1;
        assertTrue(!Payload.checkPayload(flipped, 0, len, seq));
      }
      byte[] inPlace = want.clone();
      assertTrue(Payload.checkAndRespond(inPlace, 0, len, seq));
      assertArrayEquals(resp, inPlace);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void frames() throws Exception {
    for (Map<String, Object> c : Json.cases("frames.json")) {
      String name = (String) c.get("name");
      int type = (int) Json.u64(c.get("type"));
      long seq = Json.u64(c.get("sequence"));
      byte[] payload = Json.hex(c.get("payload"));
      byte[] want = Json.hex(c.get("frame"));
      assertEquals(Proto.typeName(type), c.get("type_name"), name);
      byte[] built;
      switch (type) {
        case Proto.HELLO:
        case Proto.HELLO_ACK:
          built = frame(type, seq, workloadBytes(Json.workload(c.get("workload"))));
          break;
        case Proto.BYE:
        case Proto.BYE_ACK:
          built = frame(type, seq, countsBytes(Json.counts(c.get("counts"))));
          break;
        case Proto.REQUEST: {
          byte[] p = new byte[payload.length];
          Payload.fillPayload(p, 0, p.length, seq);
          built = frame(type, seq, p);
          break;
        }
        case Proto.RESPONSE: {
          byte[] p = new byte[payload.length];
          Payload.fillResponse(p, 0, p.length, seq);
          built = frame(type, seq, p);
          break;
        }
        default:
          built = Proto.errorFrame((int) Json.u64(c.get("code")), (String) c.get("reason"));
      }
      assertArrayEquals(want, built, name);
      assertNull(Proto.checkHeader(want, 0), name);
      assertEquals(Proto.VERSION, want[0]);
      assertEquals(type, want[1]);
      assertEquals(payload.length, Proto.getUInt(want, 4), name);
      assertEquals(seq, Proto.getLong(want, 8), name);
      if (c.containsKey("session")) {
        Proto.Counts exp = Proto.Counts.expected(Json.workload(c.get("session")), type == Proto.BYE_ACK);
        assertTrue(exp.same(Json.counts(c.get("counts"))), name);
      }
      if (type == Proto.ERROR) {
        Rejection r = Proto.peerError(want, 0, want.length);
        assertEquals(Rejection.PEER_ERROR, r.kind);
        assertTrue(r.getMessage().contains("code " + Json.u64(c.get("code"))), name);
      }
    }
  }

  // ---- sessions.json

  static byte[] fillBuffer(ClientSession c) {
    long bytes = Math.min(c.w.maxInFlight() * c.frame, 1 << 24) + 64;
    return new byte[(int) Math.max(bytes, c.frame + 64)];
  }

  /** The client's next writes once a frame is processed: the refill, or BYE at the end. */
  static void advance(ClientSession c, ByteArrayOutputStream out) {
    if (c.warmupDone()) c.openMeasured();
    byte[] tmp = fillBuffer(c);
    if (c.phase() == ClientSession.RUNNING && c.measuredDone()) {
      int n = c.bye(tmp, 0);
      out.write(tmp, 0, n);
      return;
    }
    int n = c.fill(tmp, 0, tmp.length, 0);
    out.write(tmp, 0, n);
  }

  /** Hands the client the complete frames of b one at a time, refilling between them. */
  static Rejection feedClient(ClientSession c, Buf b, ByteArrayOutputStream out) {
    while (true) {
      int lim = b.end;
      if (b.pending() >= Proto.HEADER) {
        long f = Proto.HEADER + Proto.getUInt(b.data, b.start + 4);
        if (f < b.pending()) lim = b.start + (int) f;
      }
      int n = c.process(b.data, b.start, lim);
      b.start += n;
      if (c.rejection != null) return c.rejection;
      if (n == 0) return null;
      advance(c, out);
    }
  }

  static Rejection feedServer(ServerSession s, Buf b, ByteArrayOutputStream out) {
    int n = s.process(b.data, b.start, b.end);
    out.write(b.data, b.start, n);
    b.start += n;
    return s.rejection;
  }

  @Test
  @SuppressWarnings("unchecked")
  void sessions() throws Exception {
    for (Map<String, Object> cs : Json.cases("sessions.json")) {
      String name = (String) cs.get("name");
      Proto.Workload w = Json.workload(cs.get("workload"));
      byte[] cb = Json.hex(cs.get("client_bytes"));
      byte[] sb = Json.hex(cs.get("server_bytes"));
      // Both state machines against each other, in memory.
      ClientSession c = new ClientSession(w);
      ServerSession s = new ServerSession();
      Buf crb = new Buf(), srb = new Buf();
      ByteArrayOutputStream call = new ByteArrayOutputStream(), sall = new ByteArrayOutputStream();
      ByteArrayOutputStream cout = new ByteArrayOutputStream();
      byte[] hello = new byte[40];
      c.hello(hello, 0);
      cout.write(hello, 0, 40);
      while (true) {
        byte[] o = cout.toByteArray();
        cout.reset();
        if (o.length > 0) {
          call.write(o, 0, o.length);
          srb.push(o, 0, o.length);
          ByteArrayOutputStream so = new ByteArrayOutputStream();
          assertNull(feedServer(s, srb, so), name + ": server");
          byte[] sbytes = so.toByteArray();
          sall.write(sbytes, 0, sbytes.length);
          crb.push(sbytes, 0, sbytes.length);
        }
        assertNull(feedClient(c, crb, cout), name + ": client");
        if (c.phase() == ClientSession.DONE) break;
        if (cout.size() == 0) fail(name + ": the session stalled");
      }
      assertArrayEquals(cb, call.toByteArray(), name + ": client bytes");
      assertArrayEquals(sb, sall.toByteArray(), name + ": server bytes");
      assertNull(s.onEof(0));
      assertEquals(w.roundTrips(), c.latency().count());
      Map<String, Object> res = (Map<String, Object>) cs.get("result");
      assertEquals(Json.u64(res.get("frames_sent")), c.framesSent, name);
      assertEquals(Json.u64(res.get("frames_received")), c.framesReceived, name);
      assertEquals(Json.u64(res.get("bytes_sent")), c.bytesSent, name);
      assertEquals(Json.u64(res.get("bytes_received")), c.bytesReceived, name);
      // The server's own counts: what its BYE_ACK carried, then the BYE_ACK itself sent.
      Proto.Counts ack = Proto.Counts.expected(w, true);
      assertTrue(new Proto.Counts(ack.requests(), ack.responses(), ack.bytesSent() + 48, ack.bytesReceived())
          .same(s.counts()), name + ": server counts");
      // The server fed the client's bytes in any chunking answers with exactly the server's.
      for (int chunk : CHUNKS) {
        ServerSession srv = new ServerSession();
        Buf b = new Buf();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int off = 0; off < cb.length; off += chunk) {
          b.push(cb, off, Math.min(chunk, cb.length - off));
          assertNull(feedServer(srv, b, out), name + " chunk " + chunk);
        }
        assertArrayEquals(sb, out.toByteArray(), name + " chunk " + chunk);
        assertNull(srv.onEof(b.pending()));
      }
    }
  }

  // ---- invalid.json

  static Rejection bareParse(byte[] input, int chunk, boolean eof) {
    Buf b = new Buf();
    for (int off = 0; off < input.length; off += chunk) {
      b.push(input, off, Math.min(chunk, input.length - off));
      while (b.pending() >= Proto.HEADER) {
        Rejection r = Proto.checkHeader(b.data, b.start);
        if (r != null) return r;
        long f = Proto.HEADER + Proto.getUInt(b.data, b.start + 4);
        if (b.pending() < f) break;
        b.start += (int) f;
      }
    }
    return eof ? Proto.eofCheck(b.pending()) : null;
  }

  static ServerSession serverExpectingRequest(Proto.Workload w, long seq) {
    ServerSession s = new ServerSession();
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    byte[] h = frame(Proto.HELLO, 0, workloadBytes(w));
    in.write(h, 0, h.length);
    for (long q = 1; q < seq; q++) {
      byte[] p = new byte[(int) w.payloadBytes()];
      Payload.fillPayload(p, 0, p.length, q);
      byte[] f = frame(Proto.REQUEST, q, p);
      in.write(f, 0, f.length);
    }
    Buf b = new Buf();
    byte[] all = in.toByteArray();
    b.push(all, 0, all.length);
    assertNull(feedServer(s, b, new ByteArrayOutputStream()));
    assertEquals(0, b.pending());
    return s;
  }

  static ServerSession serverAfterBye(Proto.Workload w) {
    ServerSession s = serverExpectingRequest(w, w.total() + 1);
    Buf b = new Buf();
    byte[] bye = frame(Proto.BYE, w.total() + 1, countsBytes(Proto.Counts.expected(w, false)));
    b.push(bye, 0, bye.length);
    assertNull(feedServer(s, b, new ByteArrayOutputStream()));
    assertEquals(ServerSession.AFTER_BYE_ACK, s.state());
    return s;
  }

  static ClientSession clientExpectingResponse(Proto.Workload w, long seq) {
    ClientSession c = new ClientSession(w);
    c.hello(new byte[40], 0);
    byte[] ack = frame(Proto.HELLO_ACK, 0, workloadBytes(w));
    assertEquals(ack.length, c.process(ack, 0, ack.length));
    assertNull(c.rejection);
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    advance(c, sink);
    for (long q = 1; q < seq; q++) {
      byte[] p = new byte[(int) w.payloadBytes()];
      Payload.fillResponse(p, 0, p.length, q);
      byte[] f = frame(Proto.RESPONSE, q, p);
      assertEquals(f.length, c.process(f, 0, f.length));
      assertNull(c.rejection, "RESPONSE " + q);
      sink.reset();
      advance(c, sink);
    }
    return c;
  }

  static final List<String> STATES = List.of("server_expecting_hello", "server_expecting_request",
      "server_after_bye", "client_expecting_hello_ack", "client_expecting_response", "client_expecting_bye_ack");

  static Rejection replay(String state, Proto.Workload w, long seq, byte[] input, int chunk, boolean eof) {
    ServerSession s = null;
    ClientSession c = null;
    switch (state) {
      case "server_expecting_hello":
        s = new ServerSession();
        break;
      case "server_expecting_request":
        s = serverExpectingRequest(w, seq);
        break;
      case "server_after_bye":
        s = serverAfterBye(w);
        break;
      case "client_expecting_hello_ack":
        c = new ClientSession(w);
        c.hello(new byte[40], 0);
        break;
      case "client_expecting_response":
        c = clientExpectingResponse(w, seq);
        break;
      case "client_expecting_bye_ack":
        c = clientExpectingResponse(w, w.total() + 1);
        assertEquals(ClientSession.AWAIT_BYE_ACK, c.phase());
        break;
      default:
        fail("unknown state " + state);
    }
    Buf b = new Buf();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int off = 0; off < input.length; off += chunk) {
      b.push(input, off, Math.min(chunk, input.length - off));
      Rejection r = s != null ? feedServer(s, b, out) : feedClient(c, b, out);
      if (r != null) return r;
    }
    if (!eof) return null;
    return s != null ? s.onEof(b.pending()) : c.onEof(b.pending());
  }

  /** Processes input whole, as a live client processes one read: no refill between its frames. */
  static Rejection replayOneRead(String state, Proto.Workload w, long seq, byte[] input, boolean eof) {
    ClientSession c = state.equals("client_expecting_response") ? clientExpectingResponse(w, seq)
        : clientExpectingResponse(w, w.total() + 1);
    int n = c.process(input, 0, input.length);
    if (c.rejection != null || !eof) return c.rejection;
    return c.onEof(input.length - n);
  }

  static void assertOneLine(String what, String line) {
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      assertTrue(ch >= ' ' && ch != 0x7f, what + ": a control character in " + line);
    }
    assertArrayEquals(line.getBytes(StandardCharsets.UTF_8),
        new String(line.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void invalid() throws Exception {
    Set<String> seen = new HashSet<>();
    List<Map<String, Object>> cases = Json.cases("invalid.json");
    assertTrue(cases.size() > 100);
    for (Map<String, Object> c : cases) {
      String name = (String) c.get("name");
      String state = (String) c.get("state");
      String want = (String) c.get("rejection");
      assertTrue(Arrays.asList(Rejection.NAMES).contains(want), name);
      seen.add(want);
      byte[] input = Json.hex(c.get("input"));
      boolean eof = (Boolean) c.get("eof");
      Proto.Workload w = c.containsKey("workload") ? Json.workload(c.get("workload")) : null;
      long seq = c.containsKey("sequence") ? Json.u64(c.get("sequence")) : 0;
      String what = name + " (" + c.get("description") + ")";
      // A header check comes first: an `any` case other than a cut is rejected the same way in
      // every session state.
      if (state.equals("any") && !want.equals("truncated")) {
        Proto.Workload sw = new Proto.Workload(2, 3, 5, 2);
        for (String st : STATES) {
          Rejection r = replay(st, sw, 2, input, 1 << 30, eof);
          assertNotNull(r, what + " in " + st);
          assertEquals(want, r.name(), what + " in " + st);
        }
      }
      if (Boolean.TRUE.equals(c.get("one_read"))) {
        Rejection r = replayOneRead(state, w, seq, input, eof);
        assertNotNull(r, what + ", one read");
        assertEquals(want, r.name(), what + ", one read");
        continue;
      }
      for (int chunk : CHUNKS) {
        Rejection r = state.equals("any") ? bareParse(input, chunk, eof) : replay(state, w, seq, input, chunk, eof);
        assertNotNull(r, what + ", chunk " + chunk + ": accepted");
        assertEquals(want, r.name(), what + ", chunk " + chunk + ": " + r.getMessage());
        assertOneLine(what, r.getMessage());
      }
    }
    assertEquals(Rejection.NAMES.length, seen.size(), "the vectors cover every rejection name");
  }

  // ---- histogram.json

  @SuppressWarnings("unchecked")
  static Histogram histogramOf(Object values) {
    Histogram h = new Histogram();
    for (Object v : (List<Object>) values) h.record(Json.u64(v));
    return h;
  }

  static long optNumber(Object v) {
    return v == null ? -1 : Json.u64(v);
  }

  @SuppressWarnings("unchecked")
  static void checkHistogram(String what, Histogram h, Object wantObj) {
    Map<String, Object> want = (Map<String, Object>) wantObj;
    assertEquals(Json.u64(want.get("count")), h.count(), what);
    if (h.count() > 0) {
      assertEquals(Json.u64(want.get("min")), h.min, what + " min");
      assertEquals(Json.u64(want.get("max")), h.max, what + " max");
    }
    assertEquals(optNumber(want.get("p50")), h.percentile(50000), what + " p50");
    assertEquals(optNumber(want.get("p90")), h.percentile(90000), what + " p90");
    assertEquals(optNumber(want.get("p99")), h.percentile(99000), what + " p99");
    assertEquals(optNumber(want.get("p99_9")), h.percentile(99900), what + " p99_9");
    StringBuilder b = new StringBuilder();
    for (Object pair : (List<Object>) want.get("buckets")) {
      List<Object> p = (List<Object>) pair;
      if (b.length() > 0) b.append(',');
      b.append('[').append(Json.u64(p.get(0))).append(',').append(Json.u64(p.get(1))).append(']');
    }
    StringBuilder j = new StringBuilder();
    h.appendJson(j);
    assertTrue(j.toString().contains("\"buckets\":[" + b + "]}"), what + " buckets: " + j);
  }

  @Test
  void histogram() throws Exception {
    int buckets = 0, histograms = 0;
    for (Map<String, Object> c : Json.cases("histogram.json")) {
      if ("bucket".equals(c.get("kind"))) {
        long v = Json.u64(c.get("value"));
        int i = Histogram.index(v);
        assertEquals(Json.u64(c.get("index")), i, "index(" + v + ")");
        assertEquals(Json.u64(c.get("lower")), Histogram.lower(i));
        assertEquals(Json.u64(c.get("width")), Histogram.width(i));
        buckets++;
        continue;
      }
      String name = (String) c.get("name");
      Histogram a = histogramOf(c.get("a_values"));
      Histogram b = histogramOf(c.get("b_values"));
      checkHistogram(name + " a", a, c.get("a"));
      checkHistogram(name + " b", b, c.get("b"));
      a.merge(b);
      checkHistogram(name + " merged", a, c.get("merged"));
      histograms++;
    }
    assertTrue(buckets > 0 && histograms > 0);
    assertEquals(Histogram.BUCKETS - 1, Histogram.index(Long.MAX_VALUE));
  }

  @Test
  void everyBucketHoldsItsBounds() {
    for (int i = 0; i < Histogram.BUCKETS; i++) {
      long lo = Histogram.lower(i);
      assertEquals(i, Histogram.index(lo));
      long hi = lo + Histogram.width(i) - 1;
      if (hi >= lo) assertEquals(i, Histogram.index(hi));
    }
  }
}
