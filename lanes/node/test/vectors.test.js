'use strict';
// The session logic against protocol/vectors/sessions.json and
// invalid.json, without sockets, in many chunkings of the bytes.

const test = require('node:test');
const assert = require('node:assert/strict');

const codec = require('../lib/codec');
const { ServerSession } = require('../lib/server');
const { ClientSession, C_BYE_ACK } = require('../lib/client');
const {
  loadCases,
  hex,
  workloadOf,
  rng,
  chunkings,
  frameRanges,
  pumpClient,
  receiverIn,
  SESSION_STATES,
} = require('./helpers');

const { T } = codec;

function streams(w) {
  const total = Number(w.warmup + w.roundTrips);
  const P = w.payloadBytes;
  const wl = codec.encodeWorkload(w);
  const c = [codec.encodeFrame(T.HELLO, 0, wl)];
  const s = [codec.encodeFrame(T.HELLO_ACK, 0, wl)];
  for (let i = 1; i <= total; i++) {
    c.push(codec.encodeFrame(T.REQUEST, i, codec.gen(i, P)));
    s.push(codec.encodeFrame(T.RESPONSE, i, codec.respond(codec.gen(i, P))));
  }
  c.push(codec.encodeFrame(T.BYE, total + 1, codec.encodeCounts(codec.expectedCounts(w, false))));
  s.push(codec.encodeFrame(T.BYE_ACK, total + 1, codec.encodeCounts(codec.expectedCounts(w, true))));
  return { client: Buffer.concat(c), server: Buffer.concat(s) };
}

const sessions = loadCases('sessions.json');

test('sessions.json: both byte streams re-encode from the workload', () => {
  assert.ok(sessions.length > 0);
  for (const c of sessions) {
    const { client, server } = streams(workloadOf(c.workload));
    assert.equal(client.toString('hex'), c.client_bytes, c.name);
    assert.equal(server.toString('hex'), c.server_bytes, c.name);
  }
});

for (const c of sessions) {
  test(`sessions.json ${c.name}: server answers client_bytes with server_bytes in any chunking`, () => {
    const clientBytes = hex(c.client_bytes);
    for (const { label, chunks } of chunkings(clientBytes)) {
      const s = new ServerSession();
      const out = [];
      for (const chunk of chunks) {
        const r = s.onData(chunk);
        if (r !== null) out.push(Buffer.from(r));
      }
      s.onEnd();
      assert.ok(s.done, `${c.name} ${label}`);
      assert.equal(Buffer.concat(out).toString('hex'), c.server_bytes, `${c.name} ${label}`);
      // The server's result mirrors the client's: what one sent, the other received.
      const res = s.result();
      assert.equal(String(res.frames_sent), c.result.frames_received, `${c.name} ${label}`);
      assert.equal(String(res.frames_received), c.result.frames_sent, `${c.name} ${label}`);
      assert.equal(String(res.bytes_sent), c.result.bytes_received, `${c.name} ${label}`);
      assert.equal(String(res.bytes_received), c.result.bytes_sent, `${c.name} ${label}`);
      assert.equal(res.round_trips, Number(c.workload.round_trips));
      assert.equal(res.warmup_round_trips, Number(c.workload.warmup));
      assert.equal(res.payload_bytes, c.workload.payload_bytes);
      assert.equal(res.max_in_flight, c.workload.max_in_flight);
      assert.ok(Number.isSafeInteger(res.cpu_user_us) && res.cpu_user_us >= 0);
      assert.ok(Number.isSafeInteger(res.cpu_system_us) && res.cpu_system_us >= 0);
    }
  });

  test(`sessions.json ${c.name}: client sends client_bytes and accepts server_bytes`, () => {
    const w = workloadOf(c.workload);
    const serverBytes = hex(c.server_bytes);
    const ranges = frameRanges(serverBytes);
    // The server's bytes arrive in random reads, but never ahead of the
    // requests they answer: a server cannot answer a request it has not
    // received (SPEC.md section 3).
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const r = rng(seed);
      let clock = 0n;
      const cl = new ClientSession(w, () => (clock += 1000n));
      const sent = [cl.hello()];
      let delivered = 0;
      while (!cl.done) {
        // Frames answerable now: HELLO_ACK, responses to sent requests,
        // and BYE_ACK once BYE is sent.
        const answerable = 1 + cl.sent + (cl.state === C_BYE_ACK ? 1 : 0);
        const limit = ranges[Math.min(answerable, ranges.length) - 1].end;
        assert.ok(limit > delivered, `${c.name} seed ${seed}: client stalled`);
        const size = seed === 1 ? limit - delivered : 1 + Math.floor(r() * (limit - delivered));
        cl.onData(Buffer.from(serverBytes.subarray(delivered, delivered + size)));
        delivered += size;
        pumpClient(cl, sent);
      }
      cl.onEnd();
      assert.equal(delivered, serverBytes.length);
      assert.equal(Buffer.concat(sent).toString('hex'), c.client_bytes, `${c.name} seed ${seed}`);
      const res = cl.result();
      assert.equal(String(res.frames_sent), c.result.frames_sent);
      assert.equal(String(res.frames_received), c.result.frames_received);
      assert.equal(String(res.bytes_sent), c.result.bytes_sent);
      assert.equal(String(res.bytes_received), c.result.bytes_received);
      assert.equal(res.round_trips, Number(w.roundTrips));
      assert.equal(res.warmup_round_trips, Number(w.warmup));
      assert.ok(res.elapsed_ns > 0);
    }
  });

  test(`sessions.json ${c.name}: client and server sessions talk through random reads`, () => {
    const w = workloadOf(c.workload);
    for (const seed of [11, 12, 13]) {
      const r = rng(seed);
      const cl = new ClientSession(w);
      const s = new ServerSession();
      let toServer = cl.hello();
      let toClient = Buffer.alloc(0);
      const allC = [Buffer.from(toServer)];
      const allS = [];
      let steps = 0;
      while (!cl.done) {
        assert.ok(steps++ < 1e6, 'no progress');
        if (toServer.length && (r() < 0.5 || !toClient.length)) {
          const n = 1 + Math.floor(r() * toServer.length);
          const out = s.onData(Buffer.from(toServer.subarray(0, n)));
          toServer = toServer.subarray(n);
          if (out) {
            allS.push(Buffer.from(out));
            toClient = Buffer.concat([toClient, out]);
          }
        } else if (toClient.length) {
          const n = 1 + Math.floor(r() * toClient.length);
          cl.onData(Buffer.from(toClient.subarray(0, n)));
          toClient = toClient.subarray(n);
          const sent = [];
          pumpClient(cl, sent);
          for (const b of sent) allC.push(b);
          toServer = Buffer.concat([toServer, ...sent]);
        } else {
          assert.fail('deadlock');
        }
      }
      s.onEnd();
      cl.onEnd();
      assert.equal(Buffer.concat(allC).toString('hex'), c.client_bytes);
      assert.equal(Buffer.concat(allS).toString('hex'), c.server_bytes);
    }
  });
}

// ---------------------------------------------------------------------------
// invalid.json

function expectRejection(rx, c, chunks) {
  let err = null;
  try {
    for (const chunk of chunks) rx.feed(chunk);
    if (c.eof) rx.end();
  } catch (e) {
    err = e;
  }
  return err;
}

const invalid = loadCases('invalid.json');

test('invalid.json covers every rejection name of SPEC.md section 6', () => {
  const names = new Set(invalid.map((c) => c.rejection));
  for (const r of codec.REJECTIONS) assert.ok(names.has(r), r);
});

for (const c of invalid) {
  test(`invalid.json ${c.name} (${c.state}): ${c.rejection}`, () => {
    const input = hex(c.input);
    // `any` cases hold header-level faults, which every receiver must
    // reject the same way in every session state (the header checks come
    // first), and cuts, which only the bare parser reports as truncated
    // (in a session the header's own checks come first).
    const states = c.state === 'any' && c.rejection !== 'truncated' ? ['any', ...SESSION_STATES] : [c.state];
    const ctx = c.workload ? c : { ...c, workload: { warmup: '2', round_trips: '3', payload_bytes: 5, max_in_flight: 2 }, sequence: '1' };
    for (const state of states) {
      // A one_read case holds only when its input is one read (the window
      // is refilled, and the session ends after BYE_ACK, between reads).
      const splits = !input.length
        ? [{ label: 'empty', chunks: [] }]
        : c.one_read
          ? [{ label: 'one read', chunks: [Buffer.from(input)] }]
          : chunkings(input);
      for (const { label, chunks } of splits) {
        const rx = receiverIn(state, ctx);
        const err = expectRejection(rx, c, chunks);
        assert.ok(err, `${state} ${label}: accepted`);
        assert.ok(err instanceof codec.ProtocolError, `${state} ${label}: ${err && err.stack}`);
        assert.equal(err.rejection, c.rejection, `${state} ${label}: ${err.message}`);
        assert.ok(err.message.startsWith(`${c.rejection}: `));
        // The message is the one stderr line: a peer's reason with
        // newlines, controls or invalid UTF-8 must not break it.
        assert.ok(!/[\u0000-\u001f\u007f]/.test(err.message), `${state} ${label}: ${JSON.stringify(err.message)}`);
      }
    }
  });
}
