#!/usr/bin/env node
'use strict';
// crossrun node server: `server.js --listen HOST:PORT` (lanes/README.md).
// Prints `READY <port>`, serves exactly one connection and one session,
// prints its result line and exits 0 on the end of stream that follows
// its BYE_ACK.

const net = require('node:net');
const transport = require('../lib/transport');
const { ServerSession } = require('../lib/server');
const { say, parseOrExit, failAndClose, guardProcess } = require('../lib/peer');

const ROLE = 'server';

// tlsInfo: the result line's `tls` object, null over tcp; raw: over tls
// the TCP socket under sock.
function serve(sock, tlsInfo, raw) {
  const session = new ServerSession();
  let failed = false;
  const fail = (e) => {
    if (failed) return;
    failed = true;
    failAndClose(ROLE, sock, e);
  };
  sock.setNoDelay(true);
  sock.on('data', (chunk) => {
    if (failed) return;
    let out;
    try {
      out = session.onData(chunk);
    } catch (e) {
      fail(e);
      return;
    }
    // Every complete frame of this read is answered by this one write;
    // reading pauses while the peer is not taking the answers.
    if (out !== null && !sock.write(out)) sock.pause();
  });
  sock.on('drain', () => {
    if (!failed) sock.resume();
  });
  sock.on('end', () => {
    if (failed) return;
    try {
      session.onEnd();
    } catch (e) {
      fail(e);
      return;
    }
    // Over tls this end may be the client's close_notify, before its FIN.
    if (raw) transport.afterFin(raw, () => sock.end());
    else sock.end();
  });
  sock.on('error', (e) => {
    if (failed) return;
    // A reset is truncated inside a frame, else unexpected_eof, even
    // after BYE_ACK (SPEC.md section 3).
    fail(session.resetRejection(e.code || e.message));
  });
  sock.on('close', () => {
    if (failed) return;
    if (!session.done) process.exit(0);
    const result = session.result();
    if (tlsInfo) result.tls = tlsInfo;
    // The result line after the session (lanes/README.md); a pipe may
    // take it later than this write returns, so exit once it is written.
    process.stdout.write(`${JSON.stringify(result)}\n`, (err) => process.exit(err ? 1 : 0));
  });
}

function main() {
  guardProcess(ROLE);
  const { listen, transport: t } = parseOrExit(ROLE, transport.parseServer);
  const server = net.createServer({ allowHalfOpen: true });
  let served = false;
  server.on('connection', (sock) => {
    if (served) {
      sock.destroy();
      return;
    }
    served = true;
    server.close();
    if (t.kind === 'tcp') {
      serve(sock, null);
      return;
    }
    sock.setNoDelay(true);
    transport.acceptTls(
      sock,
      t.context,
      (secure, info) => serve(secure, info, sock),
      (e) => {
        say(`${ROLE}: tls_handshake: ${e.message}`);
        process.exit(1);
      }
    );
  });
  server.on('error', (e) => {
    say(`${ROLE}: listen on ${listen.text}: ${e.message}`);
    process.exit(1);
  });
  server.listen({ host: listen.host, port: listen.port }, () => {
    process.stdout.write(`READY ${server.address().port}\n`);
  });
}

main();
