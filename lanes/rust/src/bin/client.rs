//! `client --connect ADDR --warmup N --round-trips N --payload-bytes N
//! --max-in-flight N`: runs one session and prints its result as one JSON
//! line.

use std::io::Write;
use std::net::TcpStream;
use std::process::exit;

use crossrun_lane::cli;
use crossrun_lane::client;

fn main() {
    let args = match cli::parse_client(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("client: {}", e);
            exit(cli::EXIT_USAGE);
        }
    };
    let mut stream = match TcpStream::connect(&args.connect[..]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("client: cannot connect to {}: {}", args.connect_text, e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let _ = stream.set_nodelay(true);
    match client::run(&mut stream, args.workload) {
        Ok(outcome) => {
            // The client closes first (SPEC.md section 3, step 6).
            drop(stream);
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{}", outcome.json())
                .and_then(|_| out.flush())
                .is_err()
            {
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
