'use strict';
// Command-line flags of the peer contract (lanes/README.md): `--name value`
// or `--name=value`, in any order, each at most once. Problems are thrown
// as UsageError (exit 2); a valid request this runtime cannot serve is
// thrown as Unsupported (exit 127).

const net = require('node:net');

const codec = require('./codec');

class UsageError extends Error {}
class Unsupported extends Error {}

// names: the required flags, optional: the others accepted, both without
// the leading `--`.
function parseFlags(argv, names, optional = []) {
  const values = Object.create(null);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    let name = arg.slice(2);
    let value;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    if (!names.includes(name) && !optional.includes(name)) throw new UsageError(`unknown flag --${name}`);
    if (name in values) throw new UsageError(`--${name} given twice`);
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    values[name] = value;
  }
  for (const name of names) {
    if (!(name in values)) throw new UsageError(`missing --${name}`);
  }
  return values;
}

// A decimal unsigned integer as a BigInt.
function parseUint(name, text) {
  if (!/^[0-9]+$/.test(text) || text.length > 40) {
    throw new UsageError(`--${name}: not a non-negative decimal integer: ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

// "host:port" or "[v6 address]:port" (lanes/README.md); port 0..65535.
// An IPv6 address without brackets ("::1:0") is refused: its port cannot
// be told from it. `text` is the address as given, for messages.
function parseAddress(name, text, allowZeroPort) {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(text);
  if (!m || (m[1] !== undefined && !net.isIPv6(m[1]))) {
    throw new UsageError(`--${name}: expected HOST:PORT or [IPv6]:PORT, got ${JSON.stringify(text)}`);
  }
  const port = Number(m[3]);
  if (port > 65535 || (port === 0 && !allowZeroPort)) {
    throw new UsageError(`--${name}: bad port ${m[3]}`);
  }
  return { host: m[1] || m[2], port, text };
}

// optional: more flags to accept (lib/transport.js's), returned in `flags`.
function parseServerArgs(argv, optional = []) {
  const v = parseFlags(argv, ['listen'], optional);
  return { listen: parseAddress('listen', v.listen, true), flags: v };
}

function parseClientArgs(argv, optional = []) {
  const v = parseFlags(argv, ['connect', 'warmup', 'round-trips', 'payload-bytes', 'max-in-flight'], optional);
  const connect = parseAddress('connect', v.connect, false);
  const warmup = parseUint('warmup', v.warmup);
  const roundTrips = parseUint('round-trips', v['round-trips']);
  const payloadBytes = parseUint('payload-bytes', v['payload-bytes']);
  const maxInFlight = parseUint('max-in-flight', v['max-in-flight']);
  if (roundTrips < 1n) throw new UsageError('--round-trips must be at least 1');
  if (payloadBytes > BigInt(codec.MAX_PAYLOAD_BYTES)) {
    throw new UsageError(`--payload-bytes must be at most ${codec.MAX_PAYLOAD_BYTES}`);
  }
  if (maxInFlight < 1n || maxInFlight > BigInt(codec.MAX_IN_FLIGHT)) {
    throw new UsageError(`--max-in-flight must be 1..${codec.MAX_IN_FLIGHT}`);
  }
  if (warmup + roundTrips >= codec.WORKLOAD_SUM_LIMIT) {
    throw new UsageError('--warmup plus --round-trips must be below 2^62');
  }
  if (warmup + roundTrips > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Unsupported('warmup plus round trips above 2^53-1 are not supported by this runtime');
  }
  return {
    connect,
    flags: v,
    workload: {
      warmup,
      roundTrips,
      payloadBytes: Number(payloadBytes),
      maxInFlight: Number(maxInFlight),
    },
  };
}

module.exports = { UsageError, Unsupported, parseFlags, parseUint, parseAddress, parseServerArgs, parseClientArgs };
