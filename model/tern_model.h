/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The Tern device model: what an engine does with a packet stream.
 *
 * Plain C with no kernel or libc dependency beyond tern_model_port.h, so the
 * same code runs in tern.ko's mock hardware and in libtern's simulator.
 */
#ifndef TERN_MODEL_H
#define TERN_MODEL_H

#include "tern_model_port.h"
#include "tern_fabric.h"
#include "tern_timing.h"
#include "tern_tile.h"
#include "../../uapi/drm/tern_accel.h"

/* Returned by tern_model_run() while work remains (not an error). */
#define TERN_MODEL_STALLED	1	/* a SEM_WAIT(_ABORT) has not passed yet */
#define TERN_MODEL_YIELD	2	/* the work budget ran out */

/*
 * Work one tern_model_run() call may do before it yields, whatever the
 * stream holds, in units of one byte moved by COPY or FILL. Every packet
 * also costs TERN_MODEL_PACKET_COST of it, and each element of a REDUCE
 * tern_model_reduce_cost() (tern_reduce.h): up to TERN_MODEL_MAX_COST, for
 * soft-float elements divided. A call does at least one element, so it
 * may pass the budget by less than one element's cost.
 */
#define TERN_MODEL_BUDGET	(4u << 20)
#define TERN_MODEL_PACKET_COST	64u

#define TERN_MODEL_MAX_SUBMIT_BYTES	(256u << 10)
#define TERN_MODEL_MAX_IN_SYNCOBJS	64u
#define TERN_MODEL_CLOCK_HZ		1000000000ull

/**
 * struct tern_model_mem - how an engine reaches memory, peers and time
 * @translate: CPU pointer to [@va, @va + @len) if that range lies inside
 *	one buffer of the submitting context, else NULL; *@owner receives the
 *	fabric id of the device whose memory it is. Called with @len >= 1.
 * @clock: engine clock in ticks of TERN_MODEL_CLOCK_HZ.
 * @ctx: passed to both.
 * @fabric: the machine's fabric; every access to another device's memory
 *	is routed over it and counted on each link it crosses. NULL when the
 *	device has no fabric: a foreign owner is then a fault.
 * @device: fabric id of the device whose engine runs the job.
 * @timing: the machine's timing model and @engine's clock in it, or NULL:
 *	then nothing is modelled (tern_timing.h).
 * @model_clock: TIMESTAMP writes the modelled clock rather than @clock.
 * @skip_data: COPY, FILL and REDUCE move no bytes; translation, faults,
 *	traffic counters and the timing model are as when they do. For
 *	modelling schedules whose buffers the host could not hold.
 * @target: the engine that runs the job: its type (which the timing
 *	model charges its packets by), its core and the chip's cores.
 * @onchip: the submitting context's SBUF or PSUM (@space) of @core, its
 *	partitions one after the other, allocated and zeroed when first
 *	asked for; NULL if it cannot be, which fails the job with -ENOMEM.
 *	Only called for a core and space that @target's shape has.
 */
struct tern_model_mem {
	void *(*translate)(void *ctx, u64 va, u64 len, u32 *owner);
	u64 (*clock)(void *ctx);
	void *ctx;
	struct tern_fabric *fabric;
	u32 device;
	struct tern_timing *timing;
	struct tern_timing_engine *engine;
	bool model_clock;
	bool skip_data;
	const struct tern_model_target *target;
	u8 *(*onchip)(void *ctx, u32 core, u32 space);
};

/**
 * struct tern_model_job - a packet stream being executed
 * @packets: the stream, already checked by tern_model_validate()
 * @size: bytes in @packets
 * @offset: next packet to run
 * @progress: bytes of the packet at @offset already done
 */
struct tern_model_job {
	const void *packets;
	u32 size;
	u32 offset;
	u64 progress;
};

/*
 * Checks the structure of a packet stream for @target (opcodes and the
 * engines that run them, lengths, flags, pads, alignment, address ranges,
 * tiles) without touching memory. Returns 0 or -EINVAL; if @bad_offset
 * is not NULL it receives the offset of the first bad packet.
 */
int tern_model_validate_on(const void *packets, u32 size,
			   const struct tern_model_target *target,
			   u32 *bad_offset);

/* tern_model_validate_on() for a DMA engine of a chip without cores. */
int tern_model_validate(const void *packets, u32 size, u32 *bad_offset);

static inline void tern_model_job_init(struct tern_model_job *job,
				       const void *packets, u32 size)
{
	job->packets = packets;
	job->size = size;
	job->offset = 0;
	job->progress = 0;
}

/*
 * Runs @job from where it stopped, doing about TERN_MODEL_BUDGET of work.
 * Returns 0 when the stream is done,
 * TERN_MODEL_STALLED or TERN_MODEL_YIELD when it should be called again,
 * -EFAULT when a packet addressed memory outside the context's buffers,
 * -ENOLINK when it addressed a peer's memory that no up link reaches, or
 * -ECANCELED or -ECONNRESET when a SEM_WAIT_ABORT found its abort word
 * set (the packets before it have taken effect, nothing after it runs),
 * or -ENOMEM when on-chip memory could not be had.
 * A stalled job re-reads every semaphore and abort word at each call.
 */
int tern_model_run(struct tern_model_job *job, const struct tern_model_mem *mem);

#endif /* TERN_MODEL_H */
