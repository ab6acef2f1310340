/* SPDX-License-Identifier: MIT */
/*
 * Building packet streams (uapi/drm/tern_accel.h, packet format v1).
 *
 * Internal to libtern, but part of libtern.a so that tests can build
 * streams the same way the library does.
 */
#ifndef TERN_PACKETS_H
#define TERN_PACKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A stream being built in caller-provided memory (8-byte aligned). */
struct tern_packet_builder {
	uint8_t *buf;
	size_t capacity;	/* bytes */
	size_t size;		/* bytes written so far */
	bool overflow;		/* a packet did not fit and was dropped */
};

void tern_packets_init(struct tern_packet_builder *b, void *buf,
		       size_t capacity);
/* NOP spanning @length 8-byte units (>= 1). */
void tern_packet_nop(struct tern_packet_builder *b, uint16_t length);
void tern_packet_copy(struct tern_packet_builder *b, uint64_t dst,
		      uint64_t src, uint64_t bytes);
void tern_packet_fill(struct tern_packet_builder *b, uint64_t dst,
		      uint64_t bytes, uint32_t pattern);
void tern_packet_timestamp(struct tern_packet_builder *b, uint64_t dst);
void tern_packet_sem_signal(struct tern_packet_builder *b, uint64_t addr,
			    uint64_t value, bool add);
void tern_packet_sem_wait(struct tern_packet_builder *b, uint64_t addr,
			  uint64_t value, bool equal);
/*
 * SEM_WAIT that fails the job once the u64 at @abort_addr is not zero
 * (DRM_TERN_SEM_ABORT_CANCEL: cancelled; anything else: a peer failed).
 */
void tern_packet_sem_wait_abort(struct tern_packet_builder *b, uint64_t addr,
				uint64_t value, uint64_t abort_addr,
				bool equal);
/*
 * dst[i] = src0[i] @op src1[i] for @count elements of @dtype (enum
 * drm_tern_dtype, enum drm_tern_redop; tern_dtype_t and tern_redop_t have
 * the same values).
 */
void tern_packet_reduce(struct tern_packet_builder *b, uint64_t dst,
			uint64_t src0, uint64_t src1, uint64_t count,
			uint16_t dtype, uint16_t op);
/*
 * dst[i] = (src0[i] + src1[i]) / @divisor (>= 1): a SUM with
 * DRM_TERN_REDUCE_DIVIDE, the last step of an average.
 */
void tern_packet_reduce_divide(struct tern_packet_builder *b, uint64_t dst,
			       uint64_t src0, uint64_t src1, uint64_t count,
			       uint16_t dtype, uint32_t divisor);

/* A whole packet built elsewhere (@bytes, a multiple of 8), as it is. */
void tern_packet_append(struct tern_packet_builder *b, const void *packet,
			size_t bytes);

/* ---- on-chip memory and the compute engines (Documentation/compute.rst) ---- */

struct drm_tern_tile;

/*
 * @tile of core @core's SBUF from device memory at @va (element [p][f] at
 * @va + p * @partition_stride + f * @element_stride, of @dtype) or, with
 * @to_memory, to it.
 */
void tern_packet_dma_tile(struct tern_packet_builder *b, uint64_t va,
			  uint64_t partition_stride, uint32_t element_stride,
			  uint8_t dtype, uint16_t core,
			  const struct drm_tern_tile *tile, bool to_memory);
/* @result (PSUM) = (or +=, @accumulate) @stationary^T . @moving. */
void tern_packet_matmul(struct tern_packet_builder *b,
			const struct drm_tern_tile *stationary,
			const struct drm_tern_tile *moving,
			const struct drm_tern_tile *result, bool accumulate);
/* @out = @in converted (transposed with DRM_TERN_TENSOR_COPY_TRANSPOSE). */
void tern_packet_tensor_copy(struct tern_packet_builder *b,
			     const struct drm_tern_tile *in,
			     const struct drm_tern_tile *out, uint32_t flags);
/* @out = @in0 @op @in1 (enum drm_tern_alu_op). */
void tern_packet_tensor_tensor(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in0,
			       const struct drm_tern_tile *in1,
			       const struct drm_tern_tile *out, uint32_t op);
/*
 * @out = (@in @op0 s0) @op1 s1: @operand0 and @operand1 float32 bits, or
 * SBUF columns with DRM_TERN_SCALAR_OPERAND*_COLUMN in @flags.
 */
void tern_packet_tensor_scalar(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in,
			       const struct drm_tern_tile *out, uint32_t flags,
			       uint16_t op0, uint32_t operand0, uint16_t op1,
			       uint32_t operand1);
/* @out[p][0] = @in[p][0] @op @in[p][1] ... (ADD or MAX). */
void tern_packet_tensor_reduce(struct tern_packet_builder *b,
			       const struct drm_tern_tile *in,
			       const struct drm_tern_tile *out, uint32_t op);
/*
 * @out = @function(fma(@in, scale, bias)); @flags DRM_TERN_ACTIVATE_*
 * say which of @scale and @bias are columns and whether @sum is written.
 */
void tern_packet_activate(struct tern_packet_builder *b,
			  const struct drm_tern_tile *in,
			  const struct drm_tern_tile *out, uint32_t flags,
			  uint16_t function, uint32_t scale, uint32_t bias,
			  uint32_t sum);

/* Bytes of the largest packet above: enough room for any one of them. */
#define TERN_PACKET_MAX_BYTES	64

#endif /* TERN_PACKETS_H */
