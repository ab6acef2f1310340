// SPDX-License-Identifier: MIT
/*
 * Launching programs: each engine's instructions become a packet stream
 * on that engine (streams libtern keeps for each core: one on a DMA
 * engine of the chip, one on each of the core's tensor, vector and scalar
 * engines), with a SEM_WAIT before an instruction for each wait it has and a
 * SEM_SIGNAL after one another engine waits for. Each engine counts its
 * instructions in a semaphore of its own, fresh for each launch.
 *
 * The streams are cut into jobs by windows of the program order and sent
 * window by window, so a job never waits for a job not yet sent: the
 * device's limit on jobs in flight cannot stall the program on itself.
 * A window holds a bounded amount of work, and its jobs start only once
 * the jobs of the window two before have ended on every engine: a
 * semaphore wait then lasts about two windows of another engine's work
 * at most, however long the program, well inside the job timeout that
 * a waiting job counts against, while neighbouring windows still
 * overlap.
 */
#include <stdlib.h>
#include <string.h>

#include "compute.h"
#include "submit.h"
#include "tern_tile.h"

/* Instructions of the program order in one window of jobs, at most. */
#define TERN_LAUNCH_WINDOW	512u
/*
 * Work in one window, at most (tern_insn_work(): multiply-adds, or bytes
 * for the other instructions); eight matmuls of whole tiles.
 */
#define TERN_LAUNCH_WORK	(1ull << 26)
/* Packet bytes an instruction may need: itself, a wait per engine, a signal. */
#define TERN_INSN_STREAM_BYTES \
	(TERN_PACKET_MAX_BYTES + \
	 (TERN_ENGINE_KINDS + 1) * sizeof(struct drm_tern_packet_sem_wait))

struct tern_compute *tern_compute_get(struct tern_device *dev)
{
	uint32_t cores = dev->info.cores.cores;
	struct tern_compute *c;

	pthread_mutex_lock(&dev->lock);
	c = dev->compute;
	if (!c) {
		c = calloc(1, sizeof(*c) + cores * sizeof(c->core[0]));
		if (c) {
			pthread_mutex_init(&c->lock, NULL);
			c->core_count = cores;
			dev->compute = c;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return c;
}

void tern_compute_release(struct tern_device *dev)
{
	struct tern_compute *c = dev->compute;

	if (!c)
		return;
	for (uint32_t i = 0; i < c->core_count; i++)
		if (c->core[i].done)
			tern_fence_put(c->core[i].done);
	pthread_mutex_destroy(&c->lock);
	free(c);
	dev->compute = NULL;
}

/*
 * The stream of @core's engine @e, made on first use. The cores take the
 * chip's DMA engines from the last down, away from the first ones, which
 * streams take first: on a chip with a DMA engine per core or more, a
 * core's loads and stores wait behind no other work.
 */
static tern_status_t tern_engine_stream(struct tern_device *dev,
					struct tern_compute_core *core,
					uint32_t index, int e,
					struct tern_stream **out)
{
	uint32_t dma = dev->info.dma_engine_count;
	uint32_t engine = e == TERN_ENGINE_DMA ? dma - 1 - index % dma :
			  tern_model_engine_index(dma, index, (uint32_t)e);
	tern_status_t status = TERN_SUCCESS;

	/*
	 * A stream whose job failed (the launching stream has reported it) may
	 * be one the driver will take no more jobs on: start afresh.
	 */
	if (core->engine[e] && tern_worklog_stream_error(core->engine[e]->log)) {
		tern_stream_destroy(core->engine[e]);
		core->engine[e] = NULL;
	}
	if (!core->engine[e])
		status = tern_stream_create_on(dev, engine, &core->engine[e]);
	*out = core->engine[e];
	return status;
}

/* What a launch holds while it sends its jobs. */
struct tern_launch {
	struct tern_program *p;
	struct tern_stream *stream[TERN_ENGINE_KINDS];
	uint32_t slot[TERN_ENGINE_KINDS];
	uint64_t sem[TERN_ENGINE_KINDS];	/* the slots' device addresses */
	uint32_t done[TERN_ENGINE_KINDS];	/* instructions emitted */
	bool started[TERN_ENGINE_KINDS];
	/* what every engine's first job waits for */
	struct tern_fence *before[64];
	uint32_t before_count;
	uint8_t *packets[TERN_ENGINE_KINDS];
	struct tern_packet_builder b[TERN_ENGINE_KINDS];
	/* every window's job, for the launching stream to answer for */
	struct tern_fence **jobs;
	uint32_t job_count, job_cap;
	/* the last three windows' jobs per engine (in @jobs), by window % 3 */
	struct tern_fence *recent[3][TERN_ENGINE_KINDS];
	uint32_t window;
};

/* Appends @insn, with its waits and signal, to its engine's window. */
static void tern_emit(struct tern_launch *l, const struct tern_insn *insn)
{
	int e = insn->engine;
	struct tern_packet_builder *b = &l->b[e];
	for (int f = 0; f < TERN_ENGINE_KINDS; f++)
		if (insn->wait[f])
			tern_packet_sem_wait(b, l->sem[f], insn->wait[f], false);
	tern_packet_append(b, insn->packet, insn->bytes);
	l->done[e]++;
	if (insn->signal)
		tern_packet_sem_signal(b, l->sem[e], l->done[e], false);
}

/*
 * What engine @e's job of the current window waits for: the launch's
 * start for its first job, and the other engines' jobs of the window two
 * before.
 */
static uint32_t tern_window_waits(struct tern_launch *l, int e,
				  struct tern_fence **waits)
{
	uint32_t n = 0;

	if (!l->started[e]) {
		memcpy(waits, l->before, l->before_count * sizeof(*waits));
		n = l->before_count;
	}
	if (l->window >= 2)
		for (int f = 0; f < TERN_ENGINE_KINDS; f++) {
			struct tern_fence *job = l->recent[(l->window - 2) % 3][f];

			if (f != e && job)
				waits[n++] = job;
		}
	return n;
}

/* Sends each engine's part of the window. */
static tern_status_t tern_send_window(struct tern_launch *l)
{
	struct tern_fence *waits[ARRAY_SIZE(l->before) + TERN_ENGINE_KINDS];
	tern_status_t status = TERN_SUCCESS;

	for (int e = 0; e < TERN_ENGINE_KINDS && !status; e++) {
		struct tern_fence *job = NULL;
		uint32_t n;

		l->recent[l->window % 3][e] = NULL;
		if (!l->b[e].size)
			continue;
		if (l->job_count == l->job_cap) {
			uint32_t cap = l->job_cap ? 2 * l->job_cap : 16;
			void *more = realloc(l->jobs, cap * sizeof(*l->jobs));

			if (!more)
				return TERN_ERROR_OUT_OF_MEMORY;
			l->jobs = more;
			l->job_cap = cap;
		}
		n = tern_window_waits(l, e, waits);
		status = tern_stream_submit(l->stream[e], l->packets[e],
					    l->b[e].size, waits, n, &job);
		if (!status) {
			l->jobs[l->job_count++] = job;
			l->recent[l->window % 3][e] = job;
		}
		l->started[e] = true;
		l->b[e].size = 0;
	}
	l->window++;
	return status;
}

/* Checks again that every buffer the program moves data of is alive. */
static bool tern_buffers_alive(const struct tern_program *p)
{
	for (uint32_t i = 0; i < p->count; i++)
		if (p->insns[i].buffer &&
		    !tern_handle_valid(p->insns[i].buffer, TERN_HANDLE_BUFFER))
			return false;
	return true;
}

/*
 * The fences a launch's engines start after: @stream's work so far (its
 * last job and what its next one would wait for) and the core's last
 * launch.
 */
static tern_status_t tern_launch_before(struct tern_launch *l,
					struct tern_stream *s,
					struct tern_compute_core *core)
{
	struct tern_fence *mine[ARRAY_SIZE(l->before)];
	uint32_t n = 0;

	pthread_mutex_lock(&s->lock);
	if (s->wait_count + 2 > ARRAY_SIZE(l->before)) {
		pthread_mutex_unlock(&s->lock);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	if (s->last)
		mine[n++] = tern_fence_get(s->last);
	for (uint32_t i = 0; i < s->wait_count; i++)
		mine[n++] = tern_fence_get(s->waits[i]);
	pthread_mutex_unlock(&s->lock);
	if (core->done)
		mine[n++] = tern_fence_get(core->done);
	memcpy(l->before, mine, n * sizeof(mine[0]));
	l->before_count = n;
	return TERN_SUCCESS;
}

static tern_status_t tern_launch_prepare(struct tern_launch *l,
					 struct tern_compute_core *core)
{
	struct tern_program *p = l->p;
	struct tern_device *dev = p->device;
	tern_status_t status = TERN_SUCCESS;

	for (int e = 0; e < TERN_ENGINE_KINDS && !status; e++)
		if (p->engine_count[e])
			status = tern_engine_stream(dev, core, p->core, e,
						    &l->stream[e]);
	for (int e = 0; e < TERN_ENGINE_KINDS && !status; e++) {
		size_t cap = TERN_LAUNCH_WINDOW * TERN_INSN_STREAM_BYTES;

		l->packets[e] = aligned_alloc(8, cap);
		if (!l->packets[e])
			return TERN_ERROR_OUT_OF_MEMORY;
		tern_packets_init(&l->b[e], l->packets[e], cap);
		pthread_mutex_lock(&dev->lock);
		status = tern_slot_alloc(dev, &l->slot[e]);
		if (!status) {
			l->sem[e] = tern_slot_va(dev, l->slot[e]);
			tern_slot_write(dev, l->slot[e], 0);
		}
		pthread_mutex_unlock(&dev->lock);
		if (status)
			l->slot[e] = UINT32_MAX;
	}
	return status;
}

/*
 * Makes @s's next work wait for every engine @l sent jobs to, and @s
 * answer for their jobs: a failure among them is the stream's, reported
 * by its synchronize, query and events like one of its own.
 */
static tern_status_t tern_launch_join(struct tern_launch *l,
				      struct tern_stream *s)
{
	tern_status_t status = TERN_SUCCESS;

	pthread_mutex_lock(&s->lock);
	for (uint32_t i = 0; i < l->job_count && !status; i++) {
		status = tern_worklog_reserve(s->log);
		if (!status)
			tern_worklog_append(s->log, l->jobs[i]);
	}
	pthread_mutex_unlock(&s->lock);

	for (int e = 0; e < TERN_ENGINE_KINDS && !status; e++) {
		struct tern_fence *f;

		if (!l->started[e])
			continue;
		f = tern_stream_last_fence(l->stream[e]);
		pthread_mutex_lock(&s->lock);
		status = tern_stream_add_wait_locked(s, f);
		pthread_mutex_unlock(&s->lock);
		tern_fence_put(f);
	}
	return status;
}

/*
 * Frees what @l held: its semaphores once @end (the job after all of its
 * engines' work) has signalled; without @end, never, as its engines may
 * still count in them.
 */
static void tern_launch_free(struct tern_launch *l, struct tern_fence *end)
{
	struct tern_device *dev = l->p->device;

	pthread_mutex_lock(&dev->lock);
	for (int e = 0; e < TERN_ENGINE_KINDS && end; e++)
		if (l->slot[e] != UINT32_MAX)
			tern_slot_release(dev, l->slot[e], end);
	pthread_mutex_unlock(&dev->lock);
	for (uint32_t i = 0; i < l->before_count; i++)
		tern_fence_put(l->before[i]);
	for (int e = 0; e < TERN_ENGINE_KINDS; e++)
		free(l->packets[e]);
	for (uint32_t i = 0; i < l->job_count; i++)
		tern_fence_put(l->jobs[i]);
	free(l->jobs);
}

/* Sends all of @l's program, window by window. */
static tern_status_t tern_launch_send(struct tern_launch *l)
{
	const struct tern_program *p = l->p;
	tern_status_t status = TERN_SUCCESS;

	for (uint32_t at = 0; at < p->count && !status;) {
		uint64_t work = 0;

		for (uint32_t n = 0; at < p->count && n < TERN_LAUNCH_WINDOW &&
		     work < TERN_LAUNCH_WORK; n++, at++) {
			tern_emit(l, &p->insns[at]);
			work += p->insns[at].work;
		}
		status = tern_send_window(l);
	}
	return status;
}

/* A job on @s after everything before it: the end of the launches. */
static tern_status_t tern_launch_end(struct tern_stream *s,
				     struct tern_fence **end)
{
	struct tern_packet_builder b;
	uint64_t nop[1];

	tern_packets_init(&b, nop, sizeof(nop));
	tern_packet_nop(&b, 1);
	return tern_stream_submit(s, nop, b.size, NULL, 0, end);
}

tern_status_t tern_programs_launch(struct tern_program *const *programs,
				   uint32_t count, struct tern_stream *stream)
{
	struct tern_device *dev = stream->device;
	struct tern_launch *l;
	struct tern_fence *end = NULL;
	tern_status_t status = TERN_SUCCESS;
	struct tern_compute *c;
	uint32_t i;

	c = tern_compute_get(dev);
	l = calloc(count, sizeof(*l));
	if (!c || !l) {
		free(l);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < count && !status; i++) {
		struct tern_compute_core *core = &c->core[programs[i]->core];

		l[i].p = programs[i];
		for (int e = 0; e < TERN_ENGINE_KINDS; e++)
			l[i].slot[e] = UINT32_MAX;
		status = tern_launch_prepare(&l[i], core);
		if (!status)
			status = tern_launch_before(&l[i], stream, core);
		if (!status)
			status = tern_launch_send(&l[i]);
	}
	for (uint32_t j = 0; j < i && !status; j++)
		status = tern_launch_join(&l[j], stream);
	if (!status)
		status = tern_launch_end(stream, &end);
	for (uint32_t j = 0; j < i; j++) {
		struct tern_compute_core *core = &c->core[programs[j]->core];

		if (end) {
			if (core->done)
				tern_fence_put(core->done);
			core->done = tern_fence_get(end);
		}
		tern_launch_free(&l[j], end);
	}
	pthread_mutex_unlock(&c->lock);
	if (end)
		tern_fence_put(end);
	free(l);
	return status;
}

TERN_API tern_status_t tern_program_launch(tern_program_t program,
					   tern_stream_t stream)
{
	struct tern_program *p = program;

	if (!tern_handle_valid(p, TERN_HANDLE_PROGRAM) ||
	    !tern_handle_valid(stream, TERN_HANDLE_STREAM) ||
	    !tern_handle_valid(p->device, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (stream->device != p->device) {
		tern_set_last_error("tern_program_launch: the stream is not one of the program's device");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (!tern_buffers_alive(p)) {
		tern_set_last_error("tern_program_launch: a buffer the program loads or stores was freed");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (!p->count)
		return TERN_SUCCESS;
	return tern_programs_launch(&p, 1, stream);
}
