// SPDX-License-Identifier: MIT
/*
 * The machine's fences: signalled once, with the job's status, by the
 * engine that ran the job. The process that submitted the job learns of
 * it through its fence table (wire.h): one compare-and-swap of its slot
 * from pending to done, then a futex wake if it sleeps there. Engines whose next job depends
 * on a fence ask to be woken when it signals; the machine's own waiters
 * (a queue going away) use the condition variable.
 *
 * The slot is written only if it still holds this fence's generation: a
 * process that has let the fence go may already use the slot for a newer
 * one. The table stays mapped while the client or any of its fences
 * holds it, so a late signal never writes into freed memory.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "machine.h"

struct machine_fence_table *machine_fence_table_map(int fd)
{
	struct machine_fence_table *table;
	struct stat st;
	void *words;
	int seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd, &st) ||
	    (uint64_t)st.st_size != SIM_FENCE_TABLE_BYTES)
		return NULL;
	table = calloc(1, sizeof(*table));
	if (!table)
		return NULL;
	words = mmap(NULL, SIM_FENCE_TABLE_BYTES, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	if (words == MAP_FAILED) {
		free(table);
		return NULL;
	}
	atomic_init(&table->refs, 1);
	table->words = words;
	return table;
}

void machine_fence_table_put(struct machine_fence_table *table)
{
	if (!table || atomic_fetch_sub_explicit(&table->refs, 1,
						memory_order_acq_rel) != 1)
		return;
	munmap(table->words, SIM_FENCE_TABLE_BYTES);
	free(table);
}

struct machine_fence *machine_fence_create(struct machine_fence_table *table,
					   uint32_t slot, uint32_t gen)
{
	struct machine_fence *fence = calloc(1, sizeof(*fence));

	if (!fence)
		return NULL;
	atomic_init(&fence->refs, 1);
	pthread_mutex_init(&fence->lock, NULL);
	pthread_cond_init(&fence->cond, NULL);
	if (table)
		atomic_fetch_add_explicit(&table->refs, 1,
					  memory_order_relaxed);
	fence->table = table;
	fence->slot = slot;
	fence->gen = gen;
	return fence;
}

struct machine_fence *machine_fence_get(struct machine_fence *fence)
{
	atomic_fetch_add_explicit(&fence->refs, 1, memory_order_relaxed);
	return fence;
}

void machine_fence_put(struct machine_fence *fence)
{
	if (!fence || atomic_fetch_sub_explicit(&fence->refs, 1,
						memory_order_acq_rel) != 1)
		return;
	free(fence->watchers);
	machine_fence_table_put(fence->table);
	pthread_cond_destroy(&fence->cond);
	pthread_mutex_destroy(&fence->lock);
	free(fence);
}

/*
 * Tells the process: its slot goes from pending to done, and a sleeper
 * wakes. The process may set the sleeping bit meanwhile, so the swap is
 * tried from both forms of pending; a slot already reused for a newer
 * fence keeps its own time and state.
 */
static void machine_fence_report(struct machine_fence *fence,
				 tern_status_t status, uint64_t end_ns)
{
	const uint64_t pending = sim_fence_word_pending(fence->gen);
	uint64_t *word, seen;

	if (!fence->table || fence->slot >= SIM_FENCE_SLOTS)
		return;
	word = &fence->table->words[fence->slot];
	seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	if ((seen & ~(uint64_t)SIM_FENCE_SLEEPING) != pending)
		return;
	__atomic_store_n(&fence->table->words[SIM_FENCE_SLOTS + fence->slot],
			 end_ns, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(word, &seen,
					    sim_fence_word_done(fence->gen,
								status),
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		if ((seen & ~(uint64_t)SIM_FENCE_SLEEPING) != pending)
			return;
	if (seen & SIM_FENCE_SLEEPING)
		syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX,
			NULL, NULL, 0);
}

void machine_fence_signal(struct machine_fence *fence, tern_status_t status,
			  uint64_t end_ns)
{
	struct machine_engine **watchers;
	uint32_t count, i;

	pthread_mutex_lock(&fence->lock);
	fence->signaled = true;
	fence->status = status;
	fence->end_ns = end_ns;
	watchers = fence->watchers;
	count = fence->watcher_count;
	fence->watchers = NULL;
	fence->watcher_count = 0;
	fence->watcher_cap = 0;
	pthread_cond_broadcast(&fence->cond);
	pthread_mutex_unlock(&fence->lock);
	machine_fence_report(fence, status, end_ns);

	/* Engine locks are taken without the fence lock: see ready_or_watch. */
	for (i = 0; i < count; i++)
		machine_engine_kick(watchers[i]);
	free(watchers);
}

bool machine_fence_ready_or_watch(struct machine_fence *fence,
				  struct machine_engine *engine)
{
	bool ready;
	uint32_t i;

	/* Called with the engine lock held, so it nests engine -> fence. */
	pthread_mutex_lock(&fence->lock);
	ready = fence->signaled;
	if (ready)
		goto out;
	for (i = 0; i < fence->watcher_count; i++)
		if (fence->watchers[i] == engine)
			goto out;
	if (fence->watcher_count == fence->watcher_cap) {
		uint32_t cap = fence->watcher_cap ? fence->watcher_cap * 2 : 2;
		struct machine_engine **bigger =
			realloc(fence->watchers, cap * sizeof(*bigger));

		if (!bigger) {
			/* Cannot watch: the engine polls instead. */
			engine->poll = true;
			goto out;
		}
		fence->watchers = bigger;
		fence->watcher_cap = cap;
	}
	fence->watchers[fence->watcher_count++] = engine;
out:
	pthread_mutex_unlock(&fence->lock);
	return ready;
}

void machine_fence_wait(struct machine_fence *fence)
{
	pthread_mutex_lock(&fence->lock);
	while (!fence->signaled)
		pthread_cond_wait(&fence->cond, &fence->lock);
	pthread_mutex_unlock(&fence->lock);
}
