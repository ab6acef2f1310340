/* SPDX-License-Identifier: MIT */
/*
 * The model fuzzer's half for the packets of a chip's cores (DMA_TILE and
 * the compute packets): the chip an input chooses, its on-chip memories
 * for one run, the rules of Documentation/compute.rst written again, and a
 * whole-packet reference of what each packet does.
 */
#ifndef FUZZ_COMPUTE_H
#define FUZZ_COMPUTE_H

#include "tern_model.h"

#define FUZZ_MAX_CORES		2

/* The chip and engine an input runs on (setup header bytes 6 and 7). */
struct fuzz_chip {
	struct tern_core_shape shape;
	struct tern_model_target target;
	bool onchip_fails;	/* on-chip memory cannot be had: -ENOMEM */
};

/* The on-chip memories of one run, each allocated of its exact size. */
struct fuzz_onchip {
	const struct fuzz_chip *chip;
	u8 *mem[FUZZ_MAX_CORES][2];
};

/* How a DMA_TILE reaches device memory: the fuzzer's reference access. */
struct fuzz_memory {
	void *ctx;
	/* 0 or the error; *@ptr and *@owner as tern_model_mem's translate */
	int (*access)(void *ctx, u64 va, u64 len, u8 **ptr, u32 *owner);
	/* counts @bytes read from (or written to, @write) @owner's memory */
	void (*count)(void *ctx, u32 owner, bool write, u64 bytes);
};

/*
 * Byte 6: the engine type, b % 4. Byte 7: cores, b % 3; the core of a
 * compute engine, bit 2; bit 7, on-chip memory fails.
 */
void fuzz_chip_setup(struct fuzz_chip *chip, const u8 header[2]);

/* The model's onchip() on @o: zeroed memory made on first use, or NULL. */
u8 *fuzz_onchip_get(struct fuzz_onchip *o, u32 core, u32 space);
void fuzz_onchip_free(struct fuzz_onchip *o);
/* Fails the input unless @a and @b hold the same on-chip bytes. */
void fuzz_onchip_compare(const struct fuzz_onchip *a,
			 const struct fuzz_onchip *b, const char *what);

/* Whether @opcode is one of the packets this file knows. */
bool fuzz_compute_opcode(u16 opcode);
/*
 * The rules of packet @p (its @bytes, header included, all present) on
 * @chip's engine: engine type, length, flags, pads, tiles and overlaps.
 */
bool spec_compute(const u8 *p, u32 bytes, const struct fuzz_chip *chip);
/*
 * Of a valid packet: its steps (the partitions, or MATMUL's result
 * elements: a call does at least one), and its rough cost in the units
 * of the fuzzer's FUZZ_COST_LIMIT.
 */
u64 fuzz_compute_steps(const u8 *p);
u64 fuzz_compute_cost(const u8 *p);
/* Runs valid packet @p whole; 0, -EFAULT, -ENOLINK or -ENOMEM. */
int ref_compute(const u8 *p, const struct fuzz_chip *chip,
		struct fuzz_onchip *o, const struct fuzz_memory *m);

#endif /* FUZZ_COMPUTE_H */
