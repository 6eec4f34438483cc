//! `server --listen ADDR`: prints `READY <port>`, serves one session, and
//! after the end of stream that follows its BYE_ACK prints its result as
//! one JSON line and exits 0.

use std::io::Write;
use std::net::TcpListener;
use std::process::exit;

use crossrun_lane::cli;
use crossrun_lane::server;

fn main() {
    let addr = match cli::parse_server(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("server: {}", e);
            exit(cli::EXIT_USAGE);
        }
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
    let mut stream = match listener.accept() {
        Ok((s, _)) => s,
        Err(e) => {
            eprintln!("server: accept failed: {}", e);
            exit(cli::EXIT_FAILURE);
        }
    };
    drop(listener);
    let _ = stream.set_nodelay(true);
    match server::serve(&mut stream) {
        Ok(outcome) => {
            drop(stream);
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{}", outcome.json())
                .and_then(|_| out.flush())
                .is_err()
            {
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
