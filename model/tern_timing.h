/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The Tern timing model: how long a chip would take to run the packets the
 * device model executes, in modelled nanoseconds that do not depend on the
 * host.
 *
 * Every engine keeps a modelled clock. A DMA engine spends
 * TERN_TIMING_PACKET_NS decoding and issuing each packet. A COPY, FILL or
 * REDUCE is a DMA transfer: it starts once the engine has issued it, one
 * of the engine's TERN_TIMING_QUEUES DMA queues is free, every link of its
 * route has room for it and the transfers it depends on (an earlier write
 * to memory it reads or writes) have landed; it lasts as long as its
 * slowest resource needs (each link at the link's bandwidth, each device's
 * memory it reads or writes at TERN_TIMING_MEM_BANDWIDTH) and lands one
 * latency per hop later (two for a read: request and data). Issue does
 * not wait for the transfer, so an engine keeps several links busy at
 * once, as a chip's DMA rings do.
 *
 * Links and memories are shared, and remember when they are busy, so that
 * a transfer fits in a gap another engine left even if the host ran that
 * engine first. Two transfers on one link direction take turns. A
 * device's memory (its HBM) is one resource for every engine that reads
 * or writes it, its own device's DMA engines and its peers' across the
 * fabric alike: each is served its bytes' time there, in whatever gaps it
 * has. A transfer that crosses links needs memory only at the links'
 * pace, so it is served in the latest free time within its time on them
 * (spilling past it if there is too little); one within a device is
 * served in the first free time from its start. So a copy within a device
 * is not put behind the transfers to and from peers issued at the same
 * time, and those are not slowed while memory has room for them.
 *
 * A compute packet (MATMUL, the vector and scalar packets) keeps its
 * engine busy for its cycles at the core's clock, by the published cost
 * model of Trainium2's engines (Documentation/compute.rst): its engine
 * issues nothing else meanwhile, and the engines of a core, each with its
 * own clock, overlap as the chip's do. Those cycles include the issue, so
 * a core's engines pay no decode; their other packets cost nothing of
 * their own (a chip's semaphore waits and updates are fields of its
 * instructions), though a wait still waits for its semaphore.
 *
 * A SEM_SIGNAL is ordered after everything its engine issued before it: it
 * lands once those transfers have landed and its own route's latency has
 * passed, and the semaphore remembers when. A SEM_WAIT passes at the
 * modelled time its semaphore reached the value waited for (the signals
 * taken in the order of their modelled times, so several engines adding to
 * one semaphore give the same answer whatever order the host ran them in),
 * or at once if the engine is already later. A TIMESTAMP waits for the
 * engine's transfers to land and reads its clock. A job ends when its
 * transfers have landed.
 *
 * Modelled times are the same from run to run when the uses of each link
 * and each device's memory are ordered by the packets' own semaphores or
 * fit beside each other: as in Tern's ring collectives, where each
 * directed link carries one engine's transfers, for as long as memory
 * serves each transfer within its time on the links. A transfer too small
 * to keep a link or a memory busy for a whole nanosecond (up to 256 bytes
 * on a 256 GB/s link, 2,906 of a device's memory) takes no turn there, so
 * small messages sent to many peers at once are deterministic too.
 * Transfers of several engines that meet on one link, or on a memory with
 * too little room for them all, at the same modelled time are served in
 * the order the host ran them.
 */
#ifndef TERN_TIMING_H
#define TERN_TIMING_H

#include "tern_model_port.h"
#include "tern_fabric.h"
#include "../../uapi/drm/tern_accel.h"

/* A DMA engine's cost to decode and issue one packet. */
#define TERN_TIMING_PACKET_NS		50u
/*
 * A device's memory, shared by every engine that reads or writes it: a
 * Trainium2 chip's HBM, 2.9 TB/s in all.
 */
#define TERN_TIMING_MEM_BANDWIDTH	(2900ull * 1000 * 1000 * 1000)
/* DMA queues an engine spreads its transfers over. */
#define TERN_TIMING_QUEUES		16
/* Transfers in flight an engine tracks for ordering. */
#define TERN_TIMING_WRITES		32
/* Busy spans remembered per link direction and per device's memory. */
#define TERN_TIMING_SPANS		16
/* Semaphores remembered, and the signals kept for each. */
#define TERN_TIMING_SEMS		4096
#define TERN_TIMING_SEM_HISTORY		16

struct tern_timing_write {
	const u8 *lo, *hi;	/* bytes written: [lo, hi) */
	u64 end;		/* when they have landed */
};

/*
 * One engine's state. @now: when it issues its next packet; @drain: when
 * everything it issued has landed. Zeroed at start; kept across jobs.
 */
struct tern_timing_engine {
	u64 now;
	u64 drain;
	u64 queue_free[TERN_TIMING_QUEUES];
	u32 write_count;
	struct tern_timing_write writes[TERN_TIMING_WRITES];
};

/* Busy over [start, end), modelled ns. */
struct tern_timing_span {
	u64 start, end;
};

/*
 * What engines take turns on, a link direction or a device's memory: the
 * spans it is busy, apart and by start.
 */
struct tern_timing_resource {
	u32 span_count;
	struct tern_timing_span spans[TERN_TIMING_SPANS];
};

struct tern_timing_add {
	u64 delta;
	u64 stamp;
};

struct tern_timing_sem {
	const u64 *slot;	/* NULL: free */
	u64 base;		/* its value before @adds */
	u64 base_stamp;		/* when it reached @base */
	u64 last_stamp;		/* latest signal, to pick what to forget */
	u32 add_count;
	struct tern_timing_add adds[TERN_TIMING_SEM_HISTORY];
};

/*
 * What engines share: links, each device's memory and semaphores, under
 * @lock. The link figures come from @fabric, as femtoseconds per byte.
 */
struct tern_timing {
	const struct tern_fabric *fabric;
	tern_lock_t lock;
	u32 mem_fs_per_byte;
	u32 link_fs_per_byte[TERN_FABRIC_MAX_LINKS];
	struct tern_timing_resource links[TERN_FABRIC_MAX_LINKS][2];
	struct tern_timing_resource memory[TERN_FABRIC_MAX_DEVICES];
	struct tern_timing_sem sems[TERN_TIMING_SEMS];
};

/* One operand of a transfer, as the device model translated it. */
struct tern_timing_operand {
	const u8 *ptr;
	u64 bytes;
	bool write;
	u32 device;			/* whose memory it is */
	int hop_count;			/* 0: the engine's own device's */
	const struct tern_fabric_hop *hops;
};

/* Sets up @timing for @fabric, whose links it reads the figures of. */
void tern_timing_init(struct tern_timing *timing,
		      const struct tern_fabric *fabric);

/* A COPY, FILL or REDUCE of @ops (at most 3), as described above. */
void tern_timing_transfer(struct tern_timing *timing,
			  struct tern_timing_engine *engine,
			  const struct tern_timing_operand *ops, int count);

/*
 * A SEM_SIGNAL: stores @value at @slot (adds it, with @add) under the
 * lock and records when it lands; @hop_count hops away (0: local).
 */
void tern_timing_signal(struct tern_timing *timing,
			struct tern_timing_engine *engine, u64 *slot,
			u64 value, bool add, const struct tern_fabric_hop *hops,
			int hop_count);

/*
 * A SEM_WAIT for @target (== with @equal, else >=) that found @slot
 * passing: moves the engine's clock to when it passed.
 */
void tern_timing_wait(struct tern_timing *timing,
		      struct tern_timing_engine *engine, const u64 *slot,
		      u64 target, bool equal, const struct tern_fabric_hop *hops,
		      int hop_count);

/* Trainium2's core clock, at which the compute engines count cycles. */
#define TERN_TIMING_CORE_HZ		2400000000ull

/* A compute packet of @cycles at TERN_TIMING_CORE_HZ. */
void tern_timing_compute(struct tern_timing_engine *engine, u64 cycles);

/* A TIMESTAMP: the engine's clock once its transfers have landed. */
u64 tern_timing_stamp(struct tern_timing_engine *engine);

/*
 * A packet done on an engine of @engine_type (enum drm_tern_engine_type):
 * a DMA engine's decode and issue cost. A core's engines pay their
 * packets' cycles alone (tern_timing_compute()): the published costs
 * include the issue, and their semaphore waits and updates are fields of
 * the instructions themselves.
 */
static inline void tern_timing_packet(struct tern_timing_engine *engine,
				      u32 engine_type)
{
	if (engine_type == DRM_TERN_ENGINE_DMA)
		engine->now += TERN_TIMING_PACKET_NS;
}

/* A job ended: its transfers have landed. */
static inline void tern_timing_job_end(struct tern_timing_engine *engine)
{
	if (engine->now < engine->drain)
		engine->now = engine->drain;
}

#endif /* TERN_TIMING_H */
