// SPDX-License-Identifier: MIT
/*
 * The chip's cores (DRM_TERN_CAP_COMPUTE): GET_INFO's shape of the chip,
 * old callers of it, queues on each engine type, each packet accepted on
 * the engines that run it and refused on the others, a matrix product
 * taken through DMA, the tensor and the vector engine of one core and
 * checked bit for bit, a DMA_TILE that faults, and each file's on-chip
 * memory: zeroed, private, counted in the host memory budget and freed
 * with the file. Without cores (mock_cores=0) only the GET_INFO cases
 * run; the others skip.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "float_ref.h"
#include "uapi.h"

/* A module parameter of tern.ko, or -1. */
static long long module_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/tern/parameters/%s", name);
	return uapi_read_number(path);
}

/* ---- GET_INFO ---- */

static void test_info_chip_shape(void **state)
{
	struct drm_tern_info info = uapi_get_info(uapi.fd);
	long long cores = module_param("mock_cores");
	long long dma = module_param("mock_engines");

	(void)state;
	if (dma < 0) {
		print_message("no tern.ko parameters to compare with\n");
		skip();
	}
	if (cores < 0)
		fail_msg("tern.ko has no parameter mock_cores");
	assert_int_equal(info.dma_engine_count, dma);
	assert_int_equal(info.core_count, cores);
	assert_int_equal(info.engine_count, dma + 3 * cores);
	assert_int_equal(info.pad2, 0);
	if (!cores) {
		assert_false(info.capabilities & DRM_TERN_CAP_COMPUTE);
		assert_int_equal(info.partitions, 0);
		assert_int_equal(info.sbuf_partition_bytes, 0);
		assert_int_equal(info.psum_partition_bytes, 0);
		return;
	}
	assert_true(info.capabilities & DRM_TERN_CAP_COMPUTE);
	assert_int_equal(info.partitions, DRM_TERN_PARTITIONS);
	assert_int_equal(info.sbuf_partition_bytes, module_param("mock_sbuf_kb") << 10);
	assert_int_equal(info.psum_partition_bytes, module_param("mock_psum_kb") << 10);
	assert_int_equal(info.psum_partition_bytes % DRM_TERN_PSUM_BANK_BYTES, 0);
}

/*
 * A caller built before the chip's shape was in GET_INFO passes the older,
 * smaller struct: it gets what it knows, and nothing is written past it.
 */
static void test_info_old_size(void **state)
{
	const size_t old = offsetof(struct drm_tern_info, dma_engine_count);
	struct drm_tern_info now = uapi_get_info(uapi.fd);
	union {
		struct drm_tern_info info;
		uint8_t bytes[sizeof(struct drm_tern_info) + 64];
	} buf;

	(void)state;
	memset(&buf, 0xa5, sizeof(buf));
	memset(&buf.info, 0, old);
	assert_ioctl_ok(uapi_ioctl(uapi.fd, _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
						 DRM_COMMAND_BASE + DRM_TERN_GET_INFO,
						 old), &buf));
	assert_int_equal(buf.info.engine_count, now.engine_count);
	assert_true(buf.info.capabilities == now.capabilities);
	assert_true(buf.info.device_memory_size == now.device_memory_size);
	assert_true(buf.info.host_memory_budget == now.host_memory_budget);
	for (size_t i = old; i < sizeof(buf); i++)
		if (buf.bytes[i] != 0xa5)
			fail_msg("byte %zu past the old struct was written", i);
}

static void test_info_pad2(void **state)
{
	struct drm_tern_info info = { .pad2 = 1 };

	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_GET_INFO, &info), EINVAL);
}

/* ---- engines and their packets ---- */

/* What engine @engine is: its type, and its core in *@core. */
static uint32_t engine_type(uint32_t engine, uint32_t *core)
{
	uint32_t dma = uapi.info.dma_engine_count;

	*core = engine < dma ? 0 : (engine - dma) / 3;
	return engine < dma ? DRM_TERN_ENGINE_DMA : (engine - dma) % 3 + 1;
}

#define ON(type)	(1u << DRM_TERN_ENGINE_##type)
#define ON_ALL		(ON(DMA) | ON(TENSOR) | ON(VECTOR) | ON(SCALAR))

/* Packets of each kind, valid wherever they may run. */
enum kind {
	K_NOP, K_TIMESTAMP, K_SEM, K_COPY, K_FILL, K_REDUCE, K_DMA_TILE,
	K_MATMUL, K_TENSOR_COPY, K_TRANSPOSE, K_TENSOR_TENSOR,
	K_TENSOR_SCALAR, K_TENSOR_REDUCE, K_ACTIVATE, K_COUNT
};

static const struct {
	const char *name;
	unsigned int engines;		/* the types that run it */
} kinds[K_COUNT] = {
	[K_NOP] = { "NOP", ON_ALL },
	[K_TIMESTAMP] = { "TIMESTAMP", ON_ALL },
	[K_SEM] = { "SEM_SIGNAL and SEM_WAIT", ON_ALL },
	[K_COPY] = { "COPY", ON(DMA) },
	[K_FILL] = { "FILL", ON(DMA) },
	[K_REDUCE] = { "REDUCE", ON(DMA) },
	[K_DMA_TILE] = { "DMA_TILE", ON(DMA) },
	[K_MATMUL] = { "MATMUL", ON(TENSOR) },
	[K_TENSOR_COPY] = { "TENSOR_COPY", ON(VECTOR) | ON(SCALAR) },
	[K_TRANSPOSE] = { "TENSOR_COPY with TRANSPOSE", ON(VECTOR) },
	[K_TENSOR_TENSOR] = { "TENSOR_TENSOR", ON(VECTOR) },
	[K_TENSOR_SCALAR] = { "TENSOR_SCALAR", ON(VECTOR) | ON(SCALAR) },
	[K_TENSOR_REDUCE] = { "TENSOR_REDUCE", ON(VECTOR) },
	[K_ACTIVATE] = { "ACTIVATE", ON(SCALAR) },
};

static struct drm_tern_tile sbuf_f32(uint16_t partitions, uint32_t offset,
				     uint32_t elements)
{
	return uapi_tile(DRM_TERN_SPACE_SBUF, DRM_TERN_DTYPE_FLOAT32, 0,
			 partitions, offset, elements);
}

#define HEADER(type, op, flag_bits) \
	{ .opcode = (op), .length = sizeof(type) / 8, .flags = (flag_bits) }

/* One packet of @kind for a job on @core, over the 4 KiB buffer @bo. */
static void emit_kind(struct uapi_stream *s, enum kind kind, uint16_t core,
		      const struct uapi_bo *bo)
{
	switch (kind) {
	case K_NOP:
		uapi_emit_nop(s, 1);
		break;
	case K_TIMESTAMP:
		uapi_emit_timestamp(s, bo->va + 4088);
		break;
	case K_SEM:
		uapi_emit_sem(s, DRM_TERN_OP_SEM_SIGNAL, 0, bo->va + 4080, 1);
		uapi_emit_sem(s, DRM_TERN_OP_SEM_WAIT, 0, bo->va + 4080, 1);
		break;
	case K_COPY:
		uapi_emit_copy(s, bo->va, bo->va + 1024, 64);
		break;
	case K_FILL:
		uapi_emit_fill(s, bo->va, 64, 0x01010101);
		break;
	case K_REDUCE: {
		struct drm_tern_packet_reduce p = {
			.header = HEADER(struct drm_tern_packet_reduce,
					 DRM_TERN_OP_REDUCE, 0),
			.src0 = bo->va, .src1 = bo->va + 256, .dst = bo->va + 512,
			.count = 16, .dtype = DRM_TERN_DTYPE_FLOAT32,
			.op = DRM_TERN_REDOP_SUM,
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	case K_DMA_TILE:
		uapi_emit_dma_tile(s, 0, core, bo->va, 64, DRM_TERN_DTYPE_FLOAT32,
				   sbuf_f32(8, 0, 16));
		break;
	case K_MATMUL: {
		struct drm_tern_packet_matmul p = {
			.header = HEADER(struct drm_tern_packet_matmul,
					 DRM_TERN_OP_MATMUL, 0),
			.stationary = sbuf_f32(8, 0, 4),
			.moving = sbuf_f32(8, 256, 16),
			.result = uapi_tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32,
					    0, 4, 0, 16),
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	case K_TENSOR_COPY:
	case K_TRANSPOSE: {
		struct drm_tern_packet_tensor_copy p = {
			.header = HEADER(struct drm_tern_packet_tensor_copy,
					 DRM_TERN_OP_TENSOR_COPY,
					 kind == K_TRANSPOSE ?
					 DRM_TERN_TENSOR_COPY_TRANSPOSE : 0),
			.in = uapi_tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32,
					0, 4, 0, 16),
			.out = kind == K_TRANSPOSE ? sbuf_f32(16, 512, 4) :
			       uapi_tile(DRM_TERN_SPACE_SBUF, DRM_TERN_DTYPE_BFLOAT16,
					 0, 4, 512, 16),
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	case K_TENSOR_TENSOR: {
		struct drm_tern_packet_tensor_tensor p = {
			.header = HEADER(struct drm_tern_packet_tensor_tensor,
					 DRM_TERN_OP_TENSOR_TENSOR, 0),
			.in0 = sbuf_f32(8, 0, 16), .in1 = sbuf_f32(8, 256, 16),
			.out = sbuf_f32(8, 0, 16), .op = DRM_TERN_ALU_ADD,
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	case K_TENSOR_SCALAR: {
		struct drm_tern_packet_tensor_scalar p = {
			.header = HEADER(struct drm_tern_packet_tensor_scalar,
					 DRM_TERN_OP_TENSOR_SCALAR,
					 DRM_TERN_SCALAR_OPERAND1_COLUMN),
			.in = sbuf_f32(8, 0, 16), .out = sbuf_f32(8, 0, 16),
			.op0 = DRM_TERN_ALU_MULTIPLY, .op1 = DRM_TERN_ALU_ADD,
			.operand0 = 0x40000000u, .operand1 = 1024,
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	case K_TENSOR_REDUCE: {
		struct drm_tern_packet_tensor_reduce p = {
			.header = HEADER(struct drm_tern_packet_tensor_reduce,
					 DRM_TERN_OP_TENSOR_REDUCE, 0),
			.in = sbuf_f32(8, 0, 16), .out = sbuf_f32(8, 1024, 1),
			.op = DRM_TERN_ALU_MAX,
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	default: {
		struct drm_tern_packet_activate p = {
			.header = HEADER(struct drm_tern_packet_activate,
					 DRM_TERN_OP_ACTIVATE, DRM_TERN_ACTIVATE_SUM),
			.in = sbuf_f32(8, 0, 16), .out = sbuf_f32(8, 0, 16),
			.function = DRM_TERN_ACT_SILU, .scale = 0x3f800000u,
			.sum = 2048,
		};

		uapi_emit_packet(s, &p, sizeof(p));
		break;
	}
	}
}

/* A queue can be made on every engine, and runs a job there. */
static void test_compute_queue_on_each_engine(void **state)
{
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_need_cores();
	uapi_emit_nop(&s, 1);
	for (uint32_t e = 0; e < uapi.info.engine_count; e++)
		assert_int_equal(uapi_run(uapi.fd, uapi_queue_create(uapi.fd, e), &s), 1);
}

/*
 * Every kind of packet, on every engine: SUBMIT takes it where its
 * engine type runs it, and the job succeeds; elsewhere SUBMIT fails with
 * EINVAL.
 */
static void test_compute_packets_on_their_engines(void **state)
{
	struct uapi_bo bo;

	(void)state;
	uapi_need_cores();
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	for (uint32_t e = 0; e < uapi.info.engine_count; e++) {
		uint32_t core, type = engine_type(e, &core);
		uint32_t queue = uapi_queue_create(uapi.fd, e);

		for (int k = 0; k < K_COUNT; k++) {
			struct uapi_stream s = { .size = 0 };
			uint32_t out = uapi_syncobj_create(uapi.fd);
			bool runs = kinds[k].engines & (1u << type);
			int err;

			/* a DMA engine names a core; the others are one */
			emit_kind(&s, (enum kind)k,
				  type == DRM_TERN_ENGINE_DMA ?
				  (uint16_t)(e % uapi.info.core_count) : (uint16_t)core,
				  &bo);
			err = uapi_submit(uapi.fd, queue, &s, out);
			if (err != (runs ? 0 : EINVAL))
				fail_msg("%s on engine %u (type %u): SUBMIT gave %s, want %s",
					 kinds[k].name, e, type,
					 err ? strerrorname_np(err) : "success",
					 runs ? "success" : "EINVAL");
			if (runs && uapi_fence_status(uapi.fd, out) != 1)
				fail_msg("%s on engine %u: the job failed", kinds[k].name, e);
			drmSyncobjDestroy(uapi.fd, out);
		}
	}
	uapi_bo_close(uapi.fd, &bo);
}

/* Tiles SUBMIT refuses, on the engine that would run the packet. */
static void test_compute_bad_tiles(void **state)
{
	const uint32_t tensor = uapi_core_engine(0, DRM_TERN_ENGINE_TENSOR);
	const uint32_t partition_bytes = uapi.info.sbuf_partition_bytes;
	struct drm_tern_packet_matmul good = {
		.header = HEADER(struct drm_tern_packet_matmul, DRM_TERN_OP_MATMUL, 0),
		.stationary = sbuf_f32(8, 0, 4),
		.moving = sbuf_f32(8, 256, 16),
		.result = uapi_tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32, 0, 4,
				    0, 16),
	};
	struct drm_tern_packet_matmul bad[8];
	struct uapi_stream s;
	struct uapi_bo bo;
	uint32_t queue;
	size_t n = 0;

	(void)state;
	uapi_need_cores();
	queue = uapi_queue_create(uapi.fd, tensor);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		bad[i] = good;
	bad[n++].stationary.partition = DRM_TERN_PARTITIONS - 4;	/* past 127 */
	bad[n++].moving.offset = 2;					/* misaligned */
	bad[n++].moving.offset = partition_bytes - 60;			/* past the end */
	bad[n++].result.space = DRM_TERN_SPACE_SBUF;			/* not in PSUM */
	bad[n++].result.offset = DRM_TERN_PSUM_BANK_BYTES - 32;		/* two banks */
	bad[n++].stationary.dtype = DRM_TERN_DTYPE_INT64;		/* no such operand */
	bad[n++].moving.pad = 1;
	bad[n++].stationary.space = 3;
	for (size_t i = 0; i < n; i++) {
		s.size = 0;
		uapi_emit_packet(&s, &bad[i], sizeof(bad[i]));
		if (uapi_submit(uapi.fd, queue, &s, 0) != EINVAL)
			fail_msg("bad MATMUL tile %zu: SUBMIT did not fail with EINVAL", i);
	}

	/* DMA_TILE: a core the chip has not, and a tile in PSUM */
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	queue = uapi_queue_create(uapi.fd, 0);
	s.size = 0;
	uapi_emit_dma_tile(&s, 0, (uint16_t)uapi.info.core_count, bo.va, 64,
			   DRM_TERN_DTYPE_FLOAT32, sbuf_f32(8, 0, 16));
	assert_errno(uapi_submit(uapi.fd, queue, &s, 0), EINVAL);
	s.size = 0;
	uapi_emit_dma_tile(&s, 0, 0, bo.va, 64, DRM_TERN_DTYPE_FLOAT32,
			   uapi_tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32, 0,
				     8, 0, 16));
	assert_errno(uapi_submit(uapi.fd, queue, &s, 0), EINVAL);
	uapi_bo_close(uapi.fd, &bo);
}

/* ---- a matrix product through one core ---- */

#define K_DIM	96
#define M_DIM	40
#define N_DIM	72

/* Mostly ordinary floats, of both signs, from 2^-7 to 2^7. */
static float random_value(void)
{
	uint32_t bits = ((uint32_t)rng() & 0x807fffffu) |
			(uint32_t)(120 + rng() % 14) << 23;

	return f32_of(bits);
}

/*
 * A[K][M] and B[K][N], float32 in device memory: DMA_TILE (DMA engine)
 * loads A into core 1's SBUF as bfloat16 and B as float32, MATMUL (core
 * 1's tensor engine) puts A^T . B into PSUM, TENSOR_COPY (its vector
 * engine) takes it to SBUF, and DMA_TILE (another DMA engine) stores it
 * in C[M][N]. The four jobs are submitted at once, last first, and
 * ordered by a semaphore each signals and the next waits for. C is
 * A's elements rounded to bfloat16 times B's, summed from -0 by fmaf in
 * K order: bit for bit.
 */
static void test_compute_matmul_through_a_core(void **state)
{
	const uint32_t dma_in = 0, dma_out = uapi_dma_engines() - 1;
	const uint32_t engines[4] = {
		dma_in, uapi_core_engine(1, DRM_TERN_ENGINE_TENSOR),
		uapi_core_engine(1, DRM_TERN_ENGINE_VECTOR), dma_out,
	};
	const struct drm_tern_tile st = uapi_tile(DRM_TERN_SPACE_SBUF,
						  DRM_TERN_DTYPE_BFLOAT16, 0,
						  K_DIM, 0, M_DIM);
	const struct drm_tern_tile mv = sbuf_f32(K_DIM, 1024, N_DIM);
	const struct drm_tern_tile psum = uapi_tile(DRM_TERN_SPACE_PSUM,
						    DRM_TERN_DTYPE_FLOAT32, 0,
						    M_DIM, 0, N_DIM);
	const struct drm_tern_tile result = sbuf_f32(M_DIM, 4096, N_DIM);
	struct drm_tern_packet_matmul matmul = {
		.header = HEADER(struct drm_tern_packet_matmul, DRM_TERN_OP_MATMUL, 0),
		.stationary = st, .moving = mv, .result = psum,
	};
	struct drm_tern_packet_tensor_copy copy = {
		.header = HEADER(struct drm_tern_packet_tensor_copy,
				 DRM_TERN_OP_TENSOR_COPY, 0),
		.in = psum, .out = result,
	};
	struct uapi_stream s[4];
	uint32_t out[4];
	struct uapi_bo a, b, c, sem;
	float *av, *bv;

	(void)state;
	uapi_need_cores();
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, K_DIM * M_DIM * 4, &a);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, K_DIM * N_DIM * 4, &b);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, M_DIM * N_DIM * 4, &c);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &sem);
	av = (float *)(void *)a.cpu;
	bv = (float *)(void *)b.cpu;
	for (int i = 0; i < K_DIM * M_DIM; i++)
		av[i] = random_value();
	for (int i = 0; i < K_DIM * N_DIM; i++)
		bv[i] = random_value();
	memset(c.cpu, 0xff, c.size);

	for (int j = 0; j < 4; j++) {
		s[j].size = 0;
		if (j)
			uapi_emit_sem(&s[j], DRM_TERN_OP_SEM_WAIT, 0, sem.va, (uint64_t)j);
	}
	uapi_emit_dma_tile(&s[0], 0, 1, a.va, M_DIM * 4, DRM_TERN_DTYPE_FLOAT32, st);
	uapi_emit_dma_tile(&s[0], 0, 1, b.va, N_DIM * 4, DRM_TERN_DTYPE_FLOAT32, mv);
	uapi_emit_packet(&s[1], &matmul, sizeof(matmul));
	uapi_emit_packet(&s[2], &copy, sizeof(copy));
	uapi_emit_dma_tile(&s[3], DRM_TERN_DMA_TILE_TO_MEMORY, 1, c.va, N_DIM * 4,
			   DRM_TERN_DTYPE_FLOAT32, result);
	for (int j = 0; j < 3; j++)
		uapi_emit_sem(&s[j], DRM_TERN_OP_SEM_SIGNAL, 0, sem.va, (uint64_t)j + 1);
	for (int j = 3; j >= 0; j--) {
		out[j] = uapi_syncobj_create(uapi.fd);
		assert_ioctl_ok(uapi_submit(uapi.fd, uapi_queue_create(uapi.fd, engines[j]),
					    &s[j], out[j]));
	}
	for (int j = 0; j < 4; j++)
		assert_int_equal(uapi_fence_status(uapi.fd, out[j]), 1);

	for (int m = 0; m < M_DIM; m++) {
		for (int n = 0; n < N_DIM; n++) {
			float acc = -0.0f;
			uint32_t got, want;

			for (int k = 0; k < K_DIM; k++) {
				float x = (float)ref_widen(ref_narrow(av[k * M_DIM + m],
								      &ref_bf16),
							   &ref_bf16);

				acc = fmaf(x, bv[k * N_DIM + n], acc);
			}
			memcpy(&got, c.cpu + (m * N_DIM + n) * 4, 4);
			want = isnan(acc) ? 0x7fc00000u : bits_of(acc);
			if (got != want)
				fail_msg("C[%d][%d] = 0x%08x, want 0x%08x", m, n, got, want);
		}
	}
	uapi_bo_close(uapi.fd, &a);
	uapi_bo_close(uapi.fd, &b);
	uapi_bo_close(uapi.fd, &c);
	uapi_bo_close(uapi.fd, &sem);
}

/*
 * A DMA_TILE whose grid leaves its buffer fails its job alone with
 * -EFAULT, like any packet that faults; the tile is unchanged and the
 * queue's next job runs.
 */
static void test_compute_dma_tile_past_its_buffer(void **state)
{
	const struct drm_tern_tile t = sbuf_f32(4, 0, 16);
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_need_cores();
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	memset(bo.cpu, 0x11, bo.size);
	/* partitions 2048 bytes apart: the last starts past the buffer */
	uapi_emit_dma_tile(&s, 0, 0, bo.va, 2048, DRM_TERN_DTYPE_FLOAT32, t);
	assert_int_equal(uapi_run(uapi.fd, queue, &s), -EFAULT);
	s.size = 0;
	uapi_emit_dma_tile(&s, DRM_TERN_DMA_TILE_TO_MEMORY, 0, bo.va, 64,
			   DRM_TERN_DTYPE_FLOAT32, t);
	assert_int_equal(uapi_run(uapi.fd, queue, &s), 1);
	for (int i = 0; i < 4 * 64; i++)
		if (bo.cpu[i])
			fail_msg("byte %d of the tile is 0x%02x: the faulting job wrote it",
				 i, bo.cpu[i]);
	uapi_bo_close(uapi.fd, &bo);
}

/* ---- each file's on-chip memory ---- */

/* Stores 4 partitions of 16 float32 of core @core's SBUF of @fd into @bo. */
static int sbuf_read(int fd, uint16_t core, struct uapi_bo *bo)
{
	struct uapi_stream s = { .size = 0 };

	uapi_emit_dma_tile(&s, DRM_TERN_DMA_TILE_TO_MEMORY, core, bo->va, 64,
			   DRM_TERN_DTYPE_FLOAT32, sbuf_f32(4, 0, 16));
	return uapi_run(fd, uapi_queue_create(fd, 0), &s);
}

/*
 * What one file writes into its SBUF it reads back; another file's SBUF
 * of the same core starts zeroed and shows nothing of it.
 */
static void test_compute_onchip_private(void **state)
{
	int other = uapi_open();
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo mine, theirs;

	(void)state;
	uapi_need_cores();
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &mine);
	uapi_bo_create(other, DRM_TERN_PLACEMENT_DEVICE, 4096, &theirs);
	memset(mine.cpu, 0x5a, 256);
	uapi_emit_dma_tile(&s, 0, 1, mine.va, 64, DRM_TERN_DTYPE_FLOAT32,
			   sbuf_f32(4, 0, 16));
	assert_int_equal(uapi_run(uapi.fd, uapi_queue_create(uapi.fd, 0), &s), 1);
	memset(mine.cpu, 0, 256);
	assert_int_equal(sbuf_read(uapi.fd, 1, &mine), 1);
	for (int i = 0; i < 256; i++)
		assert_int_equal(mine.cpu[i], 0x5a);

	memset(theirs.cpu, 0xff, 256);
	assert_int_equal(sbuf_read(other, 1, &theirs), 1);
	for (int i = 0; i < 256; i++)
		if (theirs.cpu[i])
			fail_msg("byte %d of another file's SBUF is 0x%02x, want 0", i,
				 theirs.cpu[i]);
	uapi_bo_close(other, &theirs);
	uapi_bo_close(uapi.fd, &mine);
	close(other);
}

/*
 * A file's on-chip memory takes its bytes of the host memory budget when
 * a job first needs it (a DMA engine's job the SBUF of the core it names,
 * a compute engine's job its core's SBUF and PSUM), once, and gives them
 * back when the file is closed: the memory is freed then.
 */
static void test_compute_onchip_counted_and_freed(void **state)
{
	const uint64_t sbuf = (uint64_t)DRM_TERN_PARTITIONS * uapi.info.sbuf_partition_bytes;
	const uint64_t psum = (uint64_t)DRM_TERN_PARTITIONS * uapi.info.psum_partition_bytes;
	struct uapi_stream nop = { .size = 0 };
	uint64_t base;
	struct uapi_bo bo;
	int fd;

	(void)state;
	uapi_need_cores();
	base = uapi_get_info(uapi.fd).host_memory_pinned;
	fd = uapi_open();
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	assert_int_equal(sbuf_read(fd, 0, &bo), 1);
	assert_int_equal(uapi_get_info(fd).host_memory_pinned, base + sbuf);
	assert_int_equal(sbuf_read(fd, 0, &bo), 1);
	assert_int_equal(uapi_get_info(fd).host_memory_pinned, base + sbuf);
	/* a compute engine's job without compute packets needs none */
	uapi_emit_nop(&nop, 1);
	assert_int_equal(uapi_run(fd, uapi_queue_create(fd, uapi_core_engine(1,
				  DRM_TERN_ENGINE_SCALAR)), &nop), 1);
	assert_int_equal(uapi_get_info(fd).host_memory_pinned, base + sbuf);
	nop.size = 0;
	emit_kind(&nop, K_TENSOR_COPY, 1, &bo);
	assert_int_equal(uapi_run(fd, uapi_queue_create(fd, uapi_core_engine(1,
				  DRM_TERN_ENGINE_SCALAR)), &nop), 1);
	assert_int_equal(uapi_get_info(fd).host_memory_pinned,
			 base + 2 * sbuf + psum);
	/* a mapping holds the file open */
	uapi_bo_close(fd, &bo);
	close(fd);
	assert_int_equal(uapi_get_info(uapi.fd).host_memory_pinned, base);
}

/*
 * On-chip memory past the host memory budget: SUBMIT fails with ENOMEM,
 * and succeeds once there is room again.
 */
static void test_compute_onchip_budget(void **state)
{
	const uint64_t sbuf = (uint64_t)DRM_TERN_PARTITIONS * uapi.info.sbuf_partition_bytes;
	struct drm_tern_info info = uapi_get_info(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	uint64_t room = info.host_memory_budget - info.host_memory_pinned;
	struct uapi_bo fill, bo;

	(void)state;
	uapi_need_cores();
	/* host buffers pin what they take: keep to a budget a test VM has */
	if (room > (1ull << 30) || room < sbuf) {
		print_message("host memory budget left: %llu MiB; load tern.ko with host_mem_mb=256\n",
			      (unsigned long long)(room >> 20));
		skip();
	}
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       (room - sbuf / 2) & ~((uint64_t)uapi.page_size - 1), &fill);
	uapi_emit_dma_tile(&s, 0, 0, bo.va, 64, DRM_TERN_DTYPE_FLOAT32,
			   sbuf_f32(4, 0, 16));
	assert_errno(uapi_submit(uapi.fd, queue, &s, 0), ENOMEM);
	uapi_bo_close(uapi.fd, &fill);
	assert_int_equal(uapi_run(uapi.fd, queue, &s), 1);
	uapi_bo_close(uapi.fd, &bo);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_compute_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_info_chip_shape),
		T(test_info_old_size),
		T(test_info_pad2),
		T(test_compute_queue_on_each_engine),
		T(test_compute_packets_on_their_engines),
		T(test_compute_bad_tiles),
		T(test_compute_matmul_through_a_core),
		T(test_compute_dma_tile_past_its_buffer),
		T(test_compute_onchip_private),
		T(test_compute_onchip_counted_and_freed),
		T(test_compute_onchip_budget),
	};

	return cmocka_run_group_tests_name("uapi_compute", tests, NULL, NULL);
}
