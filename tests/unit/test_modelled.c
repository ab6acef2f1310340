// SPDX-License-Identifier: MIT
/*
 * Modelled device time on the simulator (TERN_SIM_CLOCK=model): the same
 * collectives give the same modelled times run after run, and those times
 * are what the fabric charges, never below its bounds.
 *
 * Each machine runs a child (--child NAME) twice; the child times
 * all-reduces with events and prints, per size, the slowest rank's
 * modelled nanoseconds; the two printouts must be equal. Sizes are those
 * whose schedules the timing model makes deterministic
 * (Documentation/simulator.rst): the one-step path at 8 bytes, where no
 * transfer takes a turn on a link, and the rings, where each directed
 * link carries one engine's transfers. With TERN_SIM_DATA=off the
 * engines move no bytes, and the times are the same again.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "tern.h"

#define MAX_RANKS	16
#define ITERS		3

struct machine {
	const char *name;
	const char *topology;
	const char *devices;
};

static const struct machine machines[] = {
	{ "torus-16", "torus:4x4", "16" },
	{ "trn2", "trn2", "16" },
	{ "ring-8", "ring", "8" },
	{ "ring-2", "ring", "2" },
};

static const size_t sizes[] = { 8, 1u << 20, 4u << 20 };

#define CHECK(call)							\
	do {								\
		tern_status_t st_ = (call);				\
		if (st_ != TERN_SUCCESS) {				\
			fprintf(stderr, "%s: %s\n", #call,		\
				tern_status_name(st_));			\
			exit(1);					\
		}							\
	} while (0)

/* What the topology allows at best: bytes over the chip's links. */
static double bandwidth_bound_ns(tern_device_t dev, int n, size_t bytes)
{
	tern_port_info_t ports[16];
	uint64_t per_chip = 0;
	uint32_t count = 0;

	CHECK(tern_device_get_ports(dev, ports, 16, &count));
	for (uint32_t p = 0; p < count; p++)
		if (ports[p].state == TERN_LINK_UP)
			per_chip += ports[p].bandwidth;
	return 2.0 * (n - 1) / n * (double)bytes / (double)per_chip * 1e9;
}

/* The child: all-reduces on every device of the machine, timed. */
/* Whether the sums landed in @recv, or (TERN_SIM_DATA=off) no byte did. */
static bool result_moved(tern_buffer_t recv, size_t bytes)
{
	const char *data = getenv("TERN_SIM_DATA");
	bool off = data && strcmp(data, "off") == 0;
	const unsigned char *p;
	size_t written = 0;
	void *cpu;

	CHECK(tern_buffer_map(recv, &cpu));
	p = cpu;
	for (size_t i = 0; i < bytes; i++)
		written += p[i] != 0;
	if (off ? written != 0 : written != bytes) {
		fprintf(stderr, "TERN_SIM_DATA=%s: %zu of %zu result bytes written\n",
			off ? "off" : "on", written, bytes);
		return false;
	}
	return true;
}

static int child_main(void)
{
	tern_device_t dev[MAX_RANKS];
	tern_stream_t stream[MAX_RANKS];
	tern_comm_t comm[MAX_RANKS];
	tern_event_t start[MAX_RANKS], end[MAX_RANKS];
	tern_buffer_t send[MAX_RANKS], recv[MAX_RANKS];
	size_t max = sizes[ARRAY_SIZE(sizes) - 1];
	int n = 0;

	CHECK(tern_device_count(&n));
	for (int r = 0; r < n; r++) {
		CHECK(tern_device_open(r, &dev[r]));
		CHECK(tern_stream_create(dev[r], &stream[r]));
		CHECK(tern_event_create(dev[r], &start[r]));
		CHECK(tern_event_create(dev[r], &end[r]));
		CHECK(tern_buffer_alloc(dev[r], TERN_MEMORY_DEVICE, max,
					&send[r]));
		CHECK(tern_buffer_alloc(dev[r], TERN_MEMORY_DEVICE, max,
					&recv[r]));
		CHECK(tern_memset_async(send[r], 0, 0x3c, max, stream[r]));
	}
	CHECK(tern_comm_init_all(comm, n, dev));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t count = sizes[s] / sizeof(float);
		float slowest = 0;

		/* a warm-up, then every stream idle: all start together */
		for (int i = 0; i <= ITERS; i++) {
			for (int r = 0; r < n; r++) {
				if (i == 1)
					CHECK(tern_event_record(start[r],
								stream[r]));
				CHECK(tern_all_reduce(tern_ptr(send[r], 0),
						      tern_ptr(recv[r], 0), count,
						      TERN_FLOAT32, TERN_SUM,
						      comm[r], stream[r]));
			}
			if (i == 0)
				for (int r = 0; r < n; r++)
					CHECK(tern_stream_synchronize(stream[r]));
		}
		for (int r = 0; r < n; r++) {
			float ms;

			CHECK(tern_event_record(end[r], stream[r]));
			CHECK(tern_stream_synchronize(stream[r]));
			CHECK(tern_event_elapsed_time(&ms, start[r], end[r]));
			if (ms > slowest)
				slowest = ms;
		}
		if (slowest * 1e6 / ITERS < 1000) {
			fprintf(stderr, "%zu bytes: %.0f ns, less than a hop\n",
				sizes[s], slowest * 1e6 / ITERS);
			return 1;
		}
		if (n > 1 && slowest * 1e6 / ITERS <
		    bandwidth_bound_ns(dev[0], n, sizes[s])) {
			fprintf(stderr, "%zu bytes: %.0f ns, below the bound\n",
				sizes[s], slowest * 1e6 / ITERS);
			return 1;
		}
		printf("%zu %.6f\n", sizes[s], slowest);
	}
	if (!result_moved(recv[0], max))
		return 1;
	for (int r = 0; r < n; r++) {
		CHECK(tern_comm_destroy(comm[r]));
		CHECK(tern_buffer_free(send[r]));
		CHECK(tern_buffer_free(recv[r]));
		CHECK(tern_event_destroy(start[r]));
		CHECK(tern_event_destroy(end[r]));
		CHECK(tern_stream_destroy(stream[r]));
		CHECK(tern_device_close(dev[r]));
	}
	return 0;
}

/* Runs the child on @m; returns what it printed (the caller frees it). */
static char *run_child(const struct machine *m, const char *data)
{
	char *out = calloc(1, 4096);
	size_t used = 0;
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	assert_non_null(out);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		setenv("TERN_BACKEND", "sim", 1);
		setenv("TERN_SIM_CLOCK", "model", 1);
		setenv("TERN_SIM_TOPOLOGY", m->topology, 1);
		setenv("TERN_SIM_DEVICES", m->devices, 1);
		setenv("TERN_SIM_MEM_MB", "64", 1);
		setenv("TERN_SIM_DATA", data, 1);
		execl("/proc/self/exe", "test_modelled", "--child", m->name,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], out + used, 4095 - used)) > 0)
		used += (size_t)got;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("%s: the child failed (status 0x%x)", m->name, status);
	return out;
}

/*
 * Whether two children's figures ("size ms" lines) are the same sizes with
 * the same times, to a thousandth: the timing model serves transfers that
 * meet on a device's memory at one modelled time in the order the host
 * ran them (model/tern_timing.h), and a busy host (a sanitizer build, a
 * loaded machine) may run them in another order, by a few nanoseconds in
 * a hundred microseconds; a change of schedule moves them by far more.
 */
static bool same_times(const char *a, const char *b)
{
	for (;;) {
		unsigned long size_a, size_b;
		double ms_a, ms_b;
		int used_a, used_b;
		int got_a = sscanf(a, "%lu %lf\n%n", &size_a, &ms_a, &used_a);
		int got_b = sscanf(b, "%lu %lf\n%n", &size_b, &ms_b, &used_b);

		if (got_a != got_b)
			return false;
		if (got_a != 2)
			return !*a && !*b;
		if (size_a != size_b ||
		    fabs(ms_a - ms_b) > 1e-3 * fmax(ms_a, ms_b))
			return false;
		a += used_a;
		b += used_b;
	}
}

static void test_same_times_twice(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++) {
		char *first = run_child(&machines[i], "on");
		char *second = run_child(&machines[i], "on");

		printf("# %s (size, slowest rank's ms for %d):\n%s",
		       machines[i].name, ITERS, first);
		if (!same_times(first, second))
			fail_msg("%s: modelled times differ:\n%s---\n%s",
				 machines[i].name, first, second);
		free(first);
		free(second);
	}
}

/* Moving no data changes no modelled time: the schedule is the same. */
static void test_no_data(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++) {
		char *moved = run_child(&machines[i], "on");
		char *timed = run_child(&machines[i], "off");

		if (!same_times(moved, timed))
			fail_msg("%s: TERN_SIM_DATA=off changed the times:\n%s---\n%s",
				 machines[i].name, moved, timed);
		free(moved);
		free(timed);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_times_twice),
		cmocka_unit_test(test_no_data),
	};

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main();
	return cmocka_run_group_tests_name("modelled", tests, NULL, NULL);
}
