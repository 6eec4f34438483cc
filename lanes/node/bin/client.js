#!/usr/bin/env node
'use strict';
// crossrun node client (lanes/README.md):
//   client.js --connect HOST:PORT --warmup N --round-trips N
//             --payload-bytes N --max-in-flight N
// Runs one session and prints one JSON line with the result.

const transport = require('../lib/transport');
const { ClientSession } = require('../lib/client');
const { say, parseOrExit, failAndClose, guardProcess } = require('../lib/peer');

const ROLE = 'client';

// Upper bound of one write of requests, so a large workload is produced
// as the socket takes it rather than all at once.
const MAX_BATCH_BYTES = 256 * 1024;

function main() {
  guardProcess(ROLE);
  const { connect, workload, transport: t } = parseOrExit(ROLE, transport.parseClient);
  const session = new ClientSession(workload);
  transport.connect(connect, t, {
    onReady: (sock, tlsInfo) => run(session, sock, tlsInfo),
    onConnectFail: (e) => {
      say(`${ROLE}: connect to ${connect.text}: ${e.code || e.message}`);
      process.exit(1);
    },
    onFail: (e) => {
      say(`${ROLE}: tls_handshake: ${e.message}`);
      process.exit(1);
    },
  });
}

// The session on a connected socket (over tls, once its handshake is
// done); tlsInfo: the result line's `tls` object, null over tcp.
function run(session, sock, tlsInfo) {
  const pool = session.pool;
  let failed = false;
  let blocked = false;

  const fail = (e) => {
    if (failed) return;
    failed = true;
    failAndClose(ROLE, sock, e);
  };

  // Sends what the session allows now: one write per batch (one batch for
  // the responses of one read unless it is very large).
  const pump = () => {
    while (!blocked) {
      const out = session.produce(MAX_BATCH_BYTES);
      if (out === null) return;
      const release = session.lastPooled ? () => pool.release(out) : undefined;
      if (!sock.write(out, release)) blocked = true;
    }
  };

  sock.on('data', (chunk) => {
    if (failed) return;
    try {
      session.onData(chunk);
    } catch (e) {
      fail(e);
      return;
    }
    if (session.done) {
      // The client closes first (SPEC.md section 3, step 6); over tls
      // end() sends close_notify first.
      sock.end();
      return;
    }
    pump();
  });
  sock.on('drain', () => {
    blocked = false;
    if (!failed) pump();
  });
  sock.on('end', () => {
    if (failed) return;
    try {
      session.onEnd();
    } catch (e) {
      fail(e);
    }
  });
  sock.on('error', (e) => {
    if (failed) return;
    // A reset is truncated inside a frame, else unexpected_eof, even
    // after BYE_ACK (SPEC.md section 3).
    fail(session.resetRejection(e.code || e.message));
  });
  sock.on('close', () => {
    if (failed) return;
    if (!session.done) {
      fail(new Error('connection closed before the session ended'));
      return;
    }
    const result = session.result();
    if (tlsInfo) result.tls = tlsInfo;
    // The line (a few KiB with its buckets) may not be written at once to
    // a pipe: exit once it is.
    process.stdout.write(`${JSON.stringify(result)}\n`, (err) => process.exit(err ? 1 : 0));
  });
  sock.write(session.hello());
}

main();
