//! Command lines of the peer contract (lanes/README.md). Flags come in any
//! order, as `--flag value` or `--flag=value`; an unknown flag, a missing
//! or repeated one, or a bad number is an error (exit status 2).

use std::net::{SocketAddr, ToSocketAddrs};

use crate::codec::{self, Workload};
use crate::transport::{self, Transport};

/// Exit status for a bad command line.
pub const EXIT_USAGE: i32 = 2;
/// Exit status for a rejection or any other failure.
pub const EXIT_FAILURE: i32 = 1;

/// Splits the arguments into (flag, value) pairs: every flag of `known`
/// once, those of `optional` at most once.
fn pairs<I: IntoIterator<Item = String>>(
    args: I,
    known: &[&str],
    optional: &[&str],
) -> Result<Vec<(String, String)>, String> {
    let mut it = args.into_iter();
    let mut out: Vec<(String, String)> = Vec::new();
    while let Some(arg) = it.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if !known.contains(&flag.as_str()) && !optional.contains(&flag.as_str()) {
            return Err(format!("unknown flag {:?}", arg));
        }
        let value = match value {
            Some(v) => v,
            None => it
                .next()
                .ok_or_else(|| format!("flag {} needs a value", flag))?,
        };
        if out.iter().any(|(f, _)| *f == flag) {
            return Err(format!("flag {} given twice", flag));
        }
        out.push((flag, value));
    }
    for flag in known {
        if !out.iter().any(|(f, _)| f == flag) {
            return Err(format!("missing flag {}", flag));
        }
    }
    Ok(out)
}

fn get<'a>(pairs: &'a [(String, String)], flag: &str) -> &'a str {
    get_opt(pairs, flag).unwrap_or("")
}

fn get_opt<'a>(pairs: &'a [(String, String)], flag: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(f, _)| f == flag)
        .map(|(_, v)| v.as_str())
}

/// A plain decimal number: digits only.
pub fn parse_number(flag: &str, text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("bad number {:?} for {}", text, flag));
    }
    text.parse::<u64>()
        .map_err(|_| format!("bad number {:?} for {}: too large", text, flag))
}

/// Resolves `host:port` to every address it names; an IPv6 address comes
/// in brackets (`[::1]:0`, lanes/README.md). Without them (`::1:0`) the
/// port cannot be told from the address, so that is refused, even where
/// the resolver would guess.
pub fn parse_addrs(flag: &str, text: &str) -> Result<Vec<SocketAddr>, String> {
    if let Ok(a) = text.parse::<SocketAddr>() {
        return Ok(vec![a]);
    }
    if text
        .rsplit_once(':')
        .is_some_and(|(host, _)| host.contains(':') && !host.starts_with('['))
    {
        return Err(format!(
            "bad address {:?} for {}: an IPv6 address goes in brackets, [::1]:PORT",
            text, flag
        ));
    }
    match text.to_socket_addrs() {
        Ok(a) => {
            let all: Vec<SocketAddr> = a.collect();
            if all.is_empty() {
                Err(format!("bad address {:?} for {}", text, flag))
            } else {
                Ok(all)
            }
        }
        Err(_) => Err(format!("bad address {:?} for {}", text, flag)),
    }
}

/// Resolves `host:port` to its first address.
pub fn parse_addr(flag: &str, text: &str) -> Result<SocketAddr, String> {
    parse_addrs(flag, text).map(|a| a[0])
}

/// `--listen ADDR`.
pub fn parse_server<I: IntoIterator<Item = String>>(args: I) -> Result<SocketAddr, String> {
    parse_server_transport(args).map(|(a, _)| a)
}

/// `--listen ADDR [--transport tcp|tls --cert FILE --key FILE]`.
pub fn parse_server_transport<I: IntoIterator<Item = String>>(
    args: I,
) -> Result<(SocketAddr, Transport), String> {
    let p = pairs(args, &["--listen"], &transport::SERVER_FLAGS)?;
    let t = transport::from_flags(|f| get_opt(&p, f), &["--cert", "--key"])?;
    Ok((parse_addr("--listen", get(&p, "--listen"))?, t))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientArgs {
    /// The `--connect` text, for messages.
    pub connect_text: String,
    /// Every address it resolves to, tried in order.
    pub connect: Vec<SocketAddr>,
    pub workload: Workload,
    pub transport: Transport,
}

/// `--connect ADDR --warmup N --round-trips N --payload-bytes N
/// --max-in-flight N [--transport tcp|tls --ca FILE]`; the workload must
/// follow SPEC.md's rules.
pub fn parse_client<I: IntoIterator<Item = String>>(args: I) -> Result<ClientArgs, String> {
    let p = pairs(
        args,
        &[
            "--connect",
            "--warmup",
            "--round-trips",
            "--payload-bytes",
            "--max-in-flight",
        ],
        &transport::CLIENT_FLAGS,
    )?;
    let transport = transport::from_flags(|f| get_opt(&p, f), &["--ca"])?;
    let connect_text = get(&p, "--connect").to_string();
    let connect = parse_addrs("--connect", &connect_text)?;
    let warmup = parse_number("--warmup", get(&p, "--warmup"))?;
    let round_trips = parse_number("--round-trips", get(&p, "--round-trips"))?;
    let payload_bytes = parse_number("--payload-bytes", get(&p, "--payload-bytes"))?;
    let max_in_flight = parse_number("--max-in-flight", get(&p, "--max-in-flight"))?;
    if payload_bytes > codec::MAX_PAYLOAD as u64 {
        return Err(format!(
            "bad number {} for --payload-bytes: maximum {}",
            payload_bytes,
            codec::MAX_PAYLOAD
        ));
    }
    if max_in_flight < 1 || max_in_flight > codec::MAX_IN_FLIGHT as u64 {
        return Err(format!(
            "bad number {} for --max-in-flight: must be 1..{}",
            max_in_flight,
            codec::MAX_IN_FLIGHT
        ));
    }
    let workload = Workload {
        warmup,
        round_trips,
        payload_bytes: payload_bytes as u32,
        max_in_flight: max_in_flight as u32,
    };
    workload
        .check()
        .map_err(|r| format!("bad workload: {}", r.detail))?;
    Ok(ClientArgs {
        connect_text,
        connect,
        workload,
        transport,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn client_flags_any_order() {
        let a = parse_client(args(
            "--max-in-flight 4 --payload-bytes=64 --connect 127.0.0.1:9 --round-trips 10 --warmup 0",
        ))
        .unwrap();
        assert_eq!(a.connect[0].port(), 9);
        assert_eq!(a.connect_text, "127.0.0.1:9");
        assert_eq!(
            a.workload,
            Workload {
                warmup: 0,
                round_trips: 10,
                payload_bytes: 64,
                max_in_flight: 4
            }
        );
    }

    #[test]
    fn client_flag_errors() {
        let base = "--connect 127.0.0.1:9 --warmup 0 --round-trips 10 --payload-bytes 64";
        assert!(parse_client(args(base)).is_err(), "missing flag");
        assert!(parse_client(args(&format!("{base} --max-in-flight x"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight -1"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight 0"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight 65537"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight 1 --bogus 1"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight 1 --warmup 1"))).is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight"))).is_err());
        assert!(parse_client(args(
            "--connect 127.0.0.1:9 --warmup 0 --round-trips 0 --payload-bytes 64 --max-in-flight 1"
        ))
        .is_err());
        assert!(parse_client(args(
            "--connect nowhere --warmup 0 --round-trips 1 --payload-bytes 64 --max-in-flight 1"
        ))
        .is_err());
        assert!(parse_client(args(&format!("{base} --max-in-flight 65536"))).is_ok());
    }

    #[test]
    fn server_flags() {
        assert_eq!(
            parse_server(args("--listen 127.0.0.1:0")).unwrap().port(),
            0
        );
        assert!(parse_server(args("")).is_err());
        assert!(parse_server(args("--listen")).is_err());
        assert!(parse_server(args("--listen 127.0.0.1:0 --port 3")).is_err());
        assert!(parse_server(args("--listen nonsense")).is_err());
    }

    #[test]
    fn ipv6_in_brackets() {
        let a = parse_server(args("--listen [::1]:0")).unwrap();
        assert!(a.is_ipv6() && a.ip().is_loopback() && a.port() == 0);
        let c = parse_client(args(
            "--connect [::1]:9 --warmup 0 --round-trips 1 --payload-bytes 0 --max-in-flight 1",
        ))
        .unwrap();
        assert_eq!(c.connect, vec!["[::1]:9".parse::<SocketAddr>().unwrap()]);
        assert_eq!(c.connect_text, "[::1]:9");
        let bare = parse_server(args("--listen ::1:0")).unwrap_err();
        assert!(bare.contains("in brackets"), "{}", bare);
        assert!(parse_server(args("--listen [::1]")).is_err());
        assert!(parse_server(args("--listen [127.0.0.1]:0")).is_err());
    }
}
