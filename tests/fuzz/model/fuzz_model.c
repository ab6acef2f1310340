// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness of the device model: tern_model_validate() and
 * tern_model_run() on a fake address space of a few buffers, some of them
 * peers' memory on a small fabric.
 *
 * An input is a setup header of FUZZ_HEADER_BYTES (missing bytes read as
 * zero), then the packet stream. All fields are little endian:
 *
 *   0       topology: index into fuzz_topologies[]
 *   1       device count where the topology leaves it open: 1 + b % 8
 *   2       the device whose engine runs the job: b % devices
 *   3       buffers mapped: 1 + b % FUZZ_MAX_BUFFERS
 *   4       SEM_WAITs the harness may release: b % 4
 *   5       how it releases a SEM_WAIT_ABORT: b % 3; 0: stores the value
 *           waited for in the semaphore, 1: DRM_TERN_SEM_ABORT_CANCEL in the
 *           abort word, 2: another non-zero value there
 *   6..7    the chip and the engine that runs the job (fuzz_compute.h):
 *           6: engine type, b % 4; 7: cores b % 3, the engine's core bit
 *           2, on-chip memory that cannot be had bit 7
 *   8..15   u64, bit i: link i of the fabric starts down
 *   16 + 16 * i, buffer i:
 *     0..7    u64 device VA (8-aligned, moved down to end by DRM_TERN_VA_LIMIT)
 *     8..11   u32 size: 1 + n % FUZZ_BUFFER_BYTES
 *     12      owner: b % devices
 *     13      bit 0: guarded (canary bytes around it)
 *     14..15  ignored
 *
 * A buffer that overlaps an earlier one in VA is left unmapped. Each
 * buffer is a heap allocation of its own: of exactly its size, so ASan
 * reports any byte the model touches outside it, or, guarded, with canary
 * bytes either side that ASan poisons and the harness checks.
 *
 * The oracles (any failure aborts with "fuzz_model: oracle failed"):
 *  - validate returns 0 or -EINVAL, the same twice and without bad_offset,
 *    agrees with spec_validate() (the rules of uapi/drm/tern_accel.h,
 *    written again here), puts bad_offset on a packet boundary inside
 *    the stream, and accepts the packets before it;
 *  - only a valid stream is run: to completion, through a bounded loop
 *    over YIELD and STALLED (a stalled SEM_WAIT or SEM_WAIT_ABORT is
 *    polled, then released while the header allows, else the run ends
 *    stalled);
 *  - run returns only 0, STALLED, YIELD, -EFAULT, -ENOLINK, for a
 *    SEM_WAIT_ABORT -ECANCELED or -ECONNRESET, and for a packet of the
 *    cores -ENOMEM when on-chip memory cannot be had; YIELD only after progress
 *    and at most once per budget of work; STALLED only at a SEM_WAIT or
 *    SEM_WAIT_ABORT, without traffic;
 *  - memory (on-chip memory too), stop offset and result agree with
 *    ref_run(), a whole-packet reference of the packet semantics; the link counters only grow,
 *    never on a down link, agree between the two ends of each port, and
 *    match the reference's traffic: each device's bytes sent minus bytes
 *    received, and bytes times shortest-route hops in all;
 *  - a second run on fresh memory gives the same memory, counters and
 *    result; the stream, the fabric's topology and the canaries are intact;
 *  - the first run goes through the timing model too (tern_timing.h), so
 *    timing changes nothing the packets do; its engine clock never goes
 *    back, and once the job ends the clock is past every transfer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_compute.h"
#include "tern_model.h"
#include "tern_reduce.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n)	ASAN_POISON_MEMORY_REGION((p), (n))
#define FUZZ_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION((p), (n))
#endif
#endif
#ifndef FUZZ_POISON
#define FUZZ_POISON(p, n)	((void)(p), (void)(n))
#define FUZZ_UNPOISON(p, n)	((void)(p), (void)(n))
#endif

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define FUZZ_MAX_BUFFERS	6
#define FUZZ_HEADER_BYTES	(16 + 16 * FUZZ_MAX_BUFFERS)
/*
 * Small, so that a run costs little; a budget of TERN_MODEL_BUDGET is still
 * used up by 64 packets, which is how a stream yields.
 */
#define FUZZ_BUFFER_BYTES	(64u << 10)
#define FUZZ_GUARD_BYTES	24	/* keeps data 8- but not 16-aligned */
#define FUZZ_CANARY		0xa5
#define FUZZ_CLOCK		0x0123456789abcdefull
#define FUZZ_STALL_POLLS	2
/*
 * What one run may cost, in rough nanoseconds of this instrumented build
 * (fuzz_packet_cost()): the stream runs up to the packet that would pass
 * it, so that no input takes long. It is still 16 MiB of COPY, enough to
 * use up TERN_MODEL_BUDGET several times.
 */
#define FUZZ_COST_LIMIT		(1ull << 20)

static const struct fuzz_topology {
	const char *spec;	/* NULL: no fabric, so a peer's memory faults */
	u32 devices;		/* 0: from header byte 1 */
} fuzz_topologies[] = {
	{ NULL, 4 },
	{ "ring", 0 },
	{ "torus:2x2", 4 },
	{ "torus:2x3", 6 },
	{ "torus:1x4", 4 },
	{ "torus:3x3", 9 },
	{ "full", 0 },
	{ "none", 0 },
	{ "custom:0-1,1-2,2-3", 4 },
	{ "custom:0-1,0-1,2-3", 4 },
	{ "auto", 0 },
};

struct fuzz_buffer {
	bool mapped;
	bool guarded;
	u32 owner;
	u64 va;
	u64 size;
};

/* What the header chose, and the stream after it. */
struct fuzz_setup {
	u32 devices;
	u32 device;
	u32 releases;		/* SEM_WAITs the harness may release */
	u32 release_abort;	/* 0, or what releasing stores in an abort word */
	bool has_fabric;
	struct tern_fabric fabric;	/* as every run starts */
	int hops[TERN_FABRIC_MAX_DEVICES];	/* from device over up links */
	struct fuzz_buffer buffers[FUZZ_MAX_BUFFERS];
	u8 *stream;		/* exact-size copy of the input's stream */
	u32 stream_size;
	u32 run_size;		/* the prefix within FUZZ_COST_LIMIT */
	u64 run_bytes;		/* most work that prefix can do (bytes moved) */
	u32 run_packets;
	u64 run_steps;		/* steps of its packets of the cores */
	struct fuzz_chip chip;
};

/* One copy of memory and fabric that one run works on. */
struct fuzz_space {
	const struct fuzz_setup *setup;
	u8 *alloc[FUZZ_MAX_BUFFERS];
	u8 *data[FUZZ_MAX_BUFFERS];
	struct tern_fabric fabric;
	struct tern_timing *timing;	/* the first run's: NULL in others */
	struct tern_timing_engine engine;
	struct fuzz_onchip onchip;
};

/* Where a run ended. */
struct fuzz_outcome {
	int rc;			/* 0, TERN_MODEL_STALLED or an error */
	u32 offset;		/* of the packet it stopped at, or the size */
	u32 calls;
	u32 yields;
};

/* Link traffic as the oracles compare it. */
struct fuzz_traffic {
	s64 net[TERN_FABRIC_MAX_DEVICES];	/* bytes sent - bytes received */
	u64 byte_hops;
	u64 packet_hops;
};

static __attribute__((format(printf, 1, 2), noreturn))
void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_model: oracle failed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Zeroed, so that whatever a run leaves unwritten compares equal. */
static void *fuzz_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		fuzz_fail("out of memory for %zu bytes", size);
	return p;
}

static u64 fuzz_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* Any packet, as far as @avail bytes of the stream hold it. */
union fuzz_packet {
	struct drm_tern_packet_header h;
	struct drm_tern_packet_copy copy;
	struct drm_tern_packet_fill fill;
	struct drm_tern_packet_timestamp ts;
	struct drm_tern_packet_sem_signal sem;
	struct drm_tern_packet_sem_wait_abort sem_abort;
	struct drm_tern_packet_reduce reduce;
};

static struct drm_tern_packet_header fuzz_header_at(const u8 *p)
{
	struct drm_tern_packet_header h;

	memcpy(&h, p, sizeof(h));
	return h;
}

static void fuzz_packet_read(const u8 *p, u32 avail, union fuzz_packet *u)
{
	memset(u, 0, sizeof(*u));
	u->h = fuzz_header_at(p);
	memcpy(u, p, fuzz_min(fuzz_min((u32)u->h.length * 8, avail), sizeof(*u)));
}

static u64 fuzz_le(const u8 *p, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* ---- the setup ---- */

/*
 * What buffer @index holds when a run starts: bytes that differ with the
 * offset, and between buffers (an odd stride apart in one table, made
 * once), so that data put in the wrong place shows.
 */
#define FUZZ_CONTENT_STRIDE	4099u

static const u8 *fuzz_initial_content(u32 index)
{
	static u8 table[FUZZ_BUFFER_BYTES + FUZZ_MAX_BUFFERS * FUZZ_CONTENT_STRIDE];
	static bool made;
	u64 x = 0x9e3779b97f4a7c15ull;
	size_t at;

	if (!made) {
		for (at = 0; at < sizeof(table); at++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			table[at] = (u8)(x >> 32);
		}
		made = true;
	}
	return table + index * FUZZ_CONTENT_STRIDE;
}

/* Hops from @setup->device to each device over up links, -1 if none. */
static void fuzz_hops(struct fuzz_setup *setup)
{
	const struct tern_fabric *f = &setup->fabric;
	u32 queue[TERN_FABRIC_MAX_DEVICES], head = 0, tail = 0, i;

	for (i = 0; i < TERN_FABRIC_MAX_DEVICES; i++)
		setup->hops[i] = -1;
	setup->hops[setup->device] = 0;
	queue[tail++] = setup->device;
	while (head < tail) {
		u32 d = queue[head++];

		for (i = 0; i < f->link_count; i++) {
			const struct tern_fabric_link *l = &f->links[i];
			u32 peer;

			if (!l->up)
				continue;
			if (l->end[0].device == d)
				peer = l->end[1].device;
			else if (l->end[1].device == d)
				peer = l->end[0].device;
			else
				continue;
			if (setup->hops[peer] < 0) {
				setup->hops[peer] = setup->hops[d] + 1;
				queue[tail++] = peer;
			}
		}
	}
}

static void fuzz_setup_fabric(struct fuzz_setup *setup, const u8 *header)
{
	const struct fuzz_topology *t =
		&fuzz_topologies[header[0] % ARRAY_SIZE(fuzz_topologies)];
	u64 links_down = fuzz_le(header + 8, 8);
	u32 i;

	setup->devices = t->devices ? t->devices : 1 + header[1] % 8u;
	setup->device = header[2] % setup->devices;
	setup->has_fabric = t->spec != NULL;
	if (!setup->has_fabric)
		return;
	if (tern_fabric_init(&setup->fabric, setup->devices, t->spec))
		fuzz_fail("tern_fabric_init(%u, \"%s\") failed",
			  setup->devices, t->spec);
	for (i = 0; i < setup->fabric.link_count && i < 64; i++) {
		const struct tern_fabric_end *end = &setup->fabric.links[i].end[0];

		if (links_down >> i & 1)
			tern_fabric_set_link(&setup->fabric, end->device,
					     end->port, false);
	}
	fuzz_hops(setup);
}

static bool fuzz_overlaps_mapped(const struct fuzz_setup *setup, u32 count,
				 u64 va, u64 size)
{
	u32 i;

	for (i = 0; i < count; i++) {
		const struct fuzz_buffer *b = &setup->buffers[i];

		if (b->mapped && va < b->va + b->size && b->va < va + size)
			return true;
	}
	return false;
}

static void fuzz_setup_buffers(struct fuzz_setup *setup, const u8 *header)
{
	u32 count = 1 + header[3] % FUZZ_MAX_BUFFERS, i;

	for (i = 0; i < count; i++) {
		const u8 *rec = header + 16 + 16 * i;
		struct fuzz_buffer *b = &setup->buffers[i];
		u32 raw_size = (u32)fuzz_le(rec + 8, 4);

		b->va = fuzz_le(rec, 8) & (DRM_TERN_VA_LIMIT - 1) & ~7ull;
		b->size = 1 + raw_size % FUZZ_BUFFER_BYTES;
		if (b->size > DRM_TERN_VA_LIMIT - b->va)
			b->va = (DRM_TERN_VA_LIMIT - b->size) & ~7ull;
		b->owner = rec[12] % setup->devices;
		b->guarded = rec[13] & 1;
		if (fuzz_overlaps_mapped(setup, i, b->va, b->size))
			continue;
		b->mapped = true;
	}
}

static u64 fuzz_largest_buffer(const struct fuzz_setup *setup)
{
	u64 largest = 0;
	u32 i;

	for (i = 0; i < FUZZ_MAX_BUFFERS; i++)
		if (setup->buffers[i].mapped && setup->buffers[i].size > largest)
			largest = setup->buffers[i].size;
	return largest;
}

/*
 * The rough cost of packet @u (see FUZZ_COST_LIMIT), and in *@bytes the
 * most it moves. An access larger than every buffer faults at once, so it
 * moves no more than the largest one. A FILL of a pattern that is not one
 * byte repeated, and REDUCE, go element by element.
 */
static u64 fuzz_packet_cost(const union fuzz_packet *u, const u8 *p,
			    u64 largest, u64 *bytes)
{
	u32 size;

	if (fuzz_compute_opcode(u->h.opcode)) {
		*bytes = 0;	/* its steps are counted apart */
		return fuzz_compute_cost(p);
	}
	switch (u->h.opcode) {
	case DRM_TERN_OP_COPY:
		*bytes = fuzz_min(u->copy.bytes, largest);
		return *bytes / 16 + 16;
	case DRM_TERN_OP_FILL:
		*bytes = fuzz_min(u->fill.bytes, largest);
		if (u->fill.pattern % 0x01010101u == 0)
			return *bytes / 16 + 16;
		return *bytes * 16 + 16;
	case DRM_TERN_OP_REDUCE:
		/* its work: elements at the model's cost of each */
		size = tern_model_dtype_size(u->reduce.dtype);
		*bytes = fuzz_min(u->reduce.count * size, largest) / size *
			 tern_model_reduce_cost(u->reduce.dtype, u->reduce.op,
						u->h.flags & DRM_TERN_REDUCE_DIVIDE);
		return fuzz_min(u->reduce.count * size, largest) / size * 256 +
		       16;
	default:
		*bytes = 0;
		return 16;
	}
}

/* Picks the prefix of a valid stream to run: see FUZZ_COST_LIMIT. */
static void fuzz_choose_run(struct fuzz_setup *setup)
{
	u64 largest = fuzz_largest_buffer(setup), cost = 0;
	u32 offset = 0;

	setup->run_bytes = 0;
	setup->run_packets = 0;
	setup->run_steps = 0;
	while (offset < setup->stream_size) {
		union fuzz_packet u;
		u64 bytes, packet_cost;

		fuzz_packet_read(setup->stream + offset,
				 setup->stream_size - offset, &u);
		packet_cost = fuzz_packet_cost(&u, setup->stream + offset,
					       largest, &bytes);
		if (cost + packet_cost > FUZZ_COST_LIMIT)
			break;
		cost += packet_cost;
		setup->run_bytes += bytes;
		if (fuzz_compute_opcode(u.h.opcode))
			setup->run_steps += fuzz_compute_steps(setup->stream +
							       offset);
		setup->run_packets++;
		offset += (u32)u.h.length * 8;
	}
	setup->run_size = offset;
}

/* ---- the address space of one run ---- */

static void fuzz_space_init(struct fuzz_space *s, const struct fuzz_setup *setup)
{
	u32 i;

	memset(s, 0, sizeof(*s));
	s->setup = setup;
	s->onchip.chip = &setup->chip;
	/* memcpy: padding included, for fuzz_check_topology() */
	memcpy(&s->fabric, &setup->fabric, sizeof(s->fabric));
	for (i = 0; i < FUZZ_MAX_BUFFERS; i++) {
		const struct fuzz_buffer *b = &setup->buffers[i];

		if (!b->mapped)
			continue;
		if (b->guarded) {
			s->alloc[i] = fuzz_alloc(b->size + 2 * FUZZ_GUARD_BYTES);
			s->data[i] = s->alloc[i] + FUZZ_GUARD_BYTES;
			memset(s->alloc[i], FUZZ_CANARY, FUZZ_GUARD_BYTES);
			memset(s->data[i] + b->size, FUZZ_CANARY, FUZZ_GUARD_BYTES);
			FUZZ_POISON(s->alloc[i], FUZZ_GUARD_BYTES);
			FUZZ_POISON(s->data[i] + b->size, FUZZ_GUARD_BYTES);
		} else {
			s->alloc[i] = fuzz_alloc(b->size);
			s->data[i] = s->alloc[i];
		}
		memcpy(s->data[i], fuzz_initial_content(i), b->size);
	}
}

static void fuzz_check_guard(const u8 *guard, u32 buffer, const char *side)
{
	u32 i;

	for (i = 0; i < FUZZ_GUARD_BYTES; i++)
		if (guard[i] != FUZZ_CANARY)
			fuzz_fail("canary byte %u %s buffer %u overwritten", i,
				  side, buffer);
}

/* Checks the canaries of guarded buffers and frees the space. */
static void fuzz_space_free(struct fuzz_space *s)
{
	u32 i;

	for (i = 0; i < FUZZ_MAX_BUFFERS; i++) {
		const struct fuzz_buffer *b = &s->setup->buffers[i];

		if (b->mapped && b->guarded) {
			u8 *after = s->data[i] + b->size;

			FUZZ_UNPOISON(s->alloc[i], FUZZ_GUARD_BYTES);
			FUZZ_UNPOISON(after, FUZZ_GUARD_BYTES);
			fuzz_check_guard(s->alloc[i], i, "before");
			fuzz_check_guard(after, i, "after");
		}
		free(s->alloc[i]);
	}
	fuzz_onchip_free(&s->onchip);
}

/* The translate contract: NULL unless [va, va + len) is inside one buffer. */
static void *fuzz_translate(void *ctx, u64 va, u64 len, u32 *owner)
{
	struct fuzz_space *s = ctx;
	u32 i;

	if (len == 0)
		fuzz_fail("translate called with len 0 at VA %#llx",
			  (unsigned long long)va);
	for (i = 0; i < FUZZ_MAX_BUFFERS; i++) {
		const struct fuzz_buffer *b = &s->setup->buffers[i];
		u64 offset = va - b->va;

		if (b->mapped && va >= b->va && offset < b->size &&
		    len <= b->size - offset) {
			*owner = b->owner;
			return s->data[i] + offset;
		}
	}
	return NULL;
}

static u64 fuzz_clock(void *ctx)
{
	(void)ctx;
	return FUZZ_CLOCK;
}

static u8 *fuzz_onchip(void *ctx, u32 core, u32 space)
{
	struct fuzz_space *s = ctx;

	return fuzz_onchip_get(&s->onchip, core, space);
}

/* ---- validation against the spec ---- */

static bool spec_range(u64 va, u64 bytes)
{
	return va <= DRM_TERN_VA_LIMIT && bytes <= DRM_TERN_VA_LIMIT - va;
}

static bool spec_slot(u64 va)
{
	return va % 8 == 0 && spec_range(va, 8);
}

/* The REDUCE rules: known dtype and op, aligned, in range, dst apart. */
static bool spec_reduce(const struct drm_tern_packet_reduce *r)
{
	static const u8 element[TERN_MODEL_REDUCE_DTYPE_COUNT] = {
		[DRM_TERN_DTYPE_FLOAT32] = 4, [DRM_TERN_DTYPE_FLOAT16] = 2,
		[DRM_TERN_DTYPE_BFLOAT16] = 2, [DRM_TERN_DTYPE_INT32] = 4,
		[DRM_TERN_DTYPE_UINT32] = 4, [DRM_TERN_DTYPE_INT8] = 1,
		[DRM_TERN_DTYPE_UINT8] = 1, [DRM_TERN_DTYPE_INT64] = 8,
		[DRM_TERN_DTYPE_UINT64] = 8,
	};
	const u64 srcs[2] = { r->src0, r->src1 };
	u64 e, bytes;
	int i;

	if (r->dtype >= TERN_MODEL_REDUCE_DTYPE_COUNT ||
	    r->op >= TERN_MODEL_REDOP_COUNT)
		return false;
	/* a divisor with DRM_TERN_REDUCE_DIVIDE, of a SUM only; else a pad */
	if ((r->header.flags & DRM_TERN_REDUCE_DIVIDE) ?
	    r->op != DRM_TERN_REDOP_SUM || r->divisor == 0 : r->pad != 0)
		return false;
	e = element[r->dtype];
	if (r->src0 % e || r->src1 % e || r->dst % e || r->count > DRM_TERN_VA_LIMIT / e)
		return false;
	bytes = r->count * e;
	if (!spec_range(r->dst, bytes))
		return false;
	for (i = 0; i < 2; i++) {
		if (!spec_range(srcs[i], bytes))
			return false;
		if (r->dst != srcs[i] && bytes && r->dst < srcs[i] + bytes &&
		    srcs[i] < r->dst + bytes)
			return false;
	}
	return true;
}

/*
 * One packet of @avail bytes at most, by the packet format of tern_accel.h,
 * on @chip's engine: DMA engines run COPY, FILL and REDUCE, every engine
 * NOP, TIMESTAMP and the semaphores, fuzz_compute.c has the rest.
 */
static bool spec_packet(const u8 *p, u32 avail, const struct fuzz_chip *chip)
{
	union fuzz_packet u;
	u32 bytes;

	fuzz_packet_read(p, avail, &u);
	bytes = (u32)u.h.length * 8;
	if (u.h.length == 0 || bytes > avail)
		return false;
	if (fuzz_compute_opcode(u.h.opcode))
		return spec_compute(p, bytes, chip);
	if ((u.h.opcode == DRM_TERN_OP_COPY || u.h.opcode == DRM_TERN_OP_FILL ||
	     u.h.opcode == DRM_TERN_OP_REDUCE) &&
	    chip->target.type != DRM_TERN_ENGINE_DMA)
		return false;
	switch (u.h.opcode) {
	case DRM_TERN_OP_NOP:
		return u.h.flags == 0;
	case DRM_TERN_OP_COPY:
		return bytes == sizeof(u.copy) && u.h.flags == 0 &&
		       spec_range(u.copy.src, u.copy.bytes) &&
		       spec_range(u.copy.dst, u.copy.bytes);
	case DRM_TERN_OP_FILL:
		return bytes == sizeof(u.fill) && u.h.flags == 0 &&
		       u.fill.pad == 0 && spec_range(u.fill.dst, u.fill.bytes);
	case DRM_TERN_OP_TIMESTAMP:
		return bytes == sizeof(u.ts) && u.h.flags == 0 &&
		       spec_slot(u.ts.dst);
	case DRM_TERN_OP_SEM_SIGNAL:
		return bytes == sizeof(u.sem) &&
		       (u.h.flags & ~DRM_TERN_SEM_SIGNAL_ADD) == 0 &&
		       spec_slot(u.sem.addr);
	case DRM_TERN_OP_SEM_WAIT:
		return bytes == sizeof(u.sem) &&
		       (u.h.flags & ~DRM_TERN_SEM_WAIT_EQ) == 0 &&
		       spec_slot(u.sem.addr);
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		return bytes == sizeof(u.sem_abort) &&
		       (u.h.flags & ~DRM_TERN_SEM_WAIT_EQ) == 0 &&
		       spec_slot(u.sem_abort.addr) &&
		       spec_slot(u.sem_abort.abort);
	case DRM_TERN_OP_REDUCE:
		return bytes == sizeof(u.reduce) &&
		       (u.h.flags & ~DRM_TERN_REDUCE_DIVIDE) == 0 &&
		       spec_reduce(&u.reduce);
	default:
		return false;
	}
}

static int spec_validate(const u8 *stream, u32 size, u32 *bad_offset,
			 const struct fuzz_chip *chip)
{
	u32 offset = 0;

	*bad_offset = 0;
	if (size == 0 || size % 8 || size > TERN_MODEL_MAX_SUBMIT_BYTES)
		return -EINVAL;
	for (; offset < size;
	     offset += (u32)fuzz_header_at(stream + offset).length * 8) {
		if (!spec_packet(stream + offset, size - offset, chip)) {
			*bad_offset = offset;
			return -EINVAL;
		}
	}
	return 0;
}

/* Returns what validate did, and where (*@bad_out) if it rejected. */
static int fuzz_check_validate(const struct fuzz_setup *setup, u32 *bad_out)
{
	const struct tern_model_target *target = &setup->chip.target;
	u32 bad = 0, again_bad = 0, spec_bad;
	int rc = tern_model_validate_on(setup->stream, setup->stream_size,
					target, &bad);
	int again = tern_model_validate_on(setup->stream, setup->stream_size,
					   target, &again_bad);
	int spec_rc = spec_validate(setup->stream, setup->stream_size, &spec_bad,
				    &setup->chip);

	if (rc != 0 && rc != -EINVAL)
		fuzz_fail("validate returned %d", rc);
	if (again != rc || (rc && again_bad != bad))
		fuzz_fail("validate not deterministic: %d at %u, then %d at %u",
			  rc, bad, again, again_bad);
	if (tern_model_validate_on(setup->stream, setup->stream_size, target,
				   NULL) != rc)
		fuzz_fail("validate with a NULL bad_offset returned otherwise");
	if (rc != spec_rc || (rc && bad != spec_bad))
		fuzz_fail("validate returned %d at %u, the spec says %d at %u",
			  rc, rc ? bad : 0, spec_rc, spec_rc ? spec_bad : 0);
	if (rc) {
		if (bad % 8 || (bad && bad >= setup->stream_size))
			fuzz_fail("bad_offset %u outside the %u-byte stream or unaligned",
				  bad, setup->stream_size);
		if (bad && tern_model_validate_on(setup->stream, bad, target,
						  NULL))
			fuzz_fail("the %u bytes before the bad packet do not validate",
				  bad);
	}
	*bad_out = bad;
	return rc;
}

/* ---- the reference: whole packets, in order ---- */

static int ref_access(struct fuzz_space *s, u64 va, u64 len, u8 **ptr,
		      u32 *owner)
{
	const struct fuzz_setup *setup = s->setup;

	*ptr = fuzz_translate(s, va, len, owner);
	if (!*ptr)
		return -EFAULT;
	if (*owner == setup->device)
		return 0;
	if (!setup->has_fabric)
		return -EFAULT;
	return setup->hops[*owner] < 0 ? -ENOLINK : 0;
}

/* Adds @bytes read from (or written to, @write) @owner's memory. */
static void ref_count(struct fuzz_traffic *t, const struct fuzz_setup *setup,
		      u32 owner, bool write, u64 bytes)
{
	u32 from = write ? setup->device : owner;
	u32 to = write ? owner : setup->device;
	u64 hops;

	if (owner == setup->device)
		return;
	hops = (u64)setup->hops[owner];
	t->net[from] += (s64)bytes;
	t->net[to] -= (s64)bytes;
	t->byte_hops += bytes * hops;
	t->packet_hops += hops;
}

static bool ref_sem_passes(u64 now, u64 value, u32 flags)
{
	return (flags & DRM_TERN_SEM_WAIT_EQ) ? now == value : now >= value;
}

/*
 * SEM_WAIT_ABORT: the abort word, then the semaphore, looked at again
 * after each release (the two may be one word). The read that ends the
 * wait counts, the abort word's and, if it passes, the semaphore's.
 */
static int ref_sem_wait_abort(struct fuzz_space *s,
			      const struct drm_tern_packet_sem_wait_abort *w,
			      u32 *releases, struct fuzz_traffic *t)
{
	const struct fuzz_setup *setup = s->setup;
	u32 abort_owner, sem_owner;
	u8 *abort_word, *sem;
	u64 word, now;
	int rc;

	for (;;) {
		rc = ref_access(s, w->abort, 8, &abort_word, &abort_owner);
		if (rc)
			return rc;
		memcpy(&word, abort_word, 8);
		if (word) {
			ref_count(t, setup, abort_owner, false, 8);
			return word == DRM_TERN_SEM_ABORT_CANCEL ? -ECANCELED :
							       -ECONNRESET;
		}
		rc = ref_access(s, w->addr, 8, &sem, &sem_owner);
		if (rc)
			return rc;
		memcpy(&now, sem, 8);
		if (ref_sem_passes(now, w->value, w->header.flags)) {
			ref_count(t, setup, sem_owner, false, 8);
			ref_count(t, setup, abort_owner, false, 8);
			return 0;
		}
		if (!*releases)
			return TERN_MODEL_STALLED;
		--*releases;
		if (setup->release_abort) {
			word = setup->release_abort;
			memcpy(abort_word, &word, 8);
		} else {
			memcpy(sem, &w->value, 8);
		}
	}
}

/* Device memory as fuzz_compute.c's reference reaches it. */
struct ref_memory {
	struct fuzz_space *s;
	struct fuzz_traffic *t;
};

static int ref_memory_access(void *ctx, u64 va, u64 len, u8 **ptr,
			     u32 *owner)
{
	struct ref_memory *rm = ctx;

	return ref_access(rm->s, va, len, ptr, owner);
}

static void ref_memory_count(void *ctx, u32 owner, bool write, u64 bytes)
{
	struct ref_memory *rm = ctx;

	ref_count(rm->t, rm->s->setup, owner, write, bytes);
}

static int ref_packet(struct fuzz_space *s, const u8 *p, u32 *releases,
		      struct fuzz_traffic *t)
{
	const struct fuzz_setup *setup = s->setup;
	union fuzz_packet u;
	u8 *src, *src1, *dst;
	u32 src_owner, src1_owner, dst_owner, size;
	u64 i, now, bytes;
	int rc;

	fuzz_packet_read(p, (u32)(setup->stream + setup->run_size - p), &u);
	switch (u.h.opcode) {
	case DRM_TERN_OP_COPY:
		if (!u.copy.bytes)
			return 0;
		rc = ref_access(s, u.copy.src, u.copy.bytes, &src, &src_owner);
		if (!rc)
			rc = ref_access(s, u.copy.dst, u.copy.bytes, &dst, &dst_owner);
		if (rc)
			return rc;
		memmove(dst, src, u.copy.bytes);
		ref_count(t, setup, src_owner, false, u.copy.bytes);
		ref_count(t, setup, dst_owner, true, u.copy.bytes);
		return 0;
	case DRM_TERN_OP_FILL:
		if (!u.fill.bytes)
			return 0;
		rc = ref_access(s, u.fill.dst, u.fill.bytes, &dst, &dst_owner);
		if (rc)
			return rc;
		/* four bytes, then the filled part copied after itself */
		for (i = 0; i < 4 && i < u.fill.bytes; i++)
			dst[i] = (u8)(u.fill.pattern >> (8 * i));
		for (; i < u.fill.bytes; i *= 2)
			memcpy(dst + i, dst, fuzz_min(i, u.fill.bytes - i));
		ref_count(t, setup, dst_owner, true, u.fill.bytes);
		return 0;
	case DRM_TERN_OP_TIMESTAMP:
		rc = ref_access(s, u.ts.dst, 8, &dst, &dst_owner);
		if (rc)
			return rc;
		now = FUZZ_CLOCK;
		memcpy(dst, &now, 8);
		ref_count(t, setup, dst_owner, true, 8);
		return 0;
	case DRM_TERN_OP_SEM_SIGNAL:
		rc = ref_access(s, u.sem.addr, 8, &dst, &dst_owner);
		if (rc)
			return rc;
		memcpy(&now, dst, 8);
		now = (u.h.flags & DRM_TERN_SEM_SIGNAL_ADD) ? now + u.sem.value :
							  u.sem.value;
		memcpy(dst, &now, 8);
		ref_count(t, setup, dst_owner, true, 8);
		return 0;
	case DRM_TERN_OP_SEM_WAIT:
		rc = ref_access(s, u.sem.addr, 8, &src, &src_owner);
		if (rc)
			return rc;
		memcpy(&now, src, 8);
		if ((u.h.flags & DRM_TERN_SEM_WAIT_EQ) ? now != u.sem.value :
						     now < u.sem.value) {
			if (!*releases)
				return TERN_MODEL_STALLED;
			--*releases;
			memcpy(src, &u.sem.value, 8);
		}
		ref_count(t, setup, src_owner, false, 8);
		return 0;
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		return ref_sem_wait_abort(s, &u.sem_abort, releases, t);
	case DRM_TERN_OP_REDUCE:
		/* The element arithmetic is test_reduce's; this checks the bytes. */
		size = tern_model_dtype_size(u.reduce.dtype);
		bytes = u.reduce.count * size;
		if (!bytes)
			return 0;
		rc = ref_access(s, u.reduce.src0, bytes, &src, &src_owner);
		if (!rc)
			rc = ref_access(s, u.reduce.src1, bytes, &src1, &src1_owner);
		if (!rc)
			rc = ref_access(s, u.reduce.dst, bytes, &dst, &dst_owner);
		if (rc)
			return rc;
		if (u.h.flags & DRM_TERN_REDUCE_DIVIDE)
			tern_model_reduce_divide(dst, src, src1, u.reduce.count,
						 u.reduce.dtype, u.reduce.divisor);
		else
			tern_model_reduce(dst, src, src1, u.reduce.count,
					  u.reduce.dtype, u.reduce.op);
		ref_count(t, setup, src_owner, false, bytes);
		ref_count(t, setup, src1_owner, false, bytes);
		ref_count(t, setup, dst_owner, true, bytes);
		return 0;
	default:
		if (fuzz_compute_opcode(u.h.opcode)) {
			struct ref_memory rm = { s, t };
			const struct fuzz_memory m = {
				&rm, ref_memory_access, ref_memory_count,
			};

			return ref_compute(p, &setup->chip, &s->onchip, &m);
		}
		return 0;
	}
}

static void ref_run(struct fuzz_space *s, struct fuzz_outcome *out,
		    struct fuzz_traffic *t)
{
	const struct fuzz_setup *setup = s->setup;
	u32 releases = setup->releases;

	memset(t, 0, sizeof(*t));
	memset(out, 0, sizeof(*out));
	while (out->offset < setup->run_size) {
		const u8 *p = setup->stream + out->offset;

		out->rc = ref_packet(s, p, &releases, t);
		if (out->rc)
			return;
		out->offset += (u32)fuzz_header_at(p).length * 8;
	}
}

/* ---- the model's run ---- */

struct fuzz_counters {
	u64 bytes[TERN_FABRIC_MAX_LINKS][2];
	u64 packets[TERN_FABRIC_MAX_LINKS][2];
};

static void fuzz_read_counters(const struct tern_fabric *f,
			       struct fuzz_counters *c)
{
	u32 i, dir;

	for (i = 0; i < f->link_count; i++) {
		for (dir = 0; dir < 2; dir++) {
			c->bytes[i][dir] = tern_counter_read(&f->links[i].bytes[dir]);
			c->packets[i][dir] = tern_counter_read(&f->links[i].packets[dir]);
		}
	}
}

/* Counters only grow; a stalled poll adds nothing (@same). */
static void fuzz_check_counters(const struct tern_fabric *f,
				struct fuzz_counters *last, bool same)
{
	struct fuzz_counters now;
	u32 i, dir;

	fuzz_read_counters(f, &now);
	for (i = 0; i < f->link_count; i++) {
		for (dir = 0; dir < 2; dir++) {
			if (now.bytes[i][dir] < last->bytes[i][dir] ||
			    now.packets[i][dir] < last->packets[i][dir])
				fuzz_fail("link %u direction %u counters went down",
					  i, dir);
			if (same && (now.bytes[i][dir] != last->bytes[i][dir] ||
				     now.packets[i][dir] != last->packets[i][dir]))
				fuzz_fail("a stalled SEM_WAIT counted traffic on link %u",
					  i);
		}
	}
	memcpy(last, &now, sizeof(now));
}

static void fuzz_release(struct fuzz_space *s, const struct tern_model_job *job)
{
	struct drm_tern_packet_sem_wait_abort w = { .abort = 0 };
	u64 word = s->setup->release_abort;
	u32 owner;
	u8 *slot;

	/* SEM_WAIT_ABORT begins as SEM_WAIT does: header, addr, value */
	memcpy(&w, s->setup->stream + job->offset,
	       fuzz_header_at(s->setup->stream + job->offset).opcode ==
	       DRM_TERN_OP_SEM_WAIT_ABORT ? sizeof(w) :
	       sizeof(struct drm_tern_packet_sem_wait));
	if (w.header.opcode == DRM_TERN_OP_SEM_WAIT_ABORT && word) {
		slot = fuzz_translate(s, w.abort, 8, &owner);
		if (!slot)
			fuzz_fail("stalled on unmapped abort word %#llx",
				  (unsigned long long)w.abort);
		memcpy(slot, &word, 8);
		return;
	}
	slot = fuzz_translate(s, w.addr, 8, &owner);
	if (!slot)
		fuzz_fail("stalled on unmapped semaphore %#llx",
			  (unsigned long long)w.addr);
	memcpy(slot, &w.value, 8);
}

/* Runs the stream to its end, a fault or a stall that stays. */
static void fuzz_model_run(struct fuzz_space *s, struct fuzz_outcome *out)
{
	const struct fuzz_setup *setup = s->setup;
	struct tern_model_mem mem = {
		.translate = fuzz_translate,
		.clock = fuzz_clock,
		.ctx = s,
		.fabric = setup->has_fabric ? &s->fabric : NULL,
		.device = setup->device,
		.timing = s->timing,
		.engine = &s->engine,
		.target = &setup->chip.target,
		.onchip = fuzz_onchip,
	};
	u64 clock = 0;
	/*
	 * Each call that yields has used all but a packet's cost, or a
	 * REDUCE element's, of its budget.
	 */
	u64 max_yields = (setup->run_bytes + (u64)setup->run_packets *
			  TERN_MODEL_PACKET_COST) /
			 (TERN_MODEL_BUDGET - TERN_MODEL_MAX_COST) +
			 setup->run_steps;
	struct fuzz_counters *counters = fuzz_alloc(sizeof(*counters));
	u32 releases = setup->releases, polls = 0;
	struct tern_model_job job;
	bool stalled = false;
	int rc;

	fuzz_read_counters(&s->fabric, counters);
	memset(out, 0, sizeof(*out));
	tern_model_job_init(&job, setup->stream, setup->run_size);
	for (;;) {
		u32 offset = job.offset;
		u64 progress = job.progress;

		rc = tern_model_run(&job, &mem);
		out->calls++;
		if (s->engine.now < clock)
			fuzz_fail("engine clock went back from %llu to %llu",
				  (unsigned long long)clock,
				  (unsigned long long)s->engine.now);
		clock = s->engine.now;
		fuzz_check_counters(&s->fabric, counters, stalled &&
				    rc == TERN_MODEL_STALLED &&
				    job.offset == offset);
		stalled = false;
		if (job.offset > setup->run_size || job.offset % 8)
			fuzz_fail("job offset %u after run, stream of %u",
				  job.offset, setup->run_size);
		if (rc == 0) {
			if (job.offset != setup->run_size)
				fuzz_fail("run returned 0 at offset %u of %u",
					  job.offset, setup->run_size);
			break;
		}
		if (rc == -EFAULT || rc == -ENOLINK) {
			if (job.offset >= setup->run_size)
				fuzz_fail("fault %d past the end", rc);
			break;
		}
		if (rc == -ENOMEM) {
			if (job.offset >= setup->run_size ||
			    !fuzz_compute_opcode(fuzz_header_at(setup->stream +
								job.offset).opcode))
				fuzz_fail("-ENOMEM at %u, not at a packet of the cores",
					  job.offset);
			break;
		}
		if (rc == -ECANCELED || rc == -ECONNRESET) {
			if (job.offset >= setup->run_size || job.progress ||
			    fuzz_header_at(setup->stream + job.offset).opcode !=
			    DRM_TERN_OP_SEM_WAIT_ABORT)
				fuzz_fail("abort %d at %u, not at a SEM_WAIT_ABORT",
					  rc, job.offset);
			break;
		}
		if (rc == TERN_MODEL_YIELD) {
			if (job.offset < offset ||
			    (job.offset == offset && job.progress <= progress))
				fuzz_fail("yield without progress at %u", offset);
			if (++out->yields > max_yields)
				fuzz_fail("%u yields for %llu bytes of work",
					  out->yields,
					  (unsigned long long)setup->run_bytes);
			continue;
		}
		if (rc != TERN_MODEL_STALLED)
			fuzz_fail("run returned %d", rc);
		if (job.offset >= setup->run_size || job.progress ||
		    (fuzz_header_at(setup->stream + job.offset).opcode !=
		     DRM_TERN_OP_SEM_WAIT &&
		     fuzz_header_at(setup->stream + job.offset).opcode !=
		     DRM_TERN_OP_SEM_WAIT_ABORT))
			fuzz_fail("stalled at %u, not at a SEM_WAIT", job.offset);
		stalled = true;
		if (offset != job.offset)
			polls = 0;
		if (++polls < FUZZ_STALL_POLLS)
			continue;
		if (!releases)
			break;
		releases--;
		polls = 0;
		fuzz_release(s, &job);
	}
	free(counters);
	out->rc = rc;
	out->offset = job.offset;
}

/* ---- comparing runs ---- */

static void fuzz_model_traffic(const struct tern_fabric *f,
			       struct fuzz_traffic *t)
{
	u32 i, dir;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < f->link_count; i++) {
		const struct tern_fabric_link *l = &f->links[i];

		for (dir = 0; dir < 2; dir++) {
			u64 bytes = tern_counter_read(&l->bytes[dir]);

			t->net[l->end[dir].device] += (s64)bytes;
			t->net[l->end[dir ^ 1].device] -= (s64)bytes;
			t->byte_hops += bytes;
			t->packet_hops += tern_counter_read(&l->packets[dir]);
		}
	}
}

static void fuzz_check_traffic(const struct fuzz_space *s,
			       const struct fuzz_traffic *expected, u32 yields)
{
	const struct fuzz_setup *setup = s->setup;
	struct fuzz_traffic t;
	u32 d;

	fuzz_model_traffic(&s->fabric, &t);
	for (d = 0; d < setup->devices; d++)
		if (t.net[d] != expected->net[d])
			fuzz_fail("device %u sent %lld bytes more than it received, expected %lld",
				  d, (long long)t.net[d], (long long)expected->net[d]);
	if (t.byte_hops != expected->byte_hops)
		fuzz_fail("links carried %llu bytes, shortest routes %llu",
			  (unsigned long long)t.byte_hops,
			  (unsigned long long)expected->byte_hops);
	/* A transfer split by a yield counts once per part. */
	if (t.packet_hops < expected->packet_hops ||
	    (!yields && t.packet_hops != expected->packet_hops))
		fuzz_fail("links carried %llu packets, expected %llu",
			  (unsigned long long)t.packet_hops,
			  (unsigned long long)expected->packet_hops);
}

/* Both ends of a port see one link: one's tx is the other's rx. */
static void fuzz_check_ports(const struct tern_fabric *f)
{
	u32 d, p;

	for (d = 0; d < f->device_count; d++) {
		for (p = 0; p < f->port_count[d]; p++) {
			struct tern_fabric_port_view v, peer;

			if (tern_fabric_port_view(f, d, p, &v))
				fuzz_fail("no view of device %u port %u", d, p);
			if (v.state == DRM_TERN_PORT_UNCONNECTED)
				continue;
			if (v.state == DRM_TERN_PORT_DOWN &&
			    (v.tx_bytes || v.rx_bytes || v.tx_packets || v.rx_packets))
				fuzz_fail("traffic on down port %u of device %u", p, d);
			if (tern_fabric_port_view(f, v.peer_device, v.peer_port, &peer) ||
			    peer.peer_device != d || peer.peer_port != p ||
			    peer.rx_bytes != v.tx_bytes || peer.tx_bytes != v.rx_bytes ||
			    peer.rx_packets != v.tx_packets ||
			    peer.tx_packets != v.rx_packets || peer.state != v.state)
				fuzz_fail("device %u port %u and its peer disagree", d, p);
		}
	}
}

/* The run changed counters only: not links, ports or their states. */
static void fuzz_check_topology(const struct fuzz_space *s)
{
	struct tern_fabric *before = fuzz_alloc(sizeof(*before));
	struct tern_fabric *after = fuzz_alloc(sizeof(*after));
	u32 i;

	memcpy(before, &s->setup->fabric, sizeof(*before));
	memcpy(after, &s->fabric, sizeof(*after));
	for (i = 0; i < after->link_count; i++) {
		memset(after->links[i].bytes, 0, sizeof(after->links[i].bytes));
		memset(after->links[i].packets, 0, sizeof(after->links[i].packets));
	}
	if (memcmp(before, after, sizeof(*before)))
		fuzz_fail("the run changed the fabric beyond its traffic counters");
	free(before);
	free(after);
}

static void fuzz_check_memory(const struct fuzz_space *a,
			      const struct fuzz_space *b, const char *what)
{
	u32 i;
	u64 at;

	for (i = 0; i < FUZZ_MAX_BUFFERS; i++) {
		const struct fuzz_buffer *buf = &a->setup->buffers[i];

		if (!buf->mapped || !memcmp(a->data[i], b->data[i], buf->size))
			continue;
		for (at = 0; a->data[i][at] == b->data[i][at]; at++)
			;
		fuzz_fail("%s: buffer %u differs at VA %#llx (%#x, not %#x)",
			  what, i, (unsigned long long)(buf->va + at),
			  a->data[i][at], b->data[i][at]);
	}
	fuzz_onchip_compare(&a->onchip, &b->onchip, what);
}

static void fuzz_check_outcome(const struct fuzz_outcome *a,
			       const struct fuzz_outcome *b, const char *what)
{
	if (a->rc != b->rc || a->offset != b->offset)
		fuzz_fail("%s: returned %d at offset %u, not %d at %u", what,
			  a->rc, a->offset, b->rc, b->offset);
}

/* ---- one input ---- */

static void fuzz_run_valid(const struct fuzz_setup *setup)
{
	struct fuzz_space *model = fuzz_alloc(sizeof(*model));
	struct fuzz_space *again = fuzz_alloc(sizeof(*again));
	struct fuzz_space *ref = fuzz_alloc(sizeof(*ref));
	struct fuzz_outcome model_out, again_out, ref_out;
	struct fuzz_counters *counters, *again_counters;
	struct fuzz_traffic ref_traffic;

	if (setup->run_size && tern_model_validate_on(setup->stream,
						      setup->run_size,
						      &setup->chip.target, NULL))
		fuzz_fail("the first %u bytes of a valid stream do not validate",
			  setup->run_size);
	fuzz_space_init(model, setup);
	fuzz_space_init(again, setup);
	fuzz_space_init(ref, setup);
	model->timing = fuzz_alloc(sizeof(*model->timing));
	tern_timing_init(model->timing, &model->fabric);

	fuzz_model_run(model, &model_out);
	if (model_out.rc == 0) {
		tern_timing_job_end(&model->engine);
		if (model->engine.now < model->engine.drain)
			fuzz_fail("job ended before its transfers landed");
	}
	free(model->timing);
	model->timing = NULL;
	ref_run(ref, &ref_out, &ref_traffic);
	fuzz_check_outcome(&model_out, &ref_out, "model against reference");
	fuzz_check_memory(model, ref, "model against reference");
	if (setup->has_fabric) {
		fuzz_check_traffic(model, &ref_traffic, model_out.yields);
		fuzz_check_ports(&model->fabric);
		fuzz_check_topology(model);
	}

	fuzz_model_run(again, &again_out);
	fuzz_check_outcome(&again_out, &model_out, "second run");
	if (again_out.calls != model_out.calls)
		fuzz_fail("second run took %u calls, the first %u",
			  again_out.calls, model_out.calls);
	fuzz_check_memory(again, model, "second run");
	counters = fuzz_alloc(sizeof(*counters));
	again_counters = fuzz_alloc(sizeof(*again_counters));
	fuzz_read_counters(&model->fabric, counters);
	fuzz_read_counters(&again->fabric, again_counters);
	if (memcmp(counters, again_counters, sizeof(*counters)))
		fuzz_fail("second run: link counters differ");
	free(counters);
	free(again_counters);

	if (getenv("TERN_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_model: ran %u of %u bytes: %d at offset %u, "
			"%u calls, %u yields\n", setup->run_size,
			setup->stream_size, model_out.rc, model_out.offset,
			model_out.calls, model_out.yields);
	fuzz_space_free(model);
	fuzz_space_free(again);
	fuzz_space_free(ref);
	free(model);
	free(again);
	free(ref);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 header[FUZZ_HEADER_BYTES] = { 0 };
	size_t header_bytes = size < sizeof(header) ? size : sizeof(header);
	struct fuzz_setup *setup;
	u32 bad;
	int rc;

	setup = fuzz_alloc(sizeof(*setup));
	memcpy(header, data, header_bytes);
	fuzz_setup_fabric(setup, header);
	fuzz_chip_setup(&setup->chip, header + 6);
	setup->releases = header[4] % 4u;
	setup->release_abort = header[5] % 3u;
	fuzz_setup_buffers(setup, header);
	setup->stream_size = (u32)(size - header_bytes);
	setup->stream = fuzz_alloc(setup->stream_size);
	memcpy(setup->stream, data + header_bytes, setup->stream_size);

	rc = fuzz_check_validate(setup, &bad);
	if (rc && getenv("TERN_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_model: validate: %d at offset %u\n", rc, bad);
	if (rc == 0) {
		fuzz_choose_run(setup);
		fuzz_run_valid(setup);
	}
	if (memcmp(setup->stream, data + header_bytes, setup->stream_size))
		fuzz_fail("the packet stream was written to");
	free(setup->stream);
	free(setup);
	return 0;
}
