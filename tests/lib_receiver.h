/* A reference receiver built on the codec, for the codec's tests that
 * replay protocol/vectors' sessions and invalid inputs. Links with the
 * codec alone. */
#ifndef CROSSRUN_TESTS_LIB_RECEIVER_H
#define CROSSRUN_TESTS_LIB_RECEIVER_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/codec.h"

/* A reference receiver built on the codec: the checks of SPEC.md section 3
 * in the order the vectors' README gives. As soon as a frame's 16 header
 * bytes are in: the codec's header checks, then ERROR, type, sequence and
 * length; once the whole frame is in: the payload. It replays
 * invalid.json's states and decodes the sessions, so the vectors pin both
 * the codec and this ordering. */
enum receiver_phase {
  RECEIVER_ANY,
  RECEIVER_SERVER_HELLO,
  RECEIVER_SERVER_REQUEST,
  RECEIVER_SERVER_DONE,
  RECEIVER_CLIENT_HELLO_ACK,
  RECEIVER_CLIENT_RESPONSE,
  RECEIVER_CLIENT_BYE_ACK,
  RECEIVER_CLIENT_DONE
};

struct receiver {
  enum receiver_phase phase;
  struct proto_workload workload;
  uint64_t next_sequence;
  /* A client's last request sent: a RESPONSE beyond it answers nothing
   * (SPEC.md section 3). The sessions' replay counts every request as
   * sent; invalid.json's client states send what their window allows
   * before the input and nothing while it arrives. */
  uint64_t last_sent;
  /* The server's own counts (SPEC.md section 2), kept as frames pass. */
  struct proto_counts own;
  uint64_t frames_received;
  uint64_t bytes_received;
};

/* W + N: the requests of a session. */
uint64_t receiver_total(const struct proto_workload *w);

/* The bytes of one REQUEST or RESPONSE frame. */
uint64_t receiver_frame_bytes(const struct proto_workload *w);

/* Puts a server in the state after HELLO and requests 1..next-1. */
void receiver_server_at(struct receiver *r, const struct proto_workload *w,
                        uint64_t next);

/* Feeds input in chunks whose sizes cycle through chunks[] (0 entries:
 * all at once) through a receive buffer like a lane's, parsing every
 * complete frame after each chunk. Returns the first rejection, else the
 * end-of-stream verdict when eof is set, else 0 with *pending (when not
 * NULL) set to the bytes left unparsed. */
int receiver_feed(struct receiver *r, const uint8_t *in, size_t len,
                  const size_t *chunks, size_t nchunks, int eof,
                  size_t *pending);

/* Chunk sizes for receiver_feed(): odd ones that split headers anywhere,
 * and one byte at a time. */
extern const size_t receiver_odd_chunks[12];
extern const size_t receiver_byte_chunks[1];

#endif
