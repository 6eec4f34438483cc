//! The rejections of SPEC.md section 6 and the ERROR codes that report them.

use std::fmt;

/// One rejection name of SPEC.md section 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reject {
    UnsupportedVersion,
    UnknownType,
    BadFlags,
    FrameTooLarge,
    BadLength,
    Truncated,
    UnexpectedEof,
    UnexpectedType,
    WrongSequence,
    WrongPayload,
    BadWorkload,
    CountMismatch,
    PeerError,
}

/// ERROR frame codes (SPEC.md section 2).
pub const CODE_UNSUPPORTED_VERSION: u16 = 1;
pub const CODE_BAD_WORKLOAD: u16 = 2;
pub const CODE_PROTOCOL_VIOLATION: u16 = 3;
pub const CODE_COUNT_MISMATCH: u16 = 4;

impl Reject {
    pub const ALL: [Reject; 13] = [
        Reject::UnsupportedVersion,
        Reject::UnknownType,
        Reject::BadFlags,
        Reject::FrameTooLarge,
        Reject::BadLength,
        Reject::Truncated,
        Reject::UnexpectedEof,
        Reject::UnexpectedType,
        Reject::WrongSequence,
        Reject::WrongPayload,
        Reject::BadWorkload,
        Reject::CountMismatch,
        Reject::PeerError,
    ];

    /// The spec's name, as printed on stderr.
    pub fn name(self) -> &'static str {
        match self {
            Reject::UnsupportedVersion => "unsupported_version",
            Reject::UnknownType => "unknown_type",
            Reject::BadFlags => "bad_flags",
            Reject::FrameTooLarge => "frame_too_large",
            Reject::BadLength => "bad_length",
            Reject::Truncated => "truncated",
            Reject::UnexpectedEof => "unexpected_eof",
            Reject::UnexpectedType => "unexpected_type",
            Reject::WrongSequence => "wrong_sequence",
            Reject::WrongPayload => "wrong_payload",
            Reject::BadWorkload => "bad_workload",
            Reject::CountMismatch => "count_mismatch",
            Reject::PeerError => "peer_error",
        }
    }

    pub fn from_name(name: &str) -> Option<Reject> {
        Reject::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// The ERROR frame code that reports this rejection.
    pub fn code(self) -> u16 {
        match self {
            Reject::UnsupportedVersion => CODE_UNSUPPORTED_VERSION,
            Reject::BadWorkload => CODE_BAD_WORKLOAD,
            Reject::CountMismatch => CODE_COUNT_MISMATCH,
            _ => CODE_PROTOCOL_VIOLATION,
        }
    }
}

/// The name of an ERROR code, for messages.
pub fn code_name(code: u16) -> &'static str {
    match code {
        CODE_UNSUPPORTED_VERSION => "unsupported_version",
        CODE_BAD_WORKLOAD => "bad_workload",
        CODE_PROTOCOL_VIOLATION => "protocol_violation",
        CODE_COUNT_MISMATCH => "count_mismatch",
        _ => "unknown_code",
    }
}

/// A rejection with a description of what was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub kind: Reject,
    pub detail: String,
}

impl Rejection {
    pub fn new(kind: Reject, detail: impl Into<String>) -> Rejection {
        Rejection {
            kind,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)
    }
}

impl std::error::Error for Rejection {}

/// Makes text safe for a single stderr line: control characters become
/// escapes, and the result is cut at `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i >= max {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Reject::ALL {
            assert_eq!(Reject::from_name(r.name()), Some(r));
        }
        assert_eq!(Reject::from_name("protocol_violation"), None);
    }

    #[test]
    fn codes() {
        assert_eq!(Reject::UnsupportedVersion.code(), 1);
        assert_eq!(Reject::BadWorkload.code(), 2);
        assert_eq!(Reject::WrongPayload.code(), 3);
        assert_eq!(Reject::CountMismatch.code(), 4);
    }

    #[test]
    fn one_line_escapes() {
        assert_eq!(one_line("a\nb", 10), "a\\nb");
        assert_eq!(one_line("abcdef", 3), "abc...");
    }
}
