// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Tern timing model: modelled engine clocks, links and each device's
 * memory as shared resources, and when each semaphore reached its value.
 */
#include "tern_timing.h"

#define TERN_FS_PER_NS		1000000u
#define TERN_FS_PER_S_MB	1000000000u	/* 1e15 fs/s over 1e6 B/MB */

static u64 tern_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static u64 tern_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* Femtoseconds per byte at @bandwidth bytes/s, at least 1. */
static u32 tern_fs_per_byte(u64 bandwidth)
{
	u32 rem;
	u64 mbps = tern_div_u64_rem(bandwidth, 1000000u, &rem);
	u64 fs;

	if (mbps == 0 || mbps > 0xffffffffu)
		return 1;
	fs = tern_div_u64_rem(TERN_FS_PER_S_MB, (u32)mbps, &rem);
	return fs ? (u32)fs : 1;
}

/* Whole nanoseconds @bytes take at @fs_per_byte. */
static u64 tern_bytes_ns(u64 bytes, u32 fs_per_byte)
{
	u32 rem;

	return tern_div_u64_rem(bytes * fs_per_byte, TERN_FS_PER_NS, &rem);
}

/* The earliest time from @at that @res has @ns free. */
static u64 tern_busy_fit(const struct tern_timing_resource *res, u64 at,
			 u64 ns)
{
	u32 i;

	if (!ns)
		return at;
	for (i = 0; i < res->span_count; i++) {
		const struct tern_timing_span *s = &res->spans[i];

		if (s->end <= at)
			continue;
		if (s->start >= at + ns)
			break;
		at = s->end;
	}
	return at;
}

/*
 * Marks [@at, @at + @ns) busy, joining spans it touches; when every span
 * is in use, the one that ended first is forgotten.
 */
static void tern_busy_reserve(struct tern_timing_resource *res, u64 at,
			      u64 ns)
{
	struct tern_timing_span span = { at, at + ns };
	u32 i = 0, j;

	if (!ns)
		return;
	while (i < res->span_count && res->spans[i].end < span.start)
		i++;
	/* Spans from i on that touch the new one become part of it. */
	for (j = i; j < res->span_count && res->spans[j].start <= span.end;
	     j++) {
		if (res->spans[j].start < span.start)
			span.start = res->spans[j].start;
		if (res->spans[j].end > span.end)
			span.end = res->spans[j].end;
	}
	if (j == i && res->span_count == TERN_TIMING_SPANS) {
		if (i == 0)
			return;	/* older than all it remembers */
		memmove(&res->spans[0], &res->spans[1],
			sizeof(span) * (TERN_TIMING_SPANS - 1));
		res->span_count--;
		i--;
		j--;
	}
	memmove(&res->spans[i + 1], &res->spans[j],
		sizeof(span) * (res->span_count - j));
	res->span_count -= j - i - 1;
	res->spans[i] = span;
}

/*
 * The latest time @res is free within [@lo, *@hi): on true, [*@gap, *@hi)
 * is that gap; false when there is none.
 */
static bool tern_busy_last_gap(const struct tern_timing_resource *res,
			       u64 lo, u64 *hi, u64 *gap)
{
	u32 i;

	for (i = res->span_count; i-- > 0;) {
		const struct tern_timing_span *s = &res->spans[i];

		if (s->start >= *hi)
			continue;
		if (s->end >= *hi) {
			*hi = s->start;	/* busy up to the top: look below */
			continue;
		}
		*gap = tern_max_u64(s->end, lo);
		return *gap < *hi;
	}
	*gap = lo;
	return lo < *hi;
}

/*
 * The first time from *@at that @res is free, into *@at; returns when it
 * is busy again (~0 when it never is).
 */
static u64 tern_busy_next_gap(const struct tern_timing_resource *res,
			      u64 *at)
{
	u32 i;

	for (i = 0; i < res->span_count; i++) {
		const struct tern_timing_span *s = &res->spans[i];

		if (s->end <= *at)
			continue;
		if (s->start > *at)
			return s->start;
		*at = s->end;
	}
	return ~0ull;
}

/*
 * Takes @ns of a device's memory for a transfer that starts at @start and
 * whose links keep it busy until @paced (@start when it crosses none).
 * Returns when the last of that time ends, @paced at the least.
 *
 * A transfer the links pace needs memory at their pace, not all at once:
 * it takes the latest free time within its time on the links, so that a
 * transfer issued meanwhile that memory paces, which takes the first free
 * time from its start, is not put behind it. What does not fit there
 * follows it.
 */
static u64 tern_memory_take(struct tern_timing_resource *memory, u64 start,
			    u64 paced, u64 ns)
{
	u64 hi = paced, gap, take, at = paced, next;

	while (ns && tern_busy_last_gap(memory, start, &hi, &gap)) {
		take = tern_min_u64(ns, hi - gap);
		tern_busy_reserve(memory, hi - take, take);
		ns -= take;
		hi -= take;
	}
	while (ns) {
		next = tern_busy_next_gap(memory, &at);
		take = tern_min_u64(ns, next - at);
		tern_busy_reserve(memory, at, take);
		ns -= take;
		at += take;
	}
	return at;
}

void tern_timing_init(struct tern_timing *timing,
		      const struct tern_fabric *fabric)
{
	u32 i;

	memset(timing, 0, sizeof(*timing));
	timing->fabric = fabric;
	tern_lock_init(&timing->lock);
	timing->mem_fs_per_byte = tern_fs_per_byte(TERN_TIMING_MEM_BANDWIDTH);
	for (i = 0; i < fabric->link_count; i++)
		timing->link_fs_per_byte[i] =
			tern_fs_per_byte(fabric->links[i].bandwidth);
}

/* Latency of @hop_count hops, doubled for a read's request and data. */
static u64 tern_route_latency(const struct tern_timing *timing,
			      const struct tern_fabric_hop *hops, int hop_count,
			      bool read)
{
	u64 ns = 0;
	int i;

	for (i = 0; i < hop_count; i++)
		ns += timing->fabric->links[hops[i].link].latency_ns;
	return read ? 2 * ns : ns;
}

static bool tern_overlaps(const u8 *lo, const u8 *hi,
			  const struct tern_timing_write *w)
{
	return lo < w->hi && w->lo < hi;
}

/*
 * When the transfers @op depends on have landed: earlier writes to what it
 * reads or writes. Writes that landed by @now are forgotten.
 */
static u64 tern_hazard(struct tern_timing_engine *engine,
		       const struct tern_timing_operand *op, u64 ready)
{
	const u8 *lo = op->ptr, *hi = op->ptr + op->bytes;
	u32 i;

	for (i = 0; i < engine->write_count; i++)
		if (tern_overlaps(lo, hi, &engine->writes[i]))
			ready = tern_max_u64(ready, engine->writes[i].end);
	return ready;
}

static void tern_remember_write(struct tern_timing_engine *engine,
				const struct tern_timing_operand *op, u64 end)
{
	struct tern_timing_write *w;
	u32 i, oldest = 0;

	/* Forget what has landed by now; if all are in flight, the first. */
	for (i = 0; i < engine->write_count;) {
		if (engine->writes[i].end <= engine->now) {
			engine->writes[i] = engine->writes[--engine->write_count];
			continue;
		}
		if (engine->writes[i].end < engine->writes[oldest].end)
			oldest = i;
		i++;
	}
	if (engine->write_count == TERN_TIMING_WRITES) {
		/* Waiting for it keeps the ordering it stood for. */
		engine->now = tern_max_u64(engine->now,
					   engine->writes[oldest].end);
		w = &engine->writes[oldest];
	} else {
		w = &engine->writes[engine->write_count++];
	}
	w->lo = op->ptr;
	w->hi = op->ptr + op->bytes;
	w->end = end;
}

/* The link direction hop @h of @op crosses: a read's bytes flow back. */
static struct tern_timing_resource *tern_hop_link(struct tern_timing *timing,
					      const struct tern_timing_operand *op,
					      int h, u64 *ns)
{
	u32 link = op->hops[h].link;
	u32 dir = op->hops[h].dir ^ (op->write ? 0 : 1);

	*ns = tern_bytes_ns(op->bytes, timing->link_fs_per_byte[link]);
	return &timing->links[link][dir];
}

/*
 * With @reserve, marks every link of @ops busy from @at; else returns the
 * latest time from @at that one of them has room (@at if all have).
 */
static u64 tern_links_walk(struct tern_timing *timing,
			   const struct tern_timing_operand *ops, int count,
			   u64 at, bool reserve)
{
	u64 fit = at, ns;
	int i, h;

	for (i = 0; i < count; i++) {
		for (h = 0; h < ops[i].hop_count; h++) {
			struct tern_timing_resource *link =
				tern_hop_link(timing, &ops[i], h, &ns);

			if (reserve)
				tern_busy_reserve(link, at, ns);
			else
				fit = tern_max_u64(fit, tern_busy_fit(link, at, ns));
		}
	}
	return fit;
}

/*
 * The first time from @at that every link of @ops has room for its bytes,
 * and in *@busy how long the slowest needs. Lock held.
 */
static u64 tern_links_fit(struct tern_timing *timing,
			  const struct tern_timing_operand *ops, int count,
			  u64 at, u64 *busy)
{
	u64 ns, next;
	int i, h, round;

	for (i = 0; i < count; i++)
		for (h = 0; h < ops[i].hop_count; h++) {
			tern_hop_link(timing, &ops[i], h, &ns);
			*busy = tern_max_u64(*busy, ns);
		}
	/* Each link's gap moves the start; a few rounds settle it. */
	for (round = 0; round < 8; round++) {
		next = tern_links_walk(timing, ops, count, at, false);
		if (next == at)
			break;
		at = next;
	}
	return at;
}

/* Whether an operand before @i is in the memory of @ops[@i]'s device. */
static bool tern_device_seen(const struct tern_timing_operand *ops, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (ops[j].device == ops[i].device)
			return true;
	return false;
}

/*
 * Takes from each device's memory the time the bytes of @ops there need,
 * for a transfer from @start that its links keep busy until @paced;
 * returns when the last of it ends, @paced at the least. Lock held.
 */
static u64 tern_memories_take(struct tern_timing *timing,
			      const struct tern_timing_operand *ops, int count,
			      u64 start, u64 paced)
{
	u64 done = paced, bytes, ns;
	u32 device;
	int i, j;

	for (i = 0; i < count; i++) {
		device = ops[i].device;
		if (device >= TERN_FABRIC_MAX_DEVICES ||
		    tern_device_seen(ops, i))
			continue;
		bytes = 0;
		for (j = i; j < count; j++)
			if (ops[j].device == device)
				bytes += ops[j].bytes;
		ns = tern_bytes_ns(bytes, timing->mem_fs_per_byte);
		done = tern_max_u64(done,
				    tern_memory_take(&timing->memory[device],
						     start, paced, ns));
	}
	return done;
}

void tern_timing_transfer(struct tern_timing *timing,
			  struct tern_timing_engine *engine,
			  const struct tern_timing_operand *ops, int count)
{
	u64 ready = engine->now, start, busy = 0, latency = 0, done, end;
	u32 queue = 0, q;
	int i;

	for (i = 0; i < count; i++)
		ready = tern_hazard(engine, &ops[i], ready);
	for (q = 1; q < TERN_TIMING_QUEUES; q++)
		if (engine->queue_free[q] < engine->queue_free[queue])
			queue = q;
	start = tern_max_u64(ready, engine->queue_free[queue]);

	for (i = 0; i < count; i++) {
		const struct tern_timing_operand *op = &ops[i];

		if (op->hop_count)
			latency = tern_max_u64(latency,
					       tern_route_latency(timing, op->hops,
								  op->hop_count,
								  !op->write));
	}
	tern_lock(&timing->lock);
	start = tern_links_fit(timing, ops, count, start, &busy);
	tern_links_walk(timing, ops, count, start, true);
	done = tern_memories_take(timing, ops, count, start, start + busy);
	tern_unlock(&timing->lock);

	engine->queue_free[queue] = done;
	end = done + latency;
	engine->drain = tern_max_u64(engine->drain, end);
	for (i = 0; i < count; i++)
		if (ops[i].write)
			tern_remember_write(engine, &ops[i], end);
}

/* The semaphore at @slot, claimed for it if @claim; NULL if none. */
static struct tern_timing_sem *tern_sem_find(struct tern_timing *timing,
					     const u64 *slot, bool claim)
{
	u64 key = (u64)(uintptr_t)slot >> 3;
	u32 home = (u32)((key * 0x9e3779b97f4a7c15ull) >> 52) %
		   TERN_TIMING_SEMS;
	struct tern_timing_sem *empty = NULL, *oldest = NULL, *victim;
	u32 i;

	/* A short probe; when it is full, forget the longest unsignalled. */
	for (i = 0; i < 16; i++) {
		struct tern_timing_sem *s =
			&timing->sems[(home + i) % TERN_TIMING_SEMS];

		if (s->slot == slot)
			return s;
		if (!s->slot && !empty)
			empty = s;
		if (s->slot && (!oldest || s->last_stamp < oldest->last_stamp))
			oldest = s;
	}
	if (!claim)
		return NULL;
	victim = empty ? empty : oldest;
	memset(victim, 0, sizeof(*victim));
	victim->slot = slot;
	return victim;
}

/* The value the signals remembered account for. */
static u64 tern_sem_expected(const struct tern_timing_sem *s)
{
	u64 value = s->base;
	u32 i;

	for (i = 0; i < s->add_count; i++)
		value += s->adds[i].delta;
	return value;
}

void tern_timing_signal(struct tern_timing *timing,
			struct tern_timing_engine *engine, u64 *slot,
			u64 value, bool add, const struct tern_fabric_hop *hops,
			int hop_count)
{
	u64 lands = tern_max_u64(engine->now +
				 tern_route_latency(timing, hops, hop_count,
						    false),
				 engine->drain);
	struct tern_timing_sem *s;
	u64 old;

	tern_lock(&timing->lock);
	s = tern_sem_find(timing, slot, true);
	old = tern_load_u64(slot);
	/* Someone else wrote it (the host, or a fresh buffer): start over. */
	if (!s->last_stamp || tern_sem_expected(s) != old) {
		s->base = old;
		s->base_stamp = 0;
		s->add_count = 0;
	}
	s->last_stamp = tern_max_u64(lands, 1);
	if (!add && value < old) {
		/* Set back: what it was before no longer counts. */
		tern_store_u64(slot, value);
		s->base = value;
		s->base_stamp = lands;
		s->add_count = 0;
	} else {
		/*
		 * A store that raises it (a sequence number, as collectives
		 * signal) is kept as the step it adds, so that a wait for an
		 * earlier value still finds when that one arrived.
		 */
		if (add) {
			tern_atomic_add_u64(slot, value);
		} else {
			tern_store_u64(slot, value);
			value -= old;
		}
		if (s->add_count == TERN_TIMING_SEM_HISTORY) {
			s->base += s->adds[0].delta;
			s->base_stamp = tern_max_u64(s->base_stamp,
						     s->adds[0].stamp);
			memmove(&s->adds[0], &s->adds[1],
				sizeof(s->adds[0]) * (TERN_TIMING_SEM_HISTORY - 1));
			s->add_count--;
		}
		s->adds[s->add_count].delta = value;
		s->adds[s->add_count].stamp = lands;
		s->add_count++;
	}
	tern_unlock(&timing->lock);
}

static bool tern_sem_reached(u64 value, u64 target, bool equal)
{
	return equal ? value == target : value >= target;
}

/*
 * When the semaphore reached @target, its signals taken in the order of
 * their modelled times; 0 when the host wrote it last.
 */
static u64 tern_sem_passed_at(struct tern_timing *timing, const u64 *slot,
			      u64 target, bool equal)
{
	struct tern_timing_add sorted[TERN_TIMING_SEM_HISTORY];
	struct tern_timing_sem *s = tern_sem_find(timing, slot, false);
	u64 value;
	u32 i, j;

	if (!s || tern_sem_expected(s) != tern_load_u64(slot))
		return 0;
	if (tern_sem_reached(s->base, target, equal))
		return s->base_stamp;
	for (i = 0; i < s->add_count; i++) {
		struct tern_timing_add a = s->adds[i];

		for (j = i; j > 0 && sorted[j - 1].stamp > a.stamp; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = a;
	}
	value = s->base;
	for (i = 0; i < s->add_count; i++) {
		value += sorted[i].delta;
		if (tern_sem_reached(value, target, equal))
			return tern_max_u64(s->base_stamp, sorted[i].stamp);
	}
	return s->last_stamp;
}

void tern_timing_wait(struct tern_timing *timing,
		      struct tern_timing_engine *engine, const u64 *slot,
		      u64 target, bool equal, const struct tern_fabric_hop *hops,
		      int hop_count)
{
	u64 one_way = tern_route_latency(timing, hops, hop_count, false);
	u64 passed;

	tern_lock(&timing->lock);
	passed = tern_sem_passed_at(timing, slot, target, equal);
	tern_unlock(&timing->lock);
	/*
	 * A peer's semaphore is read across the fabric: the read that sees
	 * the value comes back one latency after it passed, and no read
	 * comes back sooner than there and back.
	 */
	engine->now = tern_max_u64(engine->now + 2 * one_way, passed + one_way);
}

void tern_timing_compute(struct tern_timing_engine *engine, u64 cycles)
{
	u32 rem;

	/* rounded up: a packet of one cycle still takes a nanosecond */
	engine->now += tern_div_u64_rem(cycles * 1000000000ull +
					TERN_TIMING_CORE_HZ - 1,
					(u32)TERN_TIMING_CORE_HZ, &rem);
	if (engine->drain < engine->now)
		engine->drain = engine->now;
}

u64 tern_timing_stamp(struct tern_timing_engine *engine)
{
	tern_timing_job_end(engine);
	return engine->now;
}
