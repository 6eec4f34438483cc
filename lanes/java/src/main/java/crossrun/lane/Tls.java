package crossrun.lane;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS contract (protocol/SPEC.md section 9): TLS 1.3 only, ALPN crossrun/1 on both sides,
 * the client trusting its --ca alone and checking the server's IP SAN without SNI, no session
 * tickets.
 */
final class Tls {
  private Tls() {}

  static final String ALPN = "crossrun/1";
  private static final String[] PROTOCOLS = {"TLSv1.3"};
  private static final char[] PASSWORD = "crossrun".toCharArray();
  /**
   * A server session lifetime over TLS 1.3's ticket limit of 7 days: the JDK then sends no
   * NewSessionTicket (it has no switch of its own for that).
   */
  private static final int NO_TICKETS_TIMEOUT_S = 7 * 24 * 3600 + 1;

  static List<byte[]> pem(Path file, String label) throws IOException {
    String text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
    String begin = "-----BEGIN " + label + "-----";
    String end = "-----END " + label + "-----";
    List<byte[]> out = new ArrayList<>();
    int at = 0;
    while ((at = text.indexOf(begin, at)) >= 0) {
      int from = at + begin.length();
      int to = text.indexOf(end, from);
      if (to < 0) break;
      out.add(Base64.getMimeDecoder().decode(text.substring(from, to)));
      at = to + end.length();
    }
    if (out.isEmpty()) throw new IOException(file + " holds no PEM " + label);
    return out;
  }

  static List<Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    List<Certificate> certs = new ArrayList<>();
    for (byte[] der : pem(file, "CERTIFICATE")) certs.add(cf.generateCertificate(new ByteArrayInputStream(der)));
    return certs;
  }

  static SSLContext serverContext(String certFile, String keyFile) throws IOException, GeneralSecurityException {
    List<Certificate> chain = certificates(Path.of(certFile));
    byte[] der = pem(Path.of(keyFile), "PRIVATE KEY").get(0);
    PrivateKey key;
    try {
      key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("leaf", key, PASSWORD, chain.toArray(new Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
    kmf.init(ks, PASSWORD);
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(kmf.getKeyManagers(), null, null);
    ctx.getServerSessionContext().setSessionTimeout(NO_TICKETS_TIMEOUT_S);
    return ctx;
  }

  static SSLContext clientContext(String caFile) throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    int i = 0;
    for (Certificate c : certificates(Path.of(caFile))) ks.setCertificateEntry("ca" + i++, c);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  static SSLEngine serverEngine(SSLContext ctx) {
    SSLEngine e = ctx.createSSLEngine();
    e.setUseClientMode(false);
    SSLParameters p = e.getSSLParameters();
    p.setProtocols(PROTOCOLS);
    p.setApplicationProtocols(new String[] {ALPN});
    e.setSSLParameters(p);
    return e;
  }

  /** host is the IP address connected to: the IP SAN is checked against it, no SNI is sent. */
  static SSLEngine clientEngine(SSLContext ctx, String host, int port) {
    SSLEngine e = ctx.createSSLEngine(host, port);
    e.setUseClientMode(true);
    SSLParameters p = e.getSSLParameters();
    p.setProtocols(PROTOCOLS);
    p.setApplicationProtocols(new String[] {ALPN});
    p.setEndpointIdentificationAlgorithm("HTTPS");
    p.setServerNames(List.of());
    e.setSSLParameters(p);
    return e;
  }

  /** The ALPN check the engine does not make: null when crossrun/1 was agreed. */
  static String alpnProblem(SSLEngine e, boolean server) {
    String p = e.getApplicationProtocol();
    if (ALPN.equals(p)) return null;
    if (p == null || p.isEmpty()) {
      return server ? "the client offered no ALPN, " + ALPN + " is required"
          : "the server selected no ALPN, expected " + ALPN;
    }
    return "ALPN \"" + Proto.oneLine(p, 100) + "\" agreed, expected " + ALPN;
  }

  /** The contract's reason for a failed handshake. */
  static String handshakeReason(Throwable e) {
    String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof CertificateException || c instanceof CertPathBuilderException
          || c instanceof CertPathValidatorException) {
        return "certificate verify failed: " + Proto.oneLine(msg, 600);
      }
    }
    return Proto.oneLine(msg, 600);
  }

  /** `"transport":...,` and over tls the result line's tls object and a comma. */
  static String json(SSLEngine e, long handshakeNs) {
    if (e == null) return "\"transport\":\"tcp\",";
    SSLSession s = e.getSession();
    StringBuilder b = new StringBuilder("\"transport\":\"tls\",\"tls\":{\"version\":\"");
    b.append(s.getProtocol()).append("\",\"cipher\":\"").append(s.getCipherSuite());
    b.append("\",\"alpn\":\"").append(e.getApplicationProtocol()).append('"');
    if (handshakeNs > 0) b.append(",\"handshake_ns\":").append(handshakeNs);
    return b.append("},").toString();
  }
}
