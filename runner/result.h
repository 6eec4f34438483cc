/* The client's result line (lanes/README.md): parsing and checking it
 * against what the workload implies. */
#ifndef CROSSRUN_RUNNER_RESULT_H
#define CROSSRUN_RUNNER_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/model/model.h"
#include "protocol/codec.h"

/* A client's line with every bucket of a latency histogram (7296 pairs of
 * up to 27 bytes) and its other fields fits. */
#define RESULT_LINE_MAX 262144

/* The server's result line (lanes/README.md): counts and CPU, short. */
#define RESULT_SERVER_LINE_MAX 2048

/* The plausibility floor of elapsed_ns per round trip
 * (evidence/model/model.h says why). */
#define RESULT_MIN_NS_PER_ROUND_TRIP MODEL_MIN_NS_PER_ROUND_TRIP

/* Parses one line of JSON (len bytes, no NUL needed). The counts, wire
 * bytes and elapsed_ns are required and must be non-negative integers;
 * runtime, cpu_user_us, cpu_system_us and latency are optional (absent:
 * MODEL_NOT_REPORTED, has_latency 0), and when there must have their
 * types (latency: lanes/README.md). r owns the latency buckets afterwards,
 * also on failure (model_client_result_release). Returns 0, or -1 with the
 * problem, naming the field, in err. */
int result_parse(const char *line, size_t len, struct model_client_result *r,
                 char *err, size_t errlen);

/* Parses the server's result line: every field of struct
 * model_server_result but runtime is required and must be a non-negative
 * integer. Returns 0, or -1 with the problem in err. */
int result_server_parse(const char *line, size_t len,
                        struct model_server_result *r, char *err,
                        size_t errlen);

/* Compares the server's result with the workload (what it received is
 * what a client sends, and the reverse) and, when client is not NULL, with
 * the client's counts and wire bytes. Returns 0, or -1 naming the first
 * field that differs, with both values, in err. */
int result_server_check(const struct model_server_result *r,
                        const struct proto_workload *w,
                        const struct model_client_result *client, char *err,
                        size_t errlen);

/* 1 when the len bytes at line (a trailing "\r" allowed) are one JSON
 * object and nothing else, else 0: what the server's second line must be
 * to count as its result line at all. */
int result_is_json_object(const char *line, size_t len);

/* Compares a parsed result with the workload: counts, wire bytes, and an
 * elapsed time above zero, at least round_trips x
 * RESULT_MIN_NS_PER_ROUND_TRIP and at most lifetime_ns (the client's own
 * lifetime as the runner measured it, which holds its timer); then its
 * latency histogram, when given (model_latency_check). Returns 0,
 * or -1 naming the first field that differs, with both values or the
 * bound, in err. */
int result_check(const struct model_client_result *r,
                 const struct proto_workload *w, uint64_t lifetime_ns,
                 char *err, size_t errlen);

#endif
