package crossrun.lane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two programs live: sessions over IPv4 and IPv6, tcp and tls, rejections, flags. */
class ProcessTest {
  static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  @TempDir static Path tmp;
  static Path rightCa, wrongCa, cert, key;
  static boolean haveOpenssl;

  /** A started peer: its process and what it printed. */
  static final class Peer {
    final Process p;
    final BufferedReader out;

    Peer(Process p) {
      this.p = p;
      this.out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    int exit() throws Exception {
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "peer did not exit");
      return p.exitValue();
    }

    String err() throws IOException {
      return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static Peer start(String main, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(JAVA, "-XX:+UseSerialGC", "-XX:-UsePerfData",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "crossrun.lane." + main));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    return new Peer(pb.start());
  }

  static int ready(Peer server) throws IOException {
    String line = server.out.readLine();
    assertTrue(line != null && line.matches("READY [0-9]+"), "READY line: " + line);
    return Integer.parseInt(line.substring(6));
  }

  static boolean run(Path dir, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    Process p = pb.start();
    p.getInputStream().readAllBytes();
    return p.waitFor() == 0;
  }

  /** Material as the runner makes it: a P-256 CA and a leaf with IP SANs, per CA folder. */
  static Path material(String name) throws Exception {
    Path d = Files.createDirectory(tmp.resolve(name));
    Files.writeString(d.resolve("ext"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
        + "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,IP:::1\n");
    boolean ok = run(d, "openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key")
        && run(d, "openssl", "req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=test-ca", "-days", "1",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=keyCertSign,cRLSign", "-out", "ca.pem")
        && run(d, "openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "leaf.key")
        && run(d, "openssl", "pkcs8", "-topk8", "-nocrypt", "-in", "leaf.key", "-out", "key.pem")
        && run(d, "openssl", "req", "-new", "-key", "leaf.key", "-subj", "/CN=test-leaf", "-out", "leaf.csr")
        && run(d, "openssl", "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "1", "-extfile", "ext", "-out", "cert.pem");
    return ok ? d : null;
  }

  @BeforeAll
  static void setUp() throws Exception {
    try {
      Path a = material("a"), b = material("b");
      haveOpenssl = a != null && b != null;
      if (haveOpenssl) {
        rightCa = a.resolve("ca.pem");
        cert = a.resolve("cert.pem");
        key = a.resolve("key.pem");
        wrongCa = b.resolve("ca.pem");
      }
    } catch (IOException e) {
      haveOpenssl = false;
    }
  }

  static boolean ipv6() {
    try (java.nio.channels.ServerSocketChannel s = java.nio.channels.ServerSocketChannel.open()) {
      s.bind(new InetSocketAddress("::1", 0));
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @SuppressWarnings("unchecked")
  static void session(String host, boolean tls, long w, long n, long p, long m) throws Exception {
    List<String> sargs = new ArrayList<>(List.of("--listen", host + ":0"));
    if (tls) sargs.addAll(List.of("--transport", "tls", "--cert", cert.toString(), "--key", key.toString()));
    Peer server = start("Server", sargs.toArray(new String[0]));
    int port = ready(server);
    List<String> cargs = new ArrayList<>(List.of("--connect", host + ":" + port, "--warmup", "" + w,
        "--round-trips=" + n, "--payload-bytes", "" + p, "--max-in-flight", "" + m));
    if (tls) cargs.addAll(List.of("--transport", "tls", "--ca", rightCa.toString()));
    Peer client = start("Client", cargs.toArray(new String[0]));
    String cline = client.out.readLine();
    assertEquals(0, client.exit(), "client: " + client.err());
    assertEquals(null, client.out.readLine());
    String sline = server.out.readLine();
    assertEquals(0, server.exit(), "server: " + server.err());
    assertEquals(null, server.out.readLine());
    Map<String, Object> c = (Map<String, Object>) Json.parse(cline);
    Map<String, Object> s = (Map<String, Object>) Json.parse(sline);
    long f = 16 + p;
    assertEquals(n, c.get("round_trips"));
    assertEquals(w, c.get("warmup_round_trips"));
    assertEquals(w + n + 2, c.get("frames_sent"));
    assertEquals(w + n + 2, c.get("frames_received"));
    assertEquals(88 + (w + n) * f, c.get("bytes_sent"));
    assertEquals(88 + (w + n) * f, c.get("bytes_received"));
    assertTrue((Long) c.get("elapsed_ns") >= n * 10);
    Map<String, Object> lat = (Map<String, Object>) c.get("latency");
    assertEquals(n, lat.get("count"));
    assertTrue((Long) lat.get("max") <= (Long) c.get("elapsed_ns"));
    assertTrue(c.containsKey("cpu_user_us") && c.containsKey("cpu_system_us"));
    assertEquals(n, s.get("round_trips"));
    assertEquals(w, s.get("warmup_round_trips"));
    assertEquals(c.get("bytes_sent"), s.get("bytes_received"));
    assertEquals(c.get("bytes_received"), s.get("bytes_sent"));
    assertEquals(w + n + 2, s.get("frames_sent"));
    assertEquals("java", s.get("runtime"));
    if (tls) {
      Map<String, Object> ct = (Map<String, Object>) c.get("tls");
      Map<String, Object> st = (Map<String, Object>) s.get("tls");
      assertEquals("TLSv1.3", ct.get("version"));
      assertEquals("crossrun/1", ct.get("alpn"));
      assertEquals(ct.get("cipher"), st.get("cipher"));
      assertEquals("TLSv1.3", st.get("version"));
      assertEquals("crossrun/1", st.get("alpn"));
      assertTrue((Long) ct.get("handshake_ns") > 0);
      assertTrue(((String) ct.get("cipher")).startsWith("TLS_"));
    } else {
      assertEquals("tcp", c.get("transport"));
      assertTrue(!c.containsKey("tls"));
    }
  }

  @Test
  void sessionsOverTcp() throws Exception {
    session("127.0.0.1", false, 100, 2000, 64, 64);
    // A window over 32 KiB runs on the selector.
    session("127.0.0.1", false, 10, 300, 4096, 32);
    session("127.0.0.1", false, 0, 1, 0, 1);
    if (ipv6()) session("[::1]", false, 10, 500, 16, 8);
  }

  @Test
  void sessionsOverTls() throws Exception {
    assumeTrue(haveOpenssl, "openssl makes the test material");
    session("127.0.0.1", true, 100, 2000, 64, 64);
    session("127.0.0.1", true, 10, 100, 65536, 4);
    if (ipv6()) session("[::1]", true, 10, 500, 16, 8);
  }

  @Test
  void anotherCaFailsTheHandshake() throws Exception {
    assumeTrue(haveOpenssl, "openssl makes the test material");
    Peer server = start("Server", "--listen", "127.0.0.1:0", "--transport", "tls", "--cert", cert.toString(),
        "--key", key.toString());
    int port = ready(server);
    Peer client = start("Client", "--connect", "127.0.0.1:" + port, "--warmup", "0", "--round-trips", "1",
        "--payload-bytes", "8", "--max-in-flight", "1", "--transport", "tls", "--ca", wrongCa.toString());
    assertEquals(1, client.exit());
    assertEquals(null, client.out.readLine());
    String err = client.err();
    assertTrue(err.contains("tls_handshake: certificate verify failed"), err);
    assertEquals(1, err.split("\n").length, err);
    assertEquals(1, server.exit());
    assertTrue(server.err().contains("tls_handshake:"));
  }

  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    in.transferTo(b);
    return b.toByteArray();
  }

  @Test
  void serverPlaysEverySession() throws Exception {
    for (Map<String, Object> c : Json.cases("sessions.json")) {
      byte[] cb = Json.hex(c.get("client_bytes"));
      byte[] sb = Json.hex(c.get("server_bytes"));
      Peer server = start("Server", "--listen", "127.0.0.1:0");
      int port = ready(server);
      byte[] got;
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port));
        s.getOutputStream().write(cb);
        s.shutdownOutput();
        got = readAll(s.getInputStream());
      }
      assertEquals(0, server.exit(), c.get("name") + ": " + server.err());
      assertArrayEquals(sb, got, (String) c.get("name"));
      assertTrue(server.out.readLine().startsWith("{\"round_trips\":"));
    }
  }

  @Test
  void serverRejectsWithAnErrorFrame() throws Exception {
    Peer server = start("Server", "--listen", "127.0.0.1:0");
    int port = ready(server);
    byte[] hello = VectorsTest.frame(Proto.HELLO, 0, VectorsTest.workloadBytes(new Proto.Workload(0, 1, 8, 1)));
    hello[0] = 2;
    byte[] got;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port));
      s.getOutputStream().write(hello);
      got = readAll(s.getInputStream());
    }
    assertEquals(1, server.exit());
    String err = server.err();
    assertTrue(err.startsWith("server: unsupported_version: "), err);
    assertEquals(Proto.ERROR, got[1]);
    assertEquals(1, Proto.getUShort(got, 16));
    assertTrue(new String(got, 18, got.length - 18, StandardCharsets.UTF_8).startsWith("unsupported_version"));
  }

  @Test
  void usageErrorsExit2() throws Exception {
    String[][] servers = {
      {}, {"--listen"}, {"--listen", "::1:0"}, {"--listen", "localhost:0"}, {"--listen=127.0.0.1:0", "--listen", "127.0.0.1:0"},
      {"--listen", "127.0.0.1:0", "--transport", "udp"}, {"--listen", "127.0.0.1:0", "--transport", "tls"},
      {"--listen", "127.0.0.1:0", "--cert", "x"}, {"--listen", "127.0.0.1:0", "--bogus", "1"},
      {"--listen", "[127.0.0.1]:0"}, {"--listen", "127.0.0.1:65536"},
    };
    for (String[] a : servers) {
      Peer p = start("Server", a);
      assertEquals(2, p.exit(), String.join(" ", a));
      assertEquals(null, p.out.readLine(), String.join(" ", a));
    }
    String[] base = {"--connect", "127.0.0.1:1", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "8",
        "--max-in-flight", "1"};
    String[][] clients = {
      {"--warmup", "-1"}, {"--round-trips", "0"}, {"--payload-bytes", "1048577"}, {"--max-in-flight", "65537"},
      {"--warmup", "4611686018427387903"}, {"--round-trips", "0x10"}, {"--warmup", " 1"}, {"--connect", "127.0.0.1:0"},
      {"--transport", "tls"}, {"--ca", "x"}, {"--warmup="},
    };
    for (String[] change : clients) {
      List<String> a = new ArrayList<>(List.of(base));
      int at = a.indexOf(change[0]);
      if (at >= 0 && change.length > 1) a.set(at + 1, change[1]);
      else if (at >= 0) a.set(at, change[0]);
      else a.addAll(List.of(change));
      Peer p = start("Client", a.toArray(new String[0]));
      assertEquals(2, p.exit(), String.join(" ", a));
    }
    // The largest warm-up with one round trip is valid: the client gets as far as connecting.
    Peer p = start("Client", "--connect", "127.0.0.1:1", "--warmup", "4611686018427387902", "--round-trips", "1",
        "--payload-bytes", "8", "--max-in-flight", "1");
    assertEquals(1, p.exit());
  }
}
