/* SPDX-License-Identifier: MIT */
/*
 * tern-bench tests: each takes argv with argv[0] its own name and returns
 * the process exit status (0 all right, 1 wrong results or a device error,
 * EXIT_USAGE for a bad command line).
 */
#ifndef TOOLS_BENCH_BENCH_H
#define TOOLS_BENCH_BENCH_H

int bench_copy_main(int argc, char **argv);
int bench_all_reduce_main(int argc, char **argv);
int bench_all_gather_main(int argc, char **argv);
int bench_reduce_scatter_main(int argc, char **argv);
int bench_broadcast_main(int argc, char **argv);
int bench_reduce_main(int argc, char **argv);
int bench_all_to_all_main(int argc, char **argv);

#endif /* TOOLS_BENCH_BENCH_H */
