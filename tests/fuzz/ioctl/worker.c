// SPDX-License-Identifier: MIT
/*
 * A worker process: its threads draw calls from one weighted table until
 * the run stops or the supervisor kills the process. Each thread's random
 * sequence comes from the master seed, the worker's generation and the
 * thread's index, so --verbose names every seed a replay needs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xf86drm.h>

#include "fuzz.h"

struct fuzz_op {
	enum fuzz_call call;
	fuzz_op run;
	unsigned int weight;
};

/* Weights: how often each call is drawn, relative to the others. */
static const struct fuzz_op ops[] = {
	{ CALL_TERN_GET_INFO, op_get_info, 3 },
	{ CALL_TERN_BO_CREATE_DEVICE, op_bo_create_device, 8 },
	{ CALL_TERN_BO_CREATE_HOST, op_bo_create_host, 5 },
	{ CALL_TERN_BO_INFO, op_bo_info, 4 },
	{ CALL_TERN_QUEUE_CREATE, op_queue_create, 5 },
	{ CALL_TERN_QUEUE_DESTROY, op_queue_destroy, 6 },
	{ CALL_TERN_SUBMIT_VALID, op_submit_valid, 24 },
	{ CALL_TERN_SUBMIT_MUTATED, op_submit_mutated, 14 },
	{ CALL_TERN_SUBMIT_STALL, op_submit_stall, 1 },
	{ CALL_TERN_TOPOLOGY, op_topology, 3 },
	{ CALL_TERN_RING_CREATE, op_ring_create, 4 },
	{ CALL_TERN_RING_DESTROY, op_ring_destroy, 4 },
	{ CALL_TERN_RING_KICK, op_ring_kick, 14 },
	{ CALL_TERN_RING_WAIT, op_ring_wait, 4 },
	{ CALL_TERN_RING_MASS, op_ring_mass, 1 },
	{ CALL_TERN_RING_WAIT_DESTROY, op_ring_wait_destroy, 2 },
	{ CALL_TERN_RAW, op_tern_raw, 4 },
	{ CALL_GEM_CLOSE, op_gem_close, 6 },
	{ CALL_PRIME_HANDLE_TO_FD, op_prime_handle_to_fd, 4 },
	{ CALL_PRIME_FD_TO_HANDLE, op_prime_fd_to_handle, 4 },
	{ CALL_SYNCOBJ_CREATE, op_syncobj_create, 5 },
	{ CALL_SYNCOBJ_DESTROY, op_syncobj_destroy, 3 },
	{ CALL_SYNCOBJ_WAIT, op_syncobj_wait, 4 },
	{ CALL_SYNCOBJ_RESET, op_syncobj_reset, 2 },
	{ CALL_SYNCOBJ_SIGNAL, op_syncobj_signal, 2 },
	{ CALL_SYNCOBJ_HANDLE_TO_FD, op_syncobj_handle_to_fd, 4 },
	{ CALL_SYNCOBJ_FD_TO_HANDLE, op_syncobj_fd_to_handle, 3 },
	{ CALL_SYNCOBJ_TIMELINE_WAIT, op_syncobj_timeline_wait, 1 },
	{ CALL_SYNCOBJ_QUERY, op_syncobj_query, 1 },
	{ CALL_SYNCOBJ_TRANSFER, op_syncobj_transfer, 1 },
	{ CALL_SYNCOBJ_TIMELINE_SIGNAL, op_syncobj_timeline_signal, 1 },
	{ CALL_GET_CAP, op_get_cap, 2 },
	{ CALL_VERSION, op_version, 2 },
	{ CALL_SYNC_FILE_INFO, op_sync_file_info, 3 },
	{ CALL_SYNC_FILE_MERGE, op_sync_file_merge, 1 },
	{ CALL_SYNC_FILE_POLL, op_sync_file_poll, 1 },
	{ CALL_MMAP, op_mmap, 5 },
	{ CALL_MUNMAP, op_munmap, 3 },
	{ CALL_TOUCH, op_touch, 6 },
	{ CALL_OPEN, op_open, 1 },
	{ CALL_CLOSE, op_close, 1 },
	{ CALL_CLOSE_FD, op_close_fd, 2 },
};

#define OP_COUNT	(sizeof(ops) / sizeof(ops[0]))

int fuzz_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? errno : 0;
}

void fuzz_done(struct fuzz_thread *t, enum fuzz_call call, int err)
{
	stats_record(t->worker->shared, call, err);
	t->seq++;
	if (t->worker->opt->trace)
		fprintf(stderr, "tern-fuzz: w%u.t%u #%" PRIu64 " %s: %s\n",
			t->worker->generation, t->index, t->seq, call_name(call),
			result_name(err));
}

bool fuzz_file(struct fuzz_thread *t, struct pool_file *file)
{
	if (pool_pick(&t->worker->pool, POOL_FILE, &t->rng, 0, file))
		return true;
	return file_open(t, (unsigned int)rng_below(&t->rng,
						     t->worker->devices->count), file);
}

/* Every device opened, with a few buffers, queues and syncobjs each. */
static void worker_prepare(struct fuzz_thread *t)
{
	const struct fuzz_options *opt = t->worker->opt;

	for (unsigned int d = 0; d < t->worker->devices->count; d++)
		file_open(t, d, NULL);
	for (unsigned int n = 0; n < 2 * t->worker->devices->count; n++) {
		if (!opt->skip[CALL_TERN_BO_CREATE_DEVICE])
			op_bo_create_device(t);
		if (!opt->skip[CALL_TERN_QUEUE_CREATE])
			op_queue_create(t);
		if (!opt->skip[CALL_SYNCOBJ_CREATE])
			op_syncobj_create(t);
	}
}

struct thread_start {
	struct fuzz_thread thread;
	pthread_t id;
	const unsigned int *cumulative;
	unsigned int total;
};

static void *thread_loop(void *arg)
{
	struct thread_start *start = arg;
	struct fuzz_thread *t = &start->thread;

	while (!atomic_load_explicit(&t->worker->shared->stop, memory_order_relaxed)) {
		unsigned int roll = (unsigned int)rng_below(&t->rng, start->total);
		size_t i = 0;

		while (start->cumulative[i] <= roll)
			i++;
		ops[i].run(t);
	}
	return NULL;
}

static void thread_init(struct thread_start *start, struct fuzz_worker *worker,
			unsigned int index)
{
	struct fuzz_thread *t = &start->thread;
	uint64_t seed = seed_derive(worker->opt->seed, worker->generation, index);

	t->worker = worker;
	t->index = index;
	t->seq = 0;
	rng_seed(&t->rng, seed);
	t->scratch = calloc(1, FUZZ_SCRATCH_BYTES);
	t->stream = calloc(1, sizeof(*t->stream));
	if (!t->scratch || !t->stream) {
		fprintf(stderr, "tern-fuzz: worker %u: out of memory\n",
			worker->generation);
		_exit(1);
	}
	if (worker->opt->verbose)
		fprintf(stderr, "tern-fuzz: worker %u (pid %d) thread %u seed %" PRIu64 "\n",
			worker->generation, (int)getpid(), index, seed);
}

void worker_main(const struct fuzz_options *opt,
		 const struct fuzz_devices *devices,
		 struct fuzz_shared *shared, unsigned int generation)
{
	static struct fuzz_worker worker;
	unsigned int cumulative[OP_COUNT], total = 0;
	struct thread_start *threads = calloc(opt->threads, sizeof(*threads));

	if (!threads)
		_exit(1);
	/*
	 * Two users: odd workers drop to the second uid before they open
	 * anything, so that the engines share their time between users.
	 */
	if (opt->second_uid && (generation & 1) &&
	    (setgid(opt->second_uid) || setuid(opt->second_uid))) {
		perror("tern-fuzz: worker: setuid");
		_exit(1);
	}
	worker = (struct fuzz_worker){
		.opt = opt, .devices = devices, .shared = shared,
		.generation = generation,
	};
	pool_init(&worker.pool);
	touch_install_handler();
	for (size_t i = 0; i < OP_COUNT; i++) {
		total += opt->skip[ops[i].call] ? 0 : ops[i].weight;
		cumulative[i] = total;
	}
	for (unsigned int i = 0; i < opt->threads; i++) {
		thread_init(&threads[i], &worker, i);
		threads[i].cumulative = cumulative;
		threads[i].total = total;
	}
	if (!total)
		_exit(0);
	worker_prepare(&threads[0].thread);
	for (unsigned int i = 1; i < opt->threads; i++) {
		if (pthread_create(&threads[i].id, NULL, thread_loop, &threads[i])) {
			fprintf(stderr, "tern-fuzz: worker %u: no thread %u\n",
				generation, i);
			_exit(1);
		}
	}
	thread_loop(&threads[0]);
	/* the run is over: exiting closes every file at once */
	_exit(0);
}
