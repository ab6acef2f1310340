/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern on-chip memory: each open file's SBUF and PSUM of each core.
 */
#ifndef TERN_ONCHIP_H
#define TERN_ONCHIP_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "tern_tile.h"

/**
 * struct tern_onchip - the on-chip memories of one file
 * @shape: the device's cores
 * @lock: makes one memory at a time, so that two threads of the file
 *	never make the same one twice, and frees them
 * @mem: each core's SBUF, then its PSUM, NULL until a stream first needs
 *	it; stored under @lock, and read without it by the engines
 * @closed: the file is closing: its memories are freed and no more are
 *	made (under @lock)
 */
struct tern_onchip {
	struct tern_core_shape shape;
	struct mutex lock;	/* makes and frees memories */
	u8 **mem;
	bool closed;
};

int tern_onchip_init(struct tern_onchip *onchip,
		     const struct tern_core_shape *shape);
void tern_onchip_free(struct tern_onchip *onchip);
void tern_onchip_fini(struct tern_onchip *onchip);
int tern_onchip_prepare(struct tern_onchip *onchip,
			const struct tern_model_target *target,
			const void *packets, u32 size, bool may_alloc);
u8 *tern_onchip_find(struct tern_onchip *onchip, u32 core, u32 space);

#endif /* TERN_ONCHIP_H */
