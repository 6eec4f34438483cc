//! `server --listen ADDR [--transport tcp|tls --cert FILE --key FILE]`:
//! prints `READY <port>`, serves one session, and after the end of stream
//! that follows its BYE_ACK prints its result as one JSON line and exits 0.

use std::io::Write;
use std::net::TcpListener;
use std::process::exit;

use crossrun_lane::cli;
use crossrun_lane::server;
use crossrun_lane::transport::{self, Transport};

fn main() {
    let (addr, t) = match cli::parse_server_transport(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("server: {}", e);
            exit(cli::EXIT_USAGE);
        }
    };
    let tls = match &t {
        Transport::Tcp => None,
        Transport::Tls { cert, key, .. } => match transport::server_config(cert, key) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("server: {}", e);
                exit(cli::EXIT_USAGE);
            }
        },
    };
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("server: cannot listen on {}: {}", addr, e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let port = match listener.local_addr() {
        Ok(a) => a.port(),
        Err(e) => {
            eprintln!("server: cannot read the bound address: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    {
        let mut out = std::io::stdout().lock();
        if writeln!(out, "READY {}", port)
            .and_then(|_| out.flush())
            .is_err()
        {
            eprintln!("server: cannot write the READY line");
            exit(cli::EXIT_FAILURE);
        }
    }
    let stream = match listener.accept() {
        Ok((s, _)) => s,
        Err(e) => {
            eprintln!("server: accept failed: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    drop(listener);
    let _ = stream.set_nodelay(true);
    let Some(config) = tls else {
        let mut stream = stream;
        let outcome = server::serve(&mut stream);
        drop(stream);
        finish(outcome.map(|o| o.json()));
    };
    let (mut stream, info) = match transport::accept_tls(stream, config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("server: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    let outcome = server::serve(&mut stream);
    if outcome.is_ok() {
        stream.await_fin();
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
                eprintln!("server: cannot write the result line");
                exit(cli::EXIT_FAILURE);
            }
            exit(0);
        }
        Err(r) => {
            eprintln!("server: {}", r);
            exit(cli::EXIT_FAILURE);
        }
    }
}
