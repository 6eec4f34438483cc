//! `client --connect ADDR --warmup N --round-trips N --payload-bytes N
//! --max-in-flight N [--transport tcp|tls --ca FILE]`: runs one session
//! and prints its result as one JSON line.

use std::io::Write;
use std::net::TcpStream;
use std::process::exit;

use crossrun_lane::cli;
use crossrun_lane::client;
use crossrun_lane::transport::{self, Transport};

fn main() {
    let args = match cli::parse_client(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("client: {}", e);
            exit(cli::EXIT_USAGE);
        }
    };
    let tls = match &args.transport {
        Transport::Tcp => None,
        Transport::Tls { ca, .. } => match transport::client_config(ca) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("client: {}", e);
                exit(cli::EXIT_USAGE);
            }
        },
    };
    let stream = match TcpStream::connect(&args.connect[..]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("client: cannot connect to {}: {}", args.connect_text, e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let _ = stream.set_nodelay(true);
    let Some(config) = tls else {
        let mut stream = stream;
        let outcome = client::run(&mut stream, args.workload);
        // The client closes first (SPEC.md section 3, step 6).
        drop(stream);
        finish(outcome.map(|o| o.json()));
    };
    // The certificate must name the address the client connected to.
    let ip = match stream.peer_addr() {
        Ok(a) => a.ip(),
        Err(e) => {
            eprintln!("client: cannot read the peer's address: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let (mut stream, info) = match transport::connect_tls(stream, ip, config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("client: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let outcome = client::run(&mut stream, args.workload);
    if outcome.is_ok() {
        // close_notify, then the close: the client ends first.
        let _ = stream.close_notify();
    }
    drop(stream);
    finish(outcome.map(|o| transport::with_tls(o.json(), Some(&info))));
}

/// Prints the result line, or the rejection, and exits.
fn finish(outcome: Result<String, crossrun_lane::reject::Rejection>) -> ! {
    match outcome {
        Ok(line) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{}", line).and_then(|_| out.flush()).is_err() {
                eprintln!("client: cannot write the result line");
                exit(cli::EXIT_FAILURE);
            }
            exit(0);
        }
        Err(r) => {
            eprintln!("client: {}", r);
            exit(cli::EXIT_FAILURE);
        }
    }
}
