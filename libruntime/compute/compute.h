/* SPDX-License-Identifier: MIT */
/*
 * Programs of engine instructions (program.c), how they run on a core's
 * engines (launch.c), and the tiled kernels built on them (gemm.c).
 * Internal to libtern.
 */
#ifndef TERN_COMPUTE_INTERNAL_H
#define TERN_COMPUTE_INTERNAL_H

#include "internal.h"
#include "packets.h"
#include "tern_accel.h"
#include "tern_compute.h"

#define TERN_ENGINE_KINDS	4	/* DMA, tensor, vector, scalar */

/* Bytes [lo, hi) of partitions [p0, p1) of a core's SBUF or PSUM. */
struct tern_region {
	uint8_t space;
	uint16_t p0, p1;
	uint32_t lo, hi;
};

/* One instruction: its packet and what it reads and writes on chip. */
struct tern_insn {
	uint8_t engine;			/* tern_engine_t */
	uint8_t reads, writes;		/* regions: reads first */
	bool signal;			/* a later one on another engine waits */
	uint16_t bytes;			/* of @packet */
	/* a matmul's multiply-adds, the rest's bytes: what windows measure */
	uint64_t work;
	struct tern_region region[5];
	/*
	 * Before it runs, engine f has completed at least wait[f] of its
	 * instructions (a SEM_WAIT where that is news to this engine).
	 */
	uint32_t wait[TERN_ENGINE_KINDS];
	/* what its engine knows has completed when it runs (see known) */
	uint32_t seen[TERN_ENGINE_KINDS];
	/* DMA: the buffer its device address lies in, checked at launch. */
	struct tern_buffer *buffer;
	uint64_t packet[TERN_PACKET_MAX_BYTES / 8];
};

struct tern_program {
	struct tern_device *device;
	uint32_t core;
	struct tern_insn *insns;	/* in program order */
	uint32_t count, cap;
	/* per engine: its instructions' places in @insns, in order */
	uint32_t *order[TERN_ENGINE_KINDS];
	uint32_t engine_count[TERN_ENGINE_KINDS];
	uint32_t order_cap[TERN_ENGINE_KINDS];
	/*
	 * known[e][f]: instructions of engine f that engine e knows have
	 * completed (through the waits it already has, and theirs).
	 */
	uint32_t known[TERN_ENGINE_KINDS][TERN_ENGINE_KINDS];
};

/* One core's engines as libtern drives them, and its last launch. */
struct tern_compute_core {
	struct tern_stream *engine[TERN_ENGINE_KINDS];
	struct tern_fence *done;	/* the last launch's end, or NULL */
};

/* A device's compute state, made by the first launch. */
struct tern_compute {
	pthread_mutex_t lock;		/* launches, one at a time */
	struct tern_buffer *ones;	/* 128 float32 ones, for sums */
	uint32_t core_count;
	struct tern_compute_core core[];
};

/*
 * Launches @count programs of distinct cores of @stream's device at once
 * (tern_program_launch() for one; the caller checked them).
 */
tern_status_t tern_programs_launch(struct tern_program *const *programs,
				   uint32_t count, struct tern_stream *stream);

/*
 * Whether @x is a matrix of @dev of float32, bfloat16 or float16 (and,
 * with @narrow, an 8-bit float) inside its buffer; if not, the last error
 * says so, naming @kernel and the matrix's @name.
 */
bool tern_matrix_ok(const tern_matrix_t *x, const struct tern_device *dev,
		    const char *kernel, const char *name, bool narrow);
/* Whether @v holds @count float32 inside its buffer of @dev (as above). */
bool tern_vector_ok(tern_ptr_t v, uint32_t count,
		    const struct tern_device *dev, const char *kernel,
		    const char *name);
/* Whether the bytes @a and @b span in one buffer meet. */
bool tern_matrices_overlap(const tern_matrix_t *a, const tern_matrix_t *b);
/* Whether @a and @b are one matrix: an output in place of its input. */
bool tern_matrices_same(const tern_matrix_t *a, const tern_matrix_t *b);

/* @dev's compute state, made on first use; NULL without memory. */
struct tern_compute *tern_compute_get(struct tern_device *dev);

/* Frees @dev's compute state, once its streams are idle and released. */
void tern_compute_release(struct tern_device *dev);

#endif /* TERN_COMPUTE_INTERNAL_H */
