/* SPDX-License-Identifier: MIT */
/*
 * One rank per process under the launchers users have: Open MPI's mpirun,
 * Slurm's srun and torchrun, found by the variables each sets. Rank 0
 * makes the communicator's unique id and hands it to the others over TCP
 * at MASTER_ADDR:MASTER_PORT (Documentation/tern-bench.rst); libtern then
 * bootstraps the communicator itself.
 */
#ifndef TOOLS_BENCH_LAUNCH_H
#define TOOLS_BENCH_LAUNCH_H

#include "tern.h"

struct bench_launch {
	const char *launcher;	/* "mpirun", "srun", "torchrun" */
	int rank, size;
	int local_rank;		/* the device this rank uses */
	char addr[256];		/* where rank 0 hands out the id */
	char port[16];
	long timeout_ms;
};

/*
 * Reads the launcher's variables into @l. Returns 1 for one rank of
 * several, 0 when not launched so (or a world of one), or EXIT_USAGE
 * after saying which variable is missing or malformed.
 */
int bench_launch_detect(const char *prog, struct bench_launch *l);

/*
 * Puts the launcher's ranks on @hosts simulated machines, as many on
 * each, in runs (rank r on host r / (size / @hosts)), each named after
 * TERN_SIM_MACHINE (or "tern-bench") and its host's number; a rank uses
 * its place on its host as its device. Returns 0, or EXIT_USAGE after
 * saying why not.
 */
int bench_launch_sim_hosts(const char *prog, struct bench_launch *l,
			   long hosts);
/*
 * Rank 0: makes @id and sends it to every other rank as it connects. The
 * others: connect (retrying until the timeout) and receive it. Returns 0,
 * or 1 after saying what failed.
 */
int bench_launch_share_id(const char *prog, const struct bench_launch *l,
			  tern_unique_id_t *id);

#endif /* TOOLS_BENCH_LAUNCH_H */
