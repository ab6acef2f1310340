// SPDX-License-Identifier: MIT
/*
 * Packet stream builders. Packets are little endian; so is every machine
 * libtern runs on (x86-64, arm64), which the static assertion below keeps
 * true.
 */
#include <string.h>

#include "packets.h"
#include "tern_accel.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "packets are built in host byte order");
_Static_assert(sizeof(struct drm_tern_packet_reduce) <= TERN_PACKET_MAX_BYTES &&
	       sizeof(struct drm_tern_packet_sem_wait_abort) <=
	       TERN_PACKET_MAX_BYTES,
	       "TERN_PACKET_MAX_BYTES holds every packet");

void tern_packets_init(struct tern_packet_builder *b, void *buf,
		       size_t capacity)
{
	b->buf = buf;
	b->capacity = capacity;
	b->size = 0;
	b->overflow = false;
}

/* Reserves @bytes (a multiple of 8) and zeroes them; NULL if full. */
static void *tern_packet_reserve(struct tern_packet_builder *b, size_t bytes)
{
	void *p;

	if (b->overflow || bytes > b->capacity - b->size) {
		b->overflow = true;
		return NULL;
	}
	p = b->buf + b->size;
	memset(p, 0, bytes);
	b->size += bytes;
	return p;
}

static void tern_packet_header(struct drm_tern_packet_header *h,
			       uint16_t opcode, size_t bytes, uint32_t flags)
{
	h->opcode = opcode;
	h->length = (uint16_t)(bytes / 8);
	h->flags = flags;
}

void tern_packet_nop(struct tern_packet_builder *b, uint16_t length)
{
	struct drm_tern_packet_header *h =
		tern_packet_reserve(b, (size_t)length * 8);

	if (h)
		tern_packet_header(h, DRM_TERN_OP_NOP, (size_t)length * 8, 0);
}

void tern_packet_copy(struct tern_packet_builder *b, uint64_t dst,
		      uint64_t src, uint64_t bytes)
{
	struct drm_tern_packet_copy *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_COPY, sizeof(*p), 0);
	p->src = src;
	p->dst = dst;
	p->bytes = bytes;
}

void tern_packet_fill(struct tern_packet_builder *b, uint64_t dst,
		      uint64_t bytes, uint32_t pattern)
{
	struct drm_tern_packet_fill *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_FILL, sizeof(*p), 0);
	p->dst = dst;
	p->bytes = bytes;
	p->pattern = pattern;
}

void tern_packet_timestamp(struct tern_packet_builder *b, uint64_t dst)
{
	struct drm_tern_packet_timestamp *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_TIMESTAMP, sizeof(*p), 0);
	p->dst = dst;
}

void tern_packet_sem_signal(struct tern_packet_builder *b, uint64_t addr,
			    uint64_t value, bool add)
{
	struct drm_tern_packet_sem_signal *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_SEM_SIGNAL, sizeof(*p),
			   add ? DRM_TERN_SEM_SIGNAL_ADD : 0);
	p->addr = addr;
	p->value = value;
}

void tern_packet_sem_wait(struct tern_packet_builder *b, uint64_t addr,
			  uint64_t value, bool equal)
{
	struct drm_tern_packet_sem_wait *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_SEM_WAIT, sizeof(*p),
			   equal ? DRM_TERN_SEM_WAIT_EQ : 0);
	p->addr = addr;
	p->value = value;
}

void tern_packet_sem_wait_abort(struct tern_packet_builder *b, uint64_t addr,
				uint64_t value, uint64_t abort_addr,
				bool equal)
{
	struct drm_tern_packet_sem_wait_abort *p =
		tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_SEM_WAIT_ABORT, sizeof(*p),
			   equal ? DRM_TERN_SEM_WAIT_EQ : 0);
	p->addr = addr;
	p->value = value;
	p->abort = abort_addr;
}

static void tern_packet_reduce_flags(struct tern_packet_builder *b,
				     uint64_t dst, uint64_t src0,
				     uint64_t src1, uint64_t count,
				     uint16_t dtype, uint16_t op,
				     uint32_t flags, uint32_t divisor)
{
	struct drm_tern_packet_reduce *p = tern_packet_reserve(b, sizeof(*p));

	if (!p)
		return;
	tern_packet_header(&p->header, DRM_TERN_OP_REDUCE, sizeof(*p), flags);
	p->src0 = src0;
	p->src1 = src1;
	p->dst = dst;
	p->count = count;
	p->dtype = dtype;
	p->op = op;
	p->divisor = divisor;
}

void tern_packet_reduce(struct tern_packet_builder *b, uint64_t dst,
			uint64_t src0, uint64_t src1, uint64_t count,
			uint16_t dtype, uint16_t op)
{
	tern_packet_reduce_flags(b, dst, src0, src1, count, dtype, op, 0, 0);
}

void tern_packet_reduce_divide(struct tern_packet_builder *b, uint64_t dst,
			       uint64_t src0, uint64_t src1, uint64_t count,
			       uint16_t dtype, uint32_t divisor)
{
	tern_packet_reduce_flags(b, dst, src0, src1, count, dtype,
				 DRM_TERN_REDOP_SUM, DRM_TERN_REDUCE_DIVIDE, divisor);
}
