/* SPDX-License-Identifier: MIT */
/*
 * tern-bench tests: each takes argv with argv[0] its own name and returns
 * the process exit status (0 all right, 1 wrong results or a device error,
 * EXIT_USAGE for a bad command line).
 */
#ifndef TOOLS_BENCH_BENCH_H
#define TOOLS_BENCH_BENCH_H

/* The collectives tern-bench measures, in the order it lists them. */
enum coll_id { COLL_ALL_REDUCE, COLL_ALL_GATHER, COLL_REDUCE_SCATTER,
	       COLL_BROADCAST, COLL_REDUCE, COLL_ALL_TO_ALL };

int bench_copy_main(int argc, char **argv);
int bench_latency_main(int argc, char **argv);
int bench_gemm_main(int argc, char **argv);	/* compute/gemm.c */
int bench_act_main(int argc, char **argv);	/* compute/act.c */
int bench_softmax_main(int argc, char **argv);	/* compute/softmax.c */
int bench_coll_main(enum coll_id id, int argc, char **argv);

#endif /* TOOLS_BENCH_BENCH_H */
