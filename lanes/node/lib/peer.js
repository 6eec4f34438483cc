'use strict';
// Process plumbing shared by bin/client.js and bin/server.js: the one
// stderr line, the ERROR frame, the close, the exit status.

const codec = require('./codec');
const { UsageError, Unsupported } = require('./args');

const LINGER_MS = 500;

// One line: newlines in details would break "one line on stderr".
function say(text) {
  process.stderr.write(`${String(text).replace(/\s*\n\s*/g, ' ')}\n`);
}

// Parses flags with `parse`; on a problem prints one line and exits 2
// (or 127 for a request this runtime does not support).
function parseOrExit(role, parse) {
  try {
    return parse(process.argv.slice(2));
  } catch (e) {
    if (e instanceof Unsupported) {
      say(`${role}: unsupported: ${e.message}`);
      process.exit(127);
    }
    if (e instanceof UsageError) {
      say(`${role}: usage error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
}

// Reports a failure and ends the connection: the rejection line on stderr,
// an ERROR frame when the socket is still writable (none in answer to an
// ERROR), then the close and exit 1. The caller's handlers must ignore
// the socket from now on; bytes still arriving are read and dropped so the
// peer can take the ERROR before the connection goes away.
function failAndClose(role, sock, err) {
  let line;
  if (err instanceof codec.ProtocolError) {
    line = err.message;
  } else {
    line = `${role}: internal error: ${err && err.stack ? err.stack : err}`;
  }
  say(line);
  process.exitCode = 1;
  if (!sock || sock.destroyed) process.exit(1);
  sock.on('error', () => {});
  sock.on('close', () => process.exit(1));
  const rejection = err instanceof codec.ProtocolError ? err.rejection : 'internal';
  if (sock.writable) {
    if (rejection === 'peer_error') {
      sock.end();
    } else {
      sock.end(codec.encodeError(codec.codeFor(rejection), line));
    }
  }
  sock.resume();
  setTimeout(() => sock.destroy(), LINGER_MS).unref();
}

// Any exception that escapes still ends in one stderr line and exit 1.
function guardProcess(role) {
  process.on('uncaughtException', (e) => {
    say(`${role}: internal error: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  });
}

module.exports = { say, parseOrExit, failAndClose, guardProcess };
