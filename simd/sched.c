// SPDX-License-Identifier: MIT
/*
 * The workers that run the machine's engines: a thread per CPU, not one
 * per engine. A worker takes the engine at the head of the run queue and
 * gives it a turn (engine.c): its jobs run until none can move, all of
 * them wait on semaphores, or other engines are waiting for a worker. An
 * engine whose jobs all wait is parked, holding no thread; an engine that
 * writes one of their semaphores queues it again, so that a collective's ranks hand
 * over to one another within one worker, without a context switch, and
 * sixteen devices' engines on two CPUs take turns instead of preempting
 * each other. A parked engine also runs again at its look (host writes
 * through a mapping, an abort word, the job timeout).
 *
 * Parking is guarded by the count of writes: an engine parks only if no
 * write landed since its job last read the semaphore, and a writer looks
 * for parked waiters after counting its write, so no wake-up is lost
 * between the two. A writer takes the lock only if an engine is parked
 * on a word of the same hash.
 *
 * Waking a sleeping thread costs tens of microseconds, more than a small
 * collective's work, so workers are woken sparingly: when all sleep, or
 * when engines have waited 50 us for a worker (machine_sched_share). A
 * worker with nothing to run watches the run queue and the rings a while
 * before it sleeps, when a CPU is spare or workers have lately run
 * engines side by side; one watches at a time. Workers sleep on the
 * doorbell page's futex, which processes share, so that a process whose
 * ring no worker watches wakes one itself, with no message to the
 * machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"

#define MACHINE_SPIN_NS		20000ull
/* Engines waiting this long for a worker are worth waking another. */
#define MACHINE_SHARE_NS	50000ull
/* After workers ran side by side, idle ones watch this long. */
#define MACHINE_BUSY_NS		1000000ull
/* The longest sleep: a worker looks at its parked engines this often. */
#define MACHINE_SLEEP_MAX_NS	100000000ull

/* Wakes a sleeping worker: the doorbell's seq moves, then its futex. */
static void machine_wake_one(struct machine_sched *s)
{
	__atomic_fetch_add(&s->bell->seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &s->bell->seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * Wakes another worker if every worker sleeps, or if engines have been
 * waiting for one for a while: the workers awake do not keep up, one of
 * them in a long turn. Waking one costs tens of microseconds, more than a
 * small job, so a collective's short jobs hand over on one worker, with
 * no lock to contend for, and long copies or many busy devices spread
 * over every CPU. One wake-up per backlog: the queue must empty before
 * the next. With or without the lock (then its counts are a hint).
 */
void machine_sched_share(struct machine_sched *s)
{
	uint64_t since;

	if (!atomic_load_explicit(&s->sleepers, memory_order_relaxed) ||
	    !atomic_load_explicit(&s->queued, memory_order_relaxed))
		return;
	since = atomic_load_explicit(&s->waiting_since, memory_order_relaxed);
	if (atomic_load_explicit(&s->sleepers, memory_order_relaxed) ==
	    s->workers) {
		machine_wake_one(s);
		return;
	}
	if (atomic_load_explicit(&s->spinners, memory_order_relaxed) ||
	    atomic_load_explicit(&s->shared_for, memory_order_relaxed) ==
	    since || machine_clock_ns() - since < MACHINE_SHARE_NS)
		return;
	atomic_store_explicit(&s->shared_for, since, memory_order_relaxed);
	machine_wake_one(s);
}

/* Queues @e (not queued, not running). Sched lock held. */
static void machine_run_push(struct machine_sched *s, struct machine_engine *e)
{
	e->state = MACHINE_ENGINE_QUEUED;
	e->run_next = NULL;
	if (s->run_tail)
		s->run_tail->run_next = e;
	else
		s->run_head = e;
	s->run_tail = e;
	if (!s->queued++)
		s->waiting_since = machine_clock_ns();
	machine_sched_share(s);
}

static struct machine_engine *machine_run_pop(struct machine_sched *s)
{
	struct machine_engine *e = s->run_head;

	if (!e)
		return NULL;
	s->run_head = e->run_next;
	if (!s->run_head)
		s->run_tail = NULL;
	s->queued--;
	return e;
}

static unsigned int machine_park_hash(const void *word)
{
	return (unsigned int)(((uintptr_t)word >> 3) * 0x9e3779b1u) %
	       MACHINE_PARK_HASH;
}

static void machine_unpark(struct machine_sched *s, struct machine_engine *e)
{
	unsigned int last = atomic_load(&s->parked_count) - 1;

	s->parked[e->parked_at] = s->parked[last];
	s->parked[e->parked_at]->parked_at = e->parked_at;
	atomic_store(&s->parked_count, last);
	for (unsigned int i = 0; i < e->wait_count; i++)
		atomic_fetch_sub(&s->parked_on[machine_park_hash(e->waits_on[i])],
				 1);
}

/* Whether parked @e waits on @word. */
static bool machine_waits_on(const struct machine_engine *e, const void *word)
{
	for (unsigned int i = 0; i < e->wait_count; i++)
		if (e->waits_on[i] == word)
			return true;
	return false;
}

/* Sched lock held. */
static void machine_kick_locked(struct machine_sched *s,
				struct machine_engine *e)
{
	switch (e->state) {
	case MACHINE_ENGINE_PARKED:
		machine_unpark(s, e);
		/* fall through */
	case MACHINE_ENGINE_IDLE:
		machine_run_push(s, e);
		break;
	case MACHINE_ENGINE_RUNNING:
		e->again = true;
		break;
	case MACHINE_ENGINE_QUEUED:
		break;
	}
}

void machine_engine_kick(struct machine_engine *engine)
{
	struct machine_sched *s = &engine->dev->machine->sched;

	pthread_mutex_lock(&s->lock);
	machine_kick_locked(s, engine);
	pthread_mutex_unlock(&s->lock);
}

/*
 * The writes this worker counted itself. An engine's own accesses (its
 * SEM_WAIT reads its semaphore, and reads are counted as writes too) do
 * not stop it parking: it saw them in order.
 */
static __thread uint64_t machine_own_writes;

void machine_sched_writes(struct machine_sched *s, struct machine_park *park)
{
	park->own = machine_own_writes;
	park->writes = atomic_load(&s->writes);
}

/* Whether another worker counted a write since @park's count. */
static bool machine_written_since(struct machine_sched *s,
				  const struct machine_park *park)
{
	return atomic_load(&s->writes) - park->writes !=
	       machine_own_writes - park->own;
}

void machine_sched_written(struct machine_sched *s, const void *word)
{
	unsigned int i;

	machine_own_writes++;
	atomic_fetch_add(&s->writes, 1);
	if (!atomic_load(&s->parked_on[machine_park_hash(word)]))
		return;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < atomic_load(&s->parked_count);) {
		struct machine_engine *e = s->parked[i];

		if (!machine_waits_on(e, word)) {
			i++;
			continue;
		}
		machine_unpark(s, e);	/* moves the last into i */
		machine_run_push(s, e);
	}
	pthread_mutex_unlock(&s->lock);
}

bool machine_sched_contended(struct machine_sched *s)
{
	return atomic_load_explicit(&s->queued, memory_order_relaxed) != 0;
}

/*
 * Parks @e, unless a write landed since its jobs read their semaphores:
 * the hash counts go up before that check, as a writer counts its write
 * before it looks at the hash (both sequentially consistent), so one of
 * the two sees the other. Sched lock held.
 */
static bool machine_park(struct machine_sched *s, struct machine_engine *e,
			 const struct machine_park *park)
{
	unsigned int i;

	for (i = 0; i < park->word_count; i++)
		atomic_fetch_add(&s->parked_on[machine_park_hash(park->words[i])],
				 1);
	if (park->word_count && machine_written_since(s, park)) {
		for (i = 0; i < park->word_count; i++)
			atomic_fetch_sub(&s->parked_on[machine_park_hash(park->words[i])],
					 1);
		return false;
	}
	e->state = MACHINE_ENGINE_PARKED;
	for (i = 0; i < park->word_count; i++)
		e->waits_on[i] = park->words[i];
	e->wait_count = park->word_count;
	e->look_ns = park->look_ns;
	e->parked_at = atomic_load(&s->parked_count);
	s->parked[e->parked_at] = e;
	atomic_fetch_add(&s->parked_count, 1);
	if (park->look_ns < s->next_look)
		s->next_look = park->look_ns;
	return true;
}

/* Where a turn leaves @e. Sched lock held. */
static void machine_after_turn(struct machine_sched *s,
			       struct machine_engine *e, enum machine_turn turn,
			       const struct machine_park *park)
{
	bool again = e->again;

	e->again = false;
	if (turn == MACHINE_TURN_IDLE && !again)
		e->state = MACHINE_ENGINE_IDLE;
	else if (turn != MACHINE_TURN_PARK || again || !machine_park(s, e, park))
		machine_run_push(s, e);
}

/* Queues the parked engines due by @now; the next look after. */
/*
 * A process wrote words through a mapping (wire.h): every parked engine
 * looks now. Sched lock held.
 */
static void machine_host_wrote(struct machine_sched *s, uint64_t now)
{
	uint32_t seen = __atomic_load_n(&s->bell->host_writes,
					__ATOMIC_ACQUIRE);

	if (seen == __atomic_load_n(&s->host_writes, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&s->host_writes, seen, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < atomic_load(&s->parked_count); i++)
		if (s->parked[i]->look_ns > now)
			s->parked[i]->look_ns = now;
	s->next_look = now;
}

static uint64_t machine_due(struct machine_sched *s, uint64_t now)
{
	uint64_t next = now + MACHINE_SLEEP_MAX_NS;
	unsigned int i;

	for (i = 0; i < atomic_load(&s->parked_count);) {
		struct machine_engine *e = s->parked[i];

		if (e->look_ns > now) {
			if (e->look_ns < next)
				next = e->look_ns;
			i++;
			continue;
		}
		machine_unpark(s, e);
		machine_run_push(s, e);
	}
	return next;
}

bool machine_sched_ring_add(struct machine_sched *s,
			    struct machine_client *client)
{
	unsigned int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->ring_slots && s->rings[i]; i++)
		;
	if (i == MACHINE_MAX_RINGS) {
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	if (i == s->ring_slots)
		s->ring_slots++;
	s->rings[i] = client;
	client->ring.slot = (int)i;
	__atomic_store_n(&client->ring.ctl->doorbell, s->doorbell,
			 __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&s->lock);
	return true;
}

void machine_sched_ring_remove(struct machine_sched *s,
			       struct machine_client *client)
{
	struct timespec pause = { 0, 20000 };

	if (client->ring.slot < 0)
		return;
	pthread_mutex_lock(&s->lock);
	s->rings[client->ring.slot] = NULL;
	client->ring.slot = -1;
	while (client->ring.users) {
		pthread_mutex_unlock(&s->lock);
		nanosleep(&pause, NULL);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

/*
 * Takes the records waiting in every ring whose client's lock is free
 * (a client's thread that holds it takes them itself). Lock held, let
 * go meanwhile.
 */
static void machine_rings_take(struct machine_sched *s)
{
	for (unsigned int i = 0; i < s->ring_slots; i++) {
		struct machine_client *c = s->rings[i];

		if (!c || !machine_ring_pending(&c->ring))
			continue;
		c->ring.users++;
		pthread_mutex_unlock(&s->lock);
		if (pthread_mutex_trylock(&c->lock) == 0) {
			machine_ring_drain(c);
			pthread_mutex_unlock(&c->lock);
		}
		pthread_mutex_lock(&s->lock);
		c->ring.users--;
	}
}

/* Whether a ring has records. Lock held. */
static bool machine_rings_pending(struct machine_sched *s)
{
	for (unsigned int i = 0; i < s->ring_slots; i++)
		if (s->rings[i] && machine_ring_pending(&s->rings[i]->ring))
			return true;
	return false;
}

/*
 * Asks every process to ring (or not) after writing its ring: a new bell
 * each time, which each process rings once. Lock held.
 */
static void machine_rings_bell(struct machine_sched *s, bool on)
{
	if (on)
		s->bell_last = s->bell_last + 2 ? s->bell_last + 2 : 2;
	s->doorbell = on ? s->bell_last : 0;	/* even, never 0 */
	for (unsigned int i = 0; i < s->ring_slots; i++)
		if (s->rings[i])
			__atomic_store_n(&s->rings[i]->ring.ctl->doorbell,
					 s->doorbell, __ATOMIC_SEQ_CST);
}

/* Whether workers have lately run engines side by side. */
static bool machine_parallel(struct machine_sched *s, uint64_t now)
{
	return now - s->parallel_at < MACHINE_BUSY_NS;
}

/*
 * Whether an idle worker should watch rather than sleep: when no other
 * watches, and a CPU is spare or workers have lately run engines side by
 * side (then the next job is likely soon, and a wake-up late).
 */
static bool machine_may_spin(struct machine_sched *s, uint64_t now)
{
	return s->spinners == 0 &&
	       (s->active + 1 < s->cpus || machine_parallel(s, now));
}

/*
 * Watches the run queue and the rings until @until; the rings are held
 * (their users counted) meanwhile, so that none goes while it is read.
 * Lock held, let go meanwhile.
 */
static void machine_spin(struct machine_sched *s, uint64_t until)
{
	struct machine_client *watched[MACHINE_MAX_RINGS];
	unsigned int n = 0, i;
	bool moved = false;

	for (i = 0; i < s->ring_slots; i++)
		if (s->rings[i]) {
			watched[n++] = s->rings[i];
			s->rings[i]->ring.users++;
		}
	pthread_mutex_unlock(&s->lock);
	do {
		for (int k = 0; k < 16 && !moved; k++) {
			moved = machine_sched_contended(s) ||
				__atomic_load_n(&s->bell->host_writes,
						__ATOMIC_RELAXED) !=
				__atomic_load_n(&s->host_writes,
						__ATOMIC_RELAXED);
			for (i = 0; i < n && !moved; i++)
				moved = machine_ring_pending(&watched[i]->ring);
			tern_cpu_relax();
		}
	} while (!moved && machine_clock_ns() < until);
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < n; i++)
		watched[i]->ring.users--;
}

/*
 * Nothing to run: watch a while (once: *@spun), else sleep on the doorbell
 * until @next. Lock held, let go meanwhile.
 */
static void machine_idle(struct machine_sched *s, uint64_t next, bool *spun)
{
	uint64_t now = machine_clock_ns(), wait;
	uint32_t seq;

	if ((!*spun || machine_parallel(s, now)) && machine_may_spin(s, now)) {
		uint64_t until = now + MACHINE_SPIN_NS;

		*spun = true;
		s->spinners++;
		machine_spin(s, until < next ? until : next);
		s->spinners--;
		return;
	}
	*spun = false;
	seq = __atomic_load_n(&s->bell->seq, __ATOMIC_SEQ_CST);
	/* A process adds to host_writes before seq: none is missed. */
	if (__atomic_load_n(&s->bell->host_writes, __ATOMIC_SEQ_CST) !=
	    s->host_writes)
		return;
	if (!s->active && !s->spinners && !s->doorbell) {
		/* No one will look: bells from now, then one last look. */
		machine_rings_bell(s, true);
		if (machine_rings_pending(s))
			return;
	}
	wait = next > now ? next - now : 0;
	s->sleepers++;
	pthread_mutex_unlock(&s->lock);
	{
		struct timespec ts = { (time_t)(wait / 1000000000ull),
				       (long)(wait % 1000000000ull) };

		syscall(SYS_futex, &s->bell->seq, FUTEX_WAIT, seq, &ts, NULL,
			0);
	}
	pthread_mutex_lock(&s->lock);
	s->sleepers--;
	if (s->doorbell)
		machine_rings_bell(s, false);
}

static void *machine_worker_main(void *arg)
{
	struct machine_sched *s = arg;
	struct machine_park park;
	enum machine_turn turn;
	struct machine_engine *e;
	bool spun = false;	/* watched since it last ran an engine */

	pthread_mutex_lock(&s->lock);
	for (;;) {
		uint64_t now = machine_clock_ns();

		machine_host_wrote(s, now);
		if (now >= s->next_look)
			s->next_look = machine_due(s, now);
		machine_rings_take(s);
		e = machine_run_pop(s);
		if (!e) {
			machine_idle(s, s->next_look, &spun);
			continue;
		}
		spun = false;
		e->state = MACHINE_ENGINE_RUNNING;
		if (s->active++)
			s->parallel_at = now;
		pthread_mutex_unlock(&s->lock);
		turn = machine_engine_turn(e, &park);
		pthread_mutex_lock(&s->lock);
		s->active--;
		machine_after_turn(s, e, turn, &park);
		machine_sched_share(s);
	}
	return NULL;
}

/* The doorbell page: a sealed memfd every process maps (wire.h). */
static int machine_bell_make(struct machine_sched *s)
{
	int fd = memfd_create("tern-sim-doorbell",
			      MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *map;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, SIM_DOORBELL_BYTES) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		close(fd);
		return -EIO;
	}
	map = mmap(NULL, SIM_DOORBELL_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	s->bell = map;
	s->bell_fd = fd;
	return 0;
}

int machine_sched_start(struct machine *m)
{
	struct machine_sched *s = &m->sched;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	int ret;

	pthread_mutex_init(&s->lock, NULL);
	ret = machine_bell_make(s);
	if (ret)
		return ret;
	s->cpus = cpus < 1 ? 1 : cpus > MACHINE_MAX_WORKERS ?
		  MACHINE_MAX_WORKERS : (unsigned int)cpus;
	for (i = 0; i < s->cpus; i++) {
		ret = pthread_create(&s->threads[i], NULL,
				     machine_worker_main, s);
		if (ret)
			return i ? 0 : -ret;	/* fewer workers still run */
		s->workers++;
	}
	return 0;
}
