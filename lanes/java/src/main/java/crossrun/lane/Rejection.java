package crossrun.lane;

/** A rejection of SPEC.md section 6 with what was seen. */
public final class Rejection extends Exception {
  private static final long serialVersionUID = 1L;

  public static final int UNSUPPORTED_VERSION = 0;
  public static final int UNKNOWN_TYPE = 1;
  public static final int BAD_FLAGS = 2;
  public static final int FRAME_TOO_LARGE = 3;
  public static final int BAD_LENGTH = 4;
  public static final int TRUNCATED = 5;
  public static final int UNEXPECTED_EOF = 6;
  public static final int UNEXPECTED_TYPE = 7;
  public static final int WRONG_SEQUENCE = 8;
  public static final int WRONG_PAYLOAD = 9;
  public static final int BAD_WORKLOAD = 10;
  public static final int COUNT_MISMATCH = 11;
  public static final int PEER_ERROR = 12;

  static final String[] NAMES = {
    "unsupported_version", "unknown_type", "bad_flags", "frame_too_large", "bad_length",
    "truncated", "unexpected_eof", "unexpected_type", "wrong_sequence", "wrong_payload",
    "bad_workload", "count_mismatch", "peer_error"
  };

  public final int kind;
  public final String detail;

  public Rejection(int kind, String detail) {
    super(NAMES[kind] + ": " + detail, null, false, false);
    this.kind = kind;
    this.detail = detail;
  }

  public String name() {
    return NAMES[kind];
  }

  /** The ERROR code that reports this rejection (SPEC.md section 2). */
  public int code() {
    switch (kind) {
      case UNSUPPORTED_VERSION:
        return 1;
      case BAD_WORKLOAD:
        return 2;
      case COUNT_MISMATCH:
        return 4;
      default:
        return 3;
    }
  }

  public static String codeName(int code) {
    switch (code) {
      case 1:
        return "unsupported_version";
      case 2:
        return "bad_workload";
      case 3:
        return "protocol_violation";
      case 4:
        return "count_mismatch";
      default:
        return "unknown_code";
    }
  }
}
