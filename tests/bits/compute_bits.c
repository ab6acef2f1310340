// SPDX-License-Identifier: MIT
/*
 * test_compute_bits: every compute instruction on millions of random
 * elements, run through libtern on the backend TERN_BACKEND picks, and a
 * digest per instruction of what it left in device memory. tern.ko
 * computes with integers and the simulator with the FPU: the spec
 * (Documentation/compute.rst) makes their bits the same, and
 * tests/vm-suite.sh runs this program on both and compares the lines.
 *
 * Usage: test_compute_bits [--elements N]
 * Prints, per instruction, "<name> <elements> <digest>": N elements
 * (multiply-adds for matmul) at least, 2^21 by default. Exits 1 when the
 * device cannot run it or an instruction fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tern.h"
#include "tern_compute.h"

/* One instruction's tiles: 128 partitions of FREE elements. */
#define FREE		512
#define MATMUL_M	64
#define MATMUL_N	32
/* Bytes of device memory for each input and for the output. */
#define SLOT		((size_t)TERN_PARTITIONS * (FREE + 1) * 4)

static const tern_dtype_t float_types[] = {
	TERN_FLOAT32, TERN_BFLOAT16, TERN_FLOAT16, TERN_FLOAT8_E4M3,
	TERN_FLOAT8_E5M2,
};
#define FLOAT_TYPES	(sizeof(float_types) / sizeof(float_types[0]))

static const tern_dtype_t all_types[] = {
	TERN_FLOAT32, TERN_BFLOAT16, TERN_FLOAT16, TERN_FLOAT8_E4M3,
	TERN_FLOAT8_E5M2, TERN_INT32, TERN_UINT32, TERN_INT8, TERN_UINT8,
};
#define ALL_TYPES	(sizeof(all_types) / sizeof(all_types[0]))

struct bits {
	tern_device_t dev;
	tern_stream_t stream;
	uint32_t core;
	tern_buffer_t buf;
	uint8_t *cpu;		/* inputs at 0 and SLOT, the output at 2 * SLOT */
	uint64_t rng;
	unsigned long long elements;
	unsigned long long digest;
};

static uint32_t next(struct bits *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (uint32_t)(b->rng >> 16);
}

static size_t dtype_size(tern_dtype_t dtype)
{
	size_t n = 0;

	tern_dtype_size(dtype, &n);
	return n;
}

/*
 * Random elements of @dtype: mostly ordinary numbers (exponents near 1,
 * where the functions do their work), one in sixteen any bits at all
 * (zeros, subnormals, infinities, NaNs).
 */
static void fill(struct bits *b, size_t at, tern_dtype_t dtype, size_t count)
{
	size_t size = dtype_size(dtype);
	uint8_t *p = b->cpu + at;

	for (size_t i = 0; i < count; i++, p += size) {
		uint32_t w = next(b);
		bool any = !(next(b) & 15);

		if (dtype == TERN_FLOAT32 && !any)
			w = (w & 0x807fffffu) | (116 + next(b) % 20) << 23;
		if (dtype == TERN_BFLOAT16 && !any)
			w = (w & 0x807fu) | (116 + next(b) % 20) << 7;
		if (dtype == TERN_FLOAT16 && !any)
			w = (w & 0x83ffu) | (8 + next(b) % 14) << 10;
		memcpy(p, &w, size);
	}
}

static tern_tile_t sbuf(tern_dtype_t dtype, uint32_t partitions,
			uint32_t offset, uint32_t elements)
{
	tern_tile_t t = {
		.space = TERN_SBUF, .dtype = dtype, .partitions = partitions,
		.offset = offset, .elements = elements,
	};

	return t;
}

/* Slot @slot of device memory as rows of @t's shape, of @dtype. */
static tern_view_t view(struct bits *b, size_t slot, tern_dtype_t dtype,
			const tern_tile_t *t)
{
	size_t es = dtype_size(dtype);
	tern_view_t v = {
		.ptr = tern_ptr(b->buf, slot * SLOT),
		.partition_stride = t->elements * es,
		.element_stride = es,
		.dtype = dtype,
	};

	return v;
}

/* SBUF offsets of a core: inputs, the output and the scalar columns. */
enum { IN0 = 0, IN1 = 8192, OUT = 16384, COLUMNS = 24576 };

/*
 * Runs @p (which ends by storing @out to slot 2 as @out_type), then adds
 * that slot to the digest. The output slot is filled with one byte first,
 * so what the store did not write shows too.
 */
static int run(struct bits *b, tern_program_t p, const tern_tile_t *out,
	       tern_dtype_t out_type, const char *what)
{
	tern_view_t ov = view(b, 2, out_type, out);
	size_t bytes = (size_t)out->partitions * out->elements *
		       dtype_size(out_type);
	size_t untouched = 0;
	tern_status_t st;

	memset(b->cpu + 2 * SLOT, 0xa5, SLOT);
	st = tern_program_store(p, &ov, out);
	if (st == TERN_SUCCESS)
		st = tern_program_launch(p, b->stream);
	if (st == TERN_SUCCESS)
		st = tern_stream_synchronize(b->stream);
	tern_program_destroy(p);
	if (st != TERN_SUCCESS) {
		fprintf(stderr, "test_compute_bits: %s: %s: %s\n", what,
			tern_status_string(st), tern_get_last_error());
		return -1;
	}
	/* a backend that did nothing would agree with another that did not */
	for (size_t i = 0; i < bytes; i++)
		untouched += b->cpu[2 * SLOT + i] == 0xa5;
	if (untouched > bytes / 2) {
		fprintf(stderr, "test_compute_bits: %s: %zu of %zu bytes not written\n",
			what, untouched, bytes);
		return -1;
	}
	for (size_t i = 0; i < bytes; i++)
		b->digest = (b->digest ^ b->cpu[2 * SLOT + i]) *
			    0x100000001b3ull;
	return 0;
}

/* A program with @in (of its own type, or of @mem_type in memory) loaded. */
static tern_program_t program(struct bits *b, size_t slot,
			      const tern_tile_t *in, tern_dtype_t mem_type)
{
	tern_program_t p = NULL;
	tern_view_t v = view(b, slot, mem_type, in);

	fill(b, slot * SLOT, mem_type, (size_t)in->partitions * in->elements);
	if (tern_program_create(b->dev, b->core, &p) != TERN_SUCCESS ||
	    tern_program_load(p, in, &v) != TERN_SUCCESS) {
		fprintf(stderr, "test_compute_bits: program: %s\n",
			tern_get_last_error());
		exit(1);
	}
	return p;
}

static void check(tern_status_t st)
{
	if (st != TERN_SUCCESS) {
		fprintf(stderr, "test_compute_bits: instruction refused: %s\n",
			tern_get_last_error());
		exit(1);
	}
}

/* DMA_TILE: loads from one type into another, and stores into a third. */
static int dma(struct bits *b, uint32_t i)
{
	tern_dtype_t from = all_types[i % ALL_TYPES];
	tern_dtype_t to = all_types[(i / ALL_TYPES + i) % ALL_TYPES];
	tern_dtype_t back = all_types[(i * 7 + 3) % ALL_TYPES];
	tern_tile_t t = sbuf(to, TERN_PARTITIONS, OUT, FREE);

	b->elements += 2ull * TERN_PARTITIONS * FREE;
	return run(b, program(b, 0, &t, from), &t, back, "dma");
}

/*
 * MATMUL: a K = 128 product of two input types into PSUM, every other one
 * accumulating onto a first product, read out by the vector engine.
 */
static int matmul(struct bits *b, uint32_t i)
{
	tern_tile_t st = sbuf(float_types[i % FLOAT_TYPES], TERN_PARTITIONS,
			      IN0, MATMUL_M);
	tern_tile_t mv = sbuf(float_types[(i / FLOAT_TYPES + i) % FLOAT_TYPES],
			      TERN_PARTITIONS, IN1, MATMUL_N);
	tern_tile_t acc = { TERN_PSUM, TERN_FLOAT32, 0, MATMUL_M, 2048,
			    MATMUL_N };
	tern_tile_t out = sbuf(TERN_FLOAT32, MATMUL_M, OUT, MATMUL_N);
	tern_program_t p = program(b, 0, &st, st.dtype);
	tern_view_t v = view(b, 1, mv.dtype, &mv);

	fill(b, SLOT, mv.dtype, (size_t)TERN_PARTITIONS * MATMUL_N);
	check(tern_program_load(p, &mv, &v));
	check(tern_program_matmul(p, &acc, &st, &mv, false));
	b->elements += (unsigned long long)TERN_PARTITIONS * MATMUL_M *
		       MATMUL_N;
	/* every other one a chain of 256: the same product added again */
	if (i & 1) {
		check(tern_program_matmul(p, &acc, &st, &mv, true));
		b->elements += (unsigned long long)TERN_PARTITIONS * MATMUL_M *
			       MATMUL_N;
	}
	check(tern_program_copy(p, TERN_ENGINE_VECTOR, &out, &acc, false));
	return run(b, p, &out, TERN_FLOAT32, "matmul");
}

/* TENSOR_COPY: casts among every type, and transposes of 128 x 128. */
static int copy(struct bits *b, uint32_t i)
{
	tern_dtype_t from = all_types[i % ALL_TYPES];
	tern_dtype_t to = all_types[(i / ALL_TYPES + 2 * i + 1) % ALL_TYPES];
	bool transpose = i % 4 == 3;
	uint32_t free = transpose ? TERN_PARTITIONS : FREE;
	tern_tile_t in = sbuf(from, TERN_PARTITIONS, IN0, free);
	tern_tile_t out = sbuf(to, TERN_PARTITIONS, OUT, free);
	tern_program_t p = program(b, 0, &in, from);

	/* transposes are the vector engine's alone */
	check(tern_program_copy(p, i & 1 && !transpose ? TERN_ENGINE_SCALAR :
				TERN_ENGINE_VECTOR, &out, &in, transpose));
	b->elements += (unsigned long long)TERN_PARTITIONS * free;
	return run(b, p, &out, to, "copy");
}

/* TENSOR_TENSOR: every operation on every pair of types. */
static int tensor_tensor(struct bits *b, uint32_t i)
{
	tern_alu_op_t op = (tern_alu_op_t)(TERN_ALU_ADD + i % 5);
	tern_tile_t in0 = sbuf(all_types[i / 5 % ALL_TYPES], TERN_PARTITIONS,
			       IN0, FREE);
	tern_tile_t in1 = sbuf(float_types[i % FLOAT_TYPES], TERN_PARTITIONS,
			       IN1, FREE);
	tern_tile_t out = sbuf(all_types[(i * 3 + 1) % ALL_TYPES],
			       TERN_PARTITIONS, OUT, FREE);
	tern_program_t p = program(b, 0, &in0, in0.dtype);
	tern_view_t v = view(b, 1, in1.dtype, &in1);

	fill(b, SLOT, in1.dtype, (size_t)TERN_PARTITIONS * FREE);
	check(tern_program_load(p, &in1, &v));
	check(tern_program_tensor_tensor(p, &out, &in0, op, &in1));
	b->elements += (unsigned long long)TERN_PARTITIONS * FREE;
	return run(b, p, &out, out.dtype, "tensor_tensor");
}

/*
 * A random float32 operand: a value, or a column of random values loaded
 * into SBUF at @at (COLUMNS or the float32 after it) from slot 1.
 */
static tern_operand_t operand(struct bits *b, tern_program_t p, uint32_t at)
{
	tern_tile_t col = sbuf(TERN_FLOAT32, TERN_PARTITIONS, at, 1);
	tern_view_t v = view(b, 1, TERN_FLOAT32, &col);
	uint32_t w = (next(b) & 0x807fffffu) | (120 + next(b) % 12) << 23;
	float value;

	if (next(b) & 1) {
		memcpy(&value, &w, 4);
		return tern_value(value);
	}
	v.ptr.offset += (at - COLUMNS) * TERN_PARTITIONS;
	fill(b, v.ptr.offset, TERN_FLOAT32, TERN_PARTITIONS);
	check(tern_program_load(p, &col, &v));
	return tern_column(at);
}

/* TENSOR_SCALAR: two operations with values or columns, either engine. */
static int tensor_scalar(struct bits *b, uint32_t i)
{
	tern_tile_t in = sbuf(float_types[i % FLOAT_TYPES], TERN_PARTITIONS,
			      IN0, FREE);
	tern_tile_t out = sbuf(all_types[(i * 5 + 2) % ALL_TYPES],
			       TERN_PARTITIONS, OUT, FREE);
	tern_program_t p = program(b, 0, &in, in.dtype);
	tern_alu_op_t op0 = (tern_alu_op_t)(TERN_ALU_ADD + i % 5);
	tern_alu_op_t op1 = (tern_alu_op_t)((i / 5 + 2) % 6);
	tern_operand_t s0 = operand(b, p, COLUMNS);
	tern_operand_t s1 = op1 == TERN_ALU_NONE ? tern_value(0.0f) :
			    operand(b, p, COLUMNS + 4);

	check(tern_program_tensor_scalar(p, i & 1 ? TERN_ENGINE_SCALAR :
					 TERN_ENGINE_VECTOR, &out, &in, op0,
					 s0, op1, s1));
	b->elements += (unsigned long long)TERN_PARTITIONS * FREE;
	return run(b, p, &out, out.dtype, "tensor_scalar");
}

/* TENSOR_REDUCE: sums and maxima of rows of every float type. */
static int reduce(struct bits *b, uint32_t i)
{
	tern_tile_t in = sbuf(float_types[i % FLOAT_TYPES], TERN_PARTITIONS,
			      IN0, FREE);
	tern_tile_t out = sbuf(TERN_FLOAT32, TERN_PARTITIONS, OUT, 1);
	tern_program_t p = program(b, 0, &in, in.dtype);

	check(tern_program_reduce(p, &out, &in, i / FLOAT_TYPES & 1 ?
				  TERN_ALU_MAX : TERN_ALU_ADD));
	b->elements += (unsigned long long)TERN_PARTITIONS * FREE;
	return run(b, p, &out, TERN_FLOAT32, "reduce");
}

/*
 * ACTIVATE: every function, scale and bias values or columns, with the
 * sum of each partition beside the result (stored with it: the sums are
 * the column after the output's row in SBUF).
 */
static int activate(struct bits *b, uint32_t i)
{
	tern_activation_t fn = (tern_activation_t)(i % TERN_ACTIVATION_COUNT);
	tern_tile_t in = sbuf(float_types[i / TERN_ACTIVATION_COUNT %
					  FLOAT_TYPES], TERN_PARTITIONS, IN0,
			      FREE);
	tern_tile_t res = sbuf(TERN_FLOAT32, TERN_PARTITIONS, OUT, FREE);
	tern_tile_t out = sbuf(TERN_FLOAT32, TERN_PARTITIONS, OUT, FREE + 1);
	uint32_t sum = OUT + FREE * 4;
	tern_program_t p = program(b, 0, &in, in.dtype);
	tern_operand_t scale = operand(b, p, COLUMNS);
	tern_operand_t bias = operand(b, p, COLUMNS + 4);

	check(tern_program_activate(p, &res, &in, fn, scale, bias, &sum));
	b->elements += (unsigned long long)TERN_PARTITIONS * FREE;
	return run(b, p, &out, TERN_FLOAT32, "activate");
}

static const struct instruction {
	const char *name;
	int (*run)(struct bits *b, uint32_t i);
} instructions[] = {
	{ "dma", dma },
	{ "matmul", matmul },
	{ "copy", copy },
	{ "tensor_tensor", tensor_tensor },
	{ "tensor_scalar", tensor_scalar },
	{ "reduce", reduce },
	{ "activate", activate },
};

int main(int argc, char **argv)
{
	unsigned long long want = 1ull << 21;
	struct bits b = { 0 };
	tern_compute_info_t info;
	const char *dev = getenv("TERN_TEST_DEVICE");
	char *end;

	if (argc == 3 && !strcmp(argv[1], "--elements")) {
		want = strtoull(argv[2], &end, 0);
		if (*end || !want) {
			fprintf(stderr, "test_compute_bits: --elements wants a positive count, not '%s'\n",
				argv[2]);
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: test_compute_bits [--elements N]\n");
		return 2;
	}
	if (tern_device_open(dev ? atoi(dev) : 0, &b.dev) != TERN_SUCCESS ||
	    tern_device_get_compute(b.dev, &info) != TERN_SUCCESS ||
	    tern_stream_create(b.dev, &b.stream) != TERN_SUCCESS ||
	    tern_buffer_alloc(b.dev, TERN_MEMORY_DEVICE, 3 * SLOT,
			      &b.buf) != TERN_SUCCESS ||
	    tern_buffer_map(b.buf, (void **)&b.cpu) != TERN_SUCCESS) {
		fprintf(stderr, "test_compute_bits: no device to compute on: %s\n",
			tern_get_last_error());
		return 1;
	}
	b.core = info.cores - 1;
	for (size_t n = 0; n < sizeof(instructions) / sizeof(instructions[0]);
	     n++) {
		b.rng = 0x9e3779b97f4a7c15ull + n;
		b.elements = 0;
		b.digest = 0xcbf29ce484222325ull;
		for (uint32_t i = 0; b.elements < want; i++)
			if (instructions[n].run(&b, i))
				return 1;
		printf("%-14s %10llu %016llx\n", instructions[n].name,
		       b.elements, b.digest);
		fflush(stdout);
	}
	tern_buffer_free(b.buf);
	tern_stream_destroy(b.stream);
	tern_device_close(b.dev);
	return 0;
}
