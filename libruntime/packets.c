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
	       TERN_PACKET_MAX_BYTES &&
	       sizeof(struct drm_tern_packet_tensor_tensor) <=
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

/* Reserves a packet of @bytes with its header; NULL if full. */
static void *tern_packet_begin(struct tern_packet_builder *b, size_t bytes,
			       uint16_t opcode, uint32_t flags)
{
	struct drm_tern_packet_header *h = tern_packet_reserve(b, bytes);

	if (h)
		tern_packet_header(h, opcode, bytes, flags);
	return h;
}

void tern_packet_append(struct tern_packet_builder *b, const void *packet,
			size_t bytes)
{
	void *at = tern_packet_reserve(b, bytes);

	if (at)
		memcpy(at, packet, bytes);
}

#define TERN_PACKET(b, T, opcode, flags) \
	((struct T *)tern_packet_begin((b), sizeof(struct T), (opcode), (flags)))

void tern_packet_dma_tile(struct tern_packet_builder *b, uint64_t va,
			  uint64_t partition_stride, uint32_t element_stride,
			  uint8_t dtype, uint16_t core,
			  const struct drm_tern_tile *tile, bool to_memory)
{
	struct drm_tern_packet_dma_tile *p =
		TERN_PACKET(b, drm_tern_packet_dma_tile, DRM_TERN_OP_DMA_TILE,
			    to_memory ? DRM_TERN_DMA_TILE_TO_MEMORY : 0);

	if (!p)
		return;
	p->va = va;
	p->partition_stride = partition_stride;
	p->element_stride = element_stride;
	p->dtype = dtype;
	p->core = core;
	p->tile = *tile;
}

void tern_packet_matmul(struct tern_packet_builder *b,
			const struct drm_tern_tile *stationary,
			const struct drm_tern_tile *moving,
			const struct drm_tern_tile *result, bool accumulate)
{
	struct drm_tern_packet_matmul *p =
		TERN_PACKET(b, drm_tern_packet_matmul, DRM_TERN_OP_MATMUL,
			    accumulate ? DRM_TERN_MATMUL_ACCUMULATE : 0);

	if (!p)
		return;
	p->stationary = *stationary;
	p->moving = *moving;
	p->result = *result;
}

void tern_packet_tensor_copy(struct tern_packet_builder *b,
			     const struct drm_tern_tile *in,
			     const struct drm_tern_tile *out, uint32_t flags)
{
	struct drm_tern_packet_tensor_copy *p =
		TERN_PACKET(b, drm_tern_packet_tensor_copy,
			    DRM_TERN_OP_TENSOR_COPY, flags);

	if (!p)
		return;
	p->in = *in;
	p->out = *out;
}

void tern_packet_tensor_tensor(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in0,
			       const struct drm_tern_tile *in1,
			       const struct drm_tern_tile *out, uint32_t op)
{
	struct drm_tern_packet_tensor_tensor *p =
		TERN_PACKET(b, drm_tern_packet_tensor_tensor,
			    DRM_TERN_OP_TENSOR_TENSOR, 0);

	if (!p)
		return;
	p->in0 = *in0;
	p->in1 = *in1;
	p->out = *out;
	p->op = op;
}

void tern_packet_tensor_scalar(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in,
			       const struct drm_tern_tile *out, uint32_t flags,
			       uint16_t op0, uint32_t operand0, uint16_t op1,
			       uint32_t operand1)
{
	struct drm_tern_packet_tensor_scalar *p =
		TERN_PACKET(b, drm_tern_packet_tensor_scalar,
			    DRM_TERN_OP_TENSOR_SCALAR, flags);

	if (!p)
		return;
	p->in = *in;
	p->out = *out;
	p->op0 = op0;
	p->operand0 = operand0;
	p->op1 = op1;
	p->operand1 = operand1;
}

void tern_packet_tensor_reduce(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in,
			       const struct drm_tern_tile *out, uint32_t op)
{
	struct drm_tern_packet_tensor_reduce *p =
		TERN_PACKET(b, drm_tern_packet_tensor_reduce,
			    DRM_TERN_OP_TENSOR_REDUCE, 0);

	if (!p)
		return;
	p->in = *in;
	p->out = *out;
	p->op = op;
}

void tern_packet_activate(struct tern_packet_builder *b,
			  const struct drm_tern_tile *in,
			  const struct drm_tern_tile *out, uint32_t flags,
			  uint16_t function, uint32_t scale, uint32_t bias,
			  uint32_t sum)
{
	struct drm_tern_packet_activate *p =
		TERN_PACKET(b, drm_tern_packet_activate, DRM_TERN_OP_ACTIVATE,
			    flags);

	if (!p)
		return;
	p->in = *in;
	p->out = *out;
	p->function = function;
	p->scale = scale;
	p->bias = bias;
	p->sum = sum;
}
