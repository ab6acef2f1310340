// SPDX-License-Identifier: MIT
/*
 * Simulator fences, as this process sees them: a slot of the fence table
 * (wire.h), a memfd shared with the machine, which ends the fence by
 * writing the slot, and wakes its futex if the process sleeps there.
 * Waiting costs no round trip. A
 * wait also looks, every 50 ms, whether the machine is still there: if it
 * went, every pending fence reads as TERN_ERROR_BACKEND instead of
 * waiting forever. Fences are the process's, usable by any device.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

#define SIM_FENCE_LOOK_NS	50000000ll

tern_status_t sim_fences_init(struct sim_conn *conn, int *fd)
{
	int table = memfd_create("tern-sim-fences",
				 MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *map;

	if (table < 0)
		return TERN_ERROR_BACKEND;
	if (ftruncate(table, (off_t)SIM_FENCE_TABLE_BYTES) ||
	    fcntl(table, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
		close(table);
		return TERN_ERROR_BACKEND;
	}
	map = mmap(NULL, SIM_FENCE_TABLE_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED, table, 0);
	if (map == MAP_FAILED) {
		close(table);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	conn->fences = map;
	pthread_mutex_init(&conn->fence_lock, NULL);
	*fd = table;
	return TERN_SUCCESS;
}

void sim_fences_fini(struct sim_conn *conn)
{
	if (conn->fences)
		munmap(conn->fences, SIM_FENCE_TABLE_BYTES);
	conn->fences = NULL;
	free(conn->free_slots);
	free(conn->gens);
	conn->free_slots = NULL;
	conn->gens = NULL;
	conn->free_count = conn->free_cap = conn->next_slot = 0;
}

static void sim_fence_release(struct tern_fence *bfence)
{
	struct sim_fence *fence =
		tern_container_of(bfence, struct sim_fence, base);
	struct sim_conn *conn = fence->conn;
	struct sim_fence_ref ref = { fence->slot, fence->gen };

	/* The machine lets go first; the slot's next use has a new gen. */
	if (conn->pid == sim_self_pid() && conn->fences)
		sim_send(conn, SIM_MSG_FENCE_PUT, &ref, sizeof(ref), NULL, 0);
	pthread_mutex_lock(&conn->fence_lock);
	if (conn->free_count < conn->free_cap)
		conn->free_slots[conn->free_count++] = fence->slot;
	pthread_mutex_unlock(&conn->fence_lock);
	free(fence);
}

/* A free slot, or UINT32_MAX. Lock held. */
static uint32_t sim_slot_take(struct sim_conn *conn)
{
	if (conn->free_count)
		return conn->free_slots[--conn->free_count];
	if (conn->next_slot == SIM_FENCE_SLOTS)
		return UINT32_MAX;
	if (conn->next_slot == conn->free_cap) {
		uint32_t cap = conn->free_cap ? conn->free_cap * 2 : 1024;
		uint32_t *slots = realloc(conn->free_slots,
					  cap * sizeof(*slots));
		uint32_t *gens;

		if (!slots)
			return UINT32_MAX;
		conn->free_slots = slots;
		gens = realloc(conn->gens, cap * sizeof(*gens));
		if (!gens)
			return UINT32_MAX;
		memset(gens + conn->free_cap, 0,
		       (cap - conn->free_cap) * sizeof(*gens));
		conn->gens = gens;
		conn->free_cap = cap;
	}
	return conn->next_slot++;
}

struct sim_fence *sim_fence_create(struct sim_conn *conn)
{
	struct sim_fence *fence = calloc(1, sizeof(*fence));
	uint32_t slot;

	if (!fence)
		return NULL;
	pthread_mutex_lock(&conn->fence_lock);
	slot = sim_slot_take(conn);
	if (slot != UINT32_MAX) {
		fence->gen = ++conn->gens[slot] & SIM_FENCE_GEN_MASK;
		__atomic_store_n(&conn->fences[slot],
				 sim_fence_word_pending(fence->gen),
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&conn->fence_lock);
	if (slot == UINT32_MAX) {
		free(fence);
		return NULL;
	}
	atomic_init(&fence->base.refs, 1);
	fence->base.release = sim_fence_release;
	fence->conn = conn;
	fence->slot = slot;
	return fence;
}

static struct sim_fence *sim_fence(struct tern_fence *bfence)
{
	return tern_container_of(bfence, struct sim_fence, base);
}

static uint64_t sim_fence_word(const struct sim_fence *fence)
{
	return __atomic_load_n(&fence->conn->fences[fence->slot],
			       __ATOMIC_ACQUIRE);
}

static bool sim_fence_done(const struct sim_fence *fence, uint64_t word)
{
	return (uint32_t)word == (uint32_t)sim_fence_word_done(fence->gen, 0);
}

/*
 * The application saw the fence end (not the library's own polling, whose
 * timing is the host's): the modelled time its job ended at is now the
 * process's, and what it submits next starts no earlier.
 */
void sim_fence_seen(struct tern_fence *bfence)
{
	struct sim_fence *fence = sim_fence(bfence);
	struct sim_conn *conn = fence->conn;
	uint64_t end, seen;

	if (!sim_fence_done(fence, sim_fence_word(fence)))
		return;
	end = __atomic_load_n(&conn->fences[SIM_FENCE_SLOTS + fence->slot],
			      __ATOMIC_RELAXED);
	seen = __atomic_load_n(&conn->host_ns, __ATOMIC_RELAXED);
	while (seen < end &&
	       !__atomic_compare_exchange_n(&conn->host_ns, &seen, end, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static int64_t sim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/*
 * Watches the slot a while before sleeping on it: a job that ends within
 * that time is seen without the machine's engine having to wake this
 * thread, which costs tens of microseconds on an idle CPU.
 */
#define SIM_FENCE_SPIN_NS	20000ll

static bool sim_fence_spin(const struct sim_fence *fence, int64_t start)
{
	do {
		for (int i = 0; i < 64; i++) {
			if (sim_fence_done(fence, sim_fence_word(fence)))
				return true;
			tern_cpu_relax();
		}
	} while (sim_now_ns() - start < SIM_FENCE_SPIN_NS);
	return false;
}

/*
 * Marks the pending slot as slept on, so that the machine wakes it; false
 * if it is done already.
 */
static bool sim_fence_sleeping(const struct sim_fence *fence, uint64_t *word)
{
	uint64_t *slot = &fence->conn->fences[fence->slot];

	while (!(*word & SIM_FENCE_SLEEPING)) {
		if (sim_fence_done(fence, *word))
			return false;
		if (__atomic_compare_exchange_n(slot, word,
						*word | SIM_FENCE_SLEEPING,
						false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			*word |= SIM_FENCE_SLEEPING;
	}
	return true;
}

tern_status_t sim_fence_wait(struct tern_fence *bfence, int64_t timeout_ns)
{
	struct sim_fence *fence = sim_fence(bfence);
	int64_t start = sim_now_ns(), left, slice;
	uint64_t word;

	if (timeout_ns != 0 && sim_fence_spin(fence, start))
		return TERN_SUCCESS;

	for (;;) {
		word = sim_fence_word(fence);
		if (sim_fence_done(fence, word) || !sim_conn_alive(fence->conn))
			return TERN_SUCCESS;
		left = timeout_ns == TERN_WAIT_FOREVER ? SIM_FENCE_LOOK_NS :
			timeout_ns - (sim_now_ns() - start);
		if (left <= 0)
			return TERN_ERROR_NOT_READY;
		if (!sim_fence_sleeping(fence, &word))
			return TERN_SUCCESS;
		slice = left < SIM_FENCE_LOOK_NS ? left : SIM_FENCE_LOOK_NS;
		{
			struct timespec ts = { slice / 1000000000ll,
					       slice % 1000000000ll };

			syscall(SYS_futex, &fence->conn->fences[fence->slot],
				FUTEX_WAIT, (uint32_t)word, &ts, NULL, 0);
		}
	}
}

tern_status_t sim_fence_status(struct tern_fence *bfence)
{
	struct sim_fence *fence = sim_fence(bfence);
	uint64_t word = sim_fence_word(fence);

	if (sim_fence_done(fence, word))
		return (tern_status_t)(word >> 32);
	return sim_conn_alive(fence->conn) ? TERN_ERROR_NOT_READY :
					     TERN_ERROR_BACKEND;
}

tern_status_t sim_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out)
{
	(void)bdev;	/* the process's fences serve all its devices */
	*out = tern_fence_get(bfence);
	return TERN_SUCCESS;
}
