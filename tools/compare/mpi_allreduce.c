// SPDX-License-Identifier: MIT
/*
 * The peer for tern-bench all-reduce: MPI_Allreduce of float sums over the
 * same sizes, timed and reported the nccl-tests way (one row per size:
 * size in bytes, time in us, algbw and busbw in GB/s). Built and run by
 * tools/compare/allreduce-vs-mpi.sh; not part of the test suite.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_args(int argc, char **argv, long *min_bytes, long *max_bytes,
		      long *iters, long *warmup)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		long v = strtol(argv[i + 1], NULL, 10);

		if (v <= 0)
			return -1;
		if (!strcmp(argv[i], "-b"))
			*min_bytes = v;
		else if (!strcmp(argv[i], "-e"))
			*max_bytes = v;
		else if (!strcmp(argv[i], "-n"))
			*iters = v;
		else if (!strcmp(argv[i], "-w"))
			*warmup = v;
		else
			return -1;
	}
	return *min_bytes <= *max_bytes ? 0 : -1;
}

int main(int argc, char **argv)
{
	long min_bytes = 4, max_bytes = 1 << 20, iters = 20, warmup = 5;
	int rank, ranks, wrong = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (parse_args(argc, argv, &min_bytes, &max_bytes, &iters, &warmup)) {
		if (!rank)
			fprintf(stderr, "usage: mpi_allreduce [-b bytes] [-e bytes] [-n iters] [-w warmup]\n");
		MPI_Finalize();
		return 2;
	}
	size_t max_count = (size_t)max_bytes / sizeof(float);
	float *send = malloc(max_count * sizeof(float));
	float *recv = malloc(max_count * sizeof(float));

	if (!send || !recv)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (!rank)
		printf("# mpi_allreduce: %d ranks, float sum\n#%12s %10s %8s %8s\n",
		       ranks, "size", "time(us)", "algbw", "busbw");
	for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
		size_t count = (size_t)bytes / sizeof(float);
		double start, t, slowest;

		for (size_t i = 0; i < count; i++)
			send[i] = (float)(rank + 1);
		for (long i = 0; i < warmup; i++)
			MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM,
				      MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		start = MPI_Wtime();
		for (long i = 0; i < iters; i++)
			MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM,
				      MPI_COMM_WORLD);
		t = (MPI_Wtime() - start) / (double)iters;
		MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		for (size_t i = 0; i < count; i++)
			wrong += recv[i] != (float)ranks * (ranks + 1) / 2;
		if (!rank) {
			double algbw = (double)bytes / slowest / 1e9;

			printf("%13ld %10.2f %8.2f %8.2f\n", bytes, slowest * 1e6,
			       algbw, algbw * 2.0 * (ranks - 1) / ranks);
		}
	}
	free(send);
	free(recv);
	MPI_Finalize();
	return wrong ? 1 : 0;
}
