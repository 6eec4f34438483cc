#ifndef CROSSRUN_TESTS_LIB_LANES_H
#define CROSSRUN_TESTS_LIB_LANES_H

/* The lanes of the tests that need real runs of matrix.yaml's runtimes
 * but not of every pairing: test_runner_matrix and `make quick` run the
 * whole matrix, so the others take a part of it and stay short. */

/* Each runtime against itself, over tcp and tls: every client and every
 * server of the matrix runs. Under wine (make windows-check) only the C
 * and Node runtimes exist (ci/windows-check): their lanes only. */
#ifdef _WIN32
#define LIB_LANES_EACH_RUNTIME "c-c,node-node,c-c+tls,node-node+tls"
#else
#define LIB_LANES_EACH_RUNTIME                                                 \
  "c-c,node-node,rust-rust,go-go,python-python,java-java,c-c+tls,"             \
  "node-node+tls,rust-rust+tls,go-go+tls,python-python+tls,java-java+tls"
#endif

/* Two runtimes in all four pairings, a third against itself and one lane
 * over tls: what a document of several lanes, comparisons, pinned
 * toolchains and packages needs. The same under wine: rust-rust is
 * unavailable there, but the evidence still holds the rust runtime that
 * test_merge_refused pins. */
#define LIB_LANES_FEW "c-c,c-node,node-c,node-node,rust-rust,c-c+tls"

#endif
