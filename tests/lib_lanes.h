#ifndef CROSSRUN_TESTS_LIB_LANES_H
#define CROSSRUN_TESTS_LIB_LANES_H

/* The lanes of the tests that need real runs of matrix.yaml's runtimes
 * but not of every pairing: test_runner_matrix and `make quick` run the
 * whole matrix, so the others take a part of it and stay short. */

#ifdef _WIN32
/* Under wine (make windows-check) only the C and Node runtimes exist
 * (ci/windows-check): the same lanes but those of the others. */
#define LIB_LANES_EACH_RUNTIME "c-c,node-node,c-c+tls,node-node+tls"
#define LIB_LANES_FEW "c-c,c-node,node-c,node-node,c-c+tls"
#else
/* Each runtime against itself, over tcp and tls: every client and every
 * server of the matrix runs. */
#define LIB_LANES_EACH_RUNTIME                                                 \
  "c-c,node-node,rust-rust,go-go,python-python,java-java,c-c+tls,"             \
  "node-node+tls,rust-rust+tls,go-go+tls,python-python+tls,java-java+tls"

/* Two runtimes in all four pairings, a third against itself and one lane
 * over tls: what a document of several lanes, comparisons, pinned
 * toolchains and packages needs. */
#define LIB_LANES_FEW "c-c,c-node,node-c,node-node,rust-rust,c-c+tls"
#endif

#endif
