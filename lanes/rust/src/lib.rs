//! The Rust runtime of crossrun: one implementation of the wire protocol
//! of `protocol/SPEC.md`, with the `client` and `server` programs of the
//! peer contract in `lanes/README.md`, over TCP or over TLS 1.3 (rustls).
//!
//! - [`codec`]: frame headers, the header checks, workload, counts and
//!   error payloads;
//! - [`payload`]: the splitmix64 payload generator and its checks;
//! - [`reject`]: the rejections of SPEC.md section 6;
//! - [`server`] and [`client`]: the two sides of a session, as socket-free
//!   state machines plus the blocking loops that drive them;
//! - [`histogram`] and [`cpu`]: the cost figures of SPEC.md section 7;
//! - [`buffer`], [`net`], [`cli`]: receive buffer, socket helpers, flags;
//! - [`transport`]: tcp or tls, the TLS handshake and stream.

pub mod buffer;
pub mod cli;
pub mod client;
pub mod codec;
pub mod cpu;
pub mod histogram;
pub mod net;
pub mod payload;
pub mod reject;
pub mod server;
pub mod transport;
