// SPDX-License-Identifier: MIT
/*
 * GEMM as programs on the cores: C = act(alpha * op(A) . op(B) + beta * C
 * + bias). C is cut into tiles of up to 128 rows (a PSUM tile's
 * partitions) and 512 columns (a bank); each core takes a rectangle of
 * them. For each block of columns the core keeps op(B)'s panel in SBUF
 * when it fits (two, so the next loads while this one is used) and
 * streams op(A)'s K tiles through four slots; each C tile accumulates its
 * K tiles in a PSUM bank of its own (the banks in turn, so the epilogue of
 * one overlaps the matmuls of the next), then:
 *
 *   t = acc * alpha'          vector engine, PSUM to SBUF, rounded
 *   t = t + (C * beta)        with beta: C loaded, scaled, added
 *   t = t + bias              with a bias: one row broadcast to all
 *   C = act(t)                scalar engine, rounded to C's type
 *
 * where alpha' = alpha * (scale_a * scale_b) in float32. Every rounding is
 * the device's, so the result is defined to the bit.
 */
#include <string.h>

#include "compute.h"

#define TILE_M		TERN_MATMUL_MAX_M
#define TILE_N		TERN_MATMUL_MAX_N
#define TILE_K		TERN_PARTITIONS
#define A_SLOTS		4
#define OUT_SLOTS	2

TERN_API void tern_gemm_options_init(tern_gemm_options_t *options)
{
	if (!options)
		return;
	memset(options, 0, sizeof(*options));
	options->alpha = 1.0f;
	options->scale_a = 1.0f;
	options->scale_b = 1.0f;
}

static uint32_t div_up(uint64_t a, uint32_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* What every core's program shares. */
struct gemm {
	const tern_matrix_t *a, *b, *c;
	const tern_gemm_options_t *o;
	uint32_t m, n, k, k_tiles;
	float alpha;
	size_t ea, eb, ec;
	/* SBUF layout, bytes into each partition */
	uint32_t a_at, b_at, b_panel, b_panels, t_at, c_at, o_at, bias_at;
	uint32_t psum_banks;
};

/* op(X)'s K tile @kt, rows or columns @first.. of @count, as a view. */
static tern_view_t gemm_view_k(const tern_matrix_t *x, bool transposed,
			       size_t es, uint32_t kt, uint32_t first)
{
	/* op(X)[k][j] of the tile: partition k, element j */
	size_t k0 = (size_t)kt * TILE_K;
	tern_view_t v;

	v.dtype = x->dtype;
	v.ptr = x->ptr;
	if (transposed) {	/* X[j][k]: k along a row */
		v.ptr.offset += ((size_t)first * x->ld + k0) * es;
		v.partition_stride = es;
		v.element_stride = (size_t)x->ld * es;
	} else {		/* X[k][j] */
		v.ptr.offset += (k0 * x->ld + first) * es;
		v.partition_stride = (size_t)x->ld * es;
		v.element_stride = es;
	}
	return v;
}

static tern_tile_t sbuf_tile(tern_dtype_t dtype, uint32_t partitions,
			     uint32_t offset, uint32_t elements)
{
	tern_tile_t t = {
		.space = TERN_SBUF, .dtype = dtype, .partitions = partitions,
		.offset = offset, .elements = elements,
	};

	return t;
}

/*
 * A C tile whose products are in PSUM @acc: its corner, its epilogue's
 * slot, and the slot of its block of columns' bias.
 */
struct gemm_c_tile {
	tern_tile_t acc;
	uint32_t m0, n0, slot, bias_slot;
};

/* The epilogue of C tile @c: PSUM to C in memory. */
static tern_status_t gemm_epilogue(const struct gemm *g, tern_program_t p,
				   const struct gemm_c_tile *c_tile)
{
	const tern_tile_t *acc = &c_tile->acc;
	uint32_t m0 = c_tile->m0, n0 = c_tile->n0, slot = c_tile->slot;
	uint32_t rows = acc->partitions, cols = acc->elements;
	tern_tile_t t = sbuf_tile(TERN_FLOAT32, rows,
				  g->t_at + slot * TILE_N * 4, cols);
	tern_tile_t out = sbuf_tile(g->c->dtype, rows,
				    g->o_at + slot * TILE_N * 4, cols);
	tern_view_t cv = {
		.ptr = tern_ptr(g->c->ptr.buffer, g->c->ptr.offset +
				((size_t)m0 * g->c->ld + n0) * g->ec),
		.partition_stride = (size_t)g->c->ld * g->ec,
		.element_stride = g->ec, .dtype = g->c->dtype,
	};
	tern_status_t s;

	s = tern_program_tensor_scalar(p, TERN_ENGINE_VECTOR, &t, acc,
				       TERN_ALU_MULTIPLY, tern_value(g->alpha),
				       TERN_ALU_NONE, tern_value(0));
	if (!s && g->o->beta != 0.0f) {
		tern_tile_t c = sbuf_tile(TERN_FLOAT32, rows,
					  g->c_at + slot * TILE_N * 4, cols);

		s = tern_program_load(p, &c, &cv);
		if (!s)
			s = tern_program_tensor_scalar(p, TERN_ENGINE_SCALAR, &c,
						       &c, TERN_ALU_MULTIPLY,
						       tern_value(g->o->beta),
						       TERN_ALU_NONE,
						       tern_value(0));
		if (!s)
			s = tern_program_tensor_tensor(p, &t, &t, TERN_ALU_ADD,
						       &c);
	}
	if (!s && g->o->bias) {
		tern_tile_t bias = sbuf_tile(TERN_FLOAT32, rows, g->bias_at +
					     c_tile->bias_slot * TILE_N * 4,
					     cols);

		s = tern_program_tensor_tensor(p, &t, &t, TERN_ALU_ADD, &bias);
	}
	if (!s)
		s = tern_program_activate(p, &out, &t, g->o->activation,
					  tern_value(1.0f), tern_value(0.0f),
					  NULL);
	if (!s)
		s = tern_program_store(p, &cv, &out);
	return s;
}

/* Loads K tile @kt of op(B)'s panel for columns @n0.. into panel @which. */
static tern_status_t gemm_load_b(const struct gemm *g, tern_program_t p,
				 uint32_t n0, uint32_t cols, uint32_t which,
				 uint32_t kt)
{
	uint32_t kk = g->k - kt * TILE_K < TILE_K ? g->k - kt * TILE_K : TILE_K;
	tern_tile_t t = sbuf_tile(g->b->dtype, kk,
				  g->b_at + which * g->b_panel +
				  kt * (uint32_t)(TILE_N * g->eb), cols);
	tern_view_t v = gemm_view_k(g->b, g->o->transpose_b, g->eb, kt, n0);

	return tern_program_load(p, &t, &v);
}

/* One core's program: C tiles [@mb0, @mb1) x [@nb0, @nb1). */
static tern_status_t gemm_program(const struct gemm *g, tern_program_t p,
				  uint32_t mb0, uint32_t mb1, uint32_t nb0,
				  uint32_t nb1)
{
	uint32_t a_next = 0, bank = 0, out_slot = 0;
	/*
	 * Each C tile's epilogue comes after the next tile's loads of A: the
	 * DMA engine takes its instructions in order, and the store would
	 * hold those loads back until the epilogue had run.
	 */
	struct gemm_c_tile held;
	bool due = false;
	tern_status_t s = TERN_SUCCESS;

	for (uint32_t nb = nb0; nb < nb1 && !s; nb++) {
		uint32_t n0 = nb * TILE_N;
		uint32_t cols = g->n - n0 < TILE_N ? g->n - n0 : TILE_N;
		uint32_t panel = (nb - nb0) % g->b_panels;

		/* two, as the last block's last epilogue comes after this */
		if (g->o->bias) {
			tern_tile_t bias = sbuf_tile(TERN_FLOAT32, TILE_M,
						     g->bias_at + (nb % 2) *
						     TILE_N * 4, cols);
			tern_view_t v = {
				.ptr = tern_ptr(g->o->bias->buffer,
						g->o->bias->offset + n0 * 4),
				.partition_stride = 0, .element_stride = 4,
				.dtype = TERN_FLOAT32,
			};

			s = tern_program_load(p, &bias, &v);
		}
		for (uint32_t mb = mb0; mb < mb1 && !s; mb++) {
			uint32_t m0 = mb * TILE_M;
			uint32_t rows = g->m - m0 < TILE_M ? g->m - m0 : TILE_M;
			tern_tile_t acc = {
				.space = TERN_PSUM, .dtype = TERN_FLOAT32,
				.partitions = rows,
				.offset = bank * TERN_PSUM_BANK_BYTES,
				.elements = cols,
			};

			for (uint32_t kt = 0; kt < g->k_tiles && !s; kt++) {
				uint32_t kk = g->k - kt * TILE_K < TILE_K ?
					      g->k - kt * TILE_K : TILE_K;
				tern_tile_t at = sbuf_tile(g->a->dtype, kk,
					g->a_at + a_next * TILE_M *
						  (uint32_t)g->ea, rows);
				tern_tile_t bt = sbuf_tile(g->b->dtype, kk,
					g->b_at + panel * g->b_panel +
					kt * (uint32_t)(TILE_N * g->eb), cols);
				tern_view_t av = gemm_view_k(g->a,
							     !g->o->transpose_a,
							     g->ea, kt, m0);

				a_next = (a_next + 1) % A_SLOTS;
				/*
				 * The panel's K tiles beside the first row of
				 * tiles' A: its matmuls start with the first
				 * of them, not once the whole panel is in.
				 */
				if (mb == mb0)
					s = gemm_load_b(g, p, n0, cols, panel,
							kt);
				if (!s)
					s = tern_program_load(p, &at, &av);
				if (!s)
					s = tern_program_matmul(p, &acc, &at,
								&bt, kt > 0);
			}
			if (!s && due)
				s = gemm_epilogue(g, p, &held);
			due = true;
			held.acc = acc;
			held.m0 = m0;
			held.n0 = n0;
			held.slot = out_slot;
			held.bias_slot = nb % 2;
			out_slot = (out_slot + 1) % OUT_SLOTS;
			bank = (bank + 1) % g->psum_banks;
		}
	}
	if (!s && due)
		s = gemm_epilogue(g, p, &held);
	return s;
}

static tern_status_t gemm_check(struct gemm *g, struct tern_device *dev)
{
	const tern_gemm_options_t *o = g->o;
	uint32_t ak = o->transpose_a ? g->a->rows : g->a->cols;
	uint32_t bk = o->transpose_b ? g->b->cols : g->b->rows;
	uint32_t bn = o->transpose_b ? g->b->rows : g->b->cols;

	if (!tern_matrix_ok(g->a, dev, "tern_gemm", "A", true) ||
	    !tern_matrix_ok(g->b, dev, "tern_gemm", "B", true) ||
	    !tern_matrix_ok(g->c, dev, "tern_gemm", "C", false))
		return TERN_ERROR_INVALID_ARGUMENT;
	g->m = o->transpose_a ? g->a->cols : g->a->rows;
	g->k = ak;
	g->n = bn;
	if (ak != bk || g->c->rows != g->m || g->c->cols != g->n) {
		tern_set_last_error("tern_gemm: op(A) is %u x %u, op(B) %u x %u and C %u x %u; they must be M x K, K x N and M x N",
				    g->m, ak, bk, bn, g->c->rows, g->c->cols);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	g->ea = tern_dtype_bytes(g->a->dtype);
	g->eb = tern_dtype_bytes(g->b->dtype);
	g->ec = tern_dtype_bytes(g->c->dtype);
	if (tern_matrices_overlap(g->a, g->c) ||
	    tern_matrices_overlap(g->b, g->c)) {
		tern_set_last_error("tern_gemm: A or B overlaps C");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (o->bias) {
		tern_matrix_t bias = tern_matrix(*o->bias, TERN_FLOAT32, 1,
						 g->n);

		if (!tern_matrix_ok(&bias, dev, "tern_gemm", "the bias",
				    false))
			return TERN_ERROR_INVALID_ARGUMENT;
		if (tern_matrices_overlap(&bias, g->c)) {
			tern_set_last_error("tern_gemm: the bias overlaps C");
			return TERN_ERROR_INVALID_ARGUMENT;
		}
	}
	if ((unsigned int)o->activation >= TERN_ACTIVATION_COUNT) {
		tern_set_last_error("tern_gemm: activation %d is none of tern_activation_t",
				    (int)o->activation);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

/*
 * Places the tiles in each partition of SBUF: A's slots, the epilogue's,
 * two blocks' bias, then op(B)'s panels with what is left (two if they
 * fit, one otherwise). TERN_ERROR_NOT_SUPPORTED if not even one fits.
 */
static tern_status_t gemm_layout(struct gemm *g, const struct tern_device *dev)
{
	const struct tern_core_shape *shape = &dev->info.cores;
	uint32_t at = 0;

	g->a_at = at;
	at += A_SLOTS * TILE_M * (uint32_t)g->ea;
	g->t_at = at;
	at += OUT_SLOTS * TILE_N * 4;
	g->c_at = at;
	at += OUT_SLOTS * TILE_N * 4;
	g->o_at = at;
	at += OUT_SLOTS * TILE_N * 4;
	g->bias_at = at;
	at += 2 * TILE_N * 4;
	g->b_at = at;
	g->k_tiles = div_up(g->k, TILE_K);
	g->b_panel = g->k_tiles * TILE_N * (uint32_t)g->eb;
	g->psum_banks = shape->psum_partition_bytes / TERN_PSUM_BANK_BYTES;
	if ((uint64_t)g->b_at + 2 * (uint64_t)g->b_panel <=
	    shape->sbuf_partition_bytes)
		g->b_panels = 2;
	else if ((uint64_t)g->b_at + g->b_panel <= shape->sbuf_partition_bytes)
		g->b_panels = 1;
	else {
		tern_set_last_error("tern_gemm: K = %u of %s needs %u bytes of SBUF a partition for B's panel; the core has %u",
				    g->k, tern_dtype_name(g->b->dtype),
				    g->b_at + g->b_panel,
				    shape->sbuf_partition_bytes);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	return g->psum_banks ? TERN_SUCCESS : TERN_ERROR_NOT_SUPPORTED;
}

TERN_API tern_status_t tern_gemm(const tern_matrix_t *a, const tern_matrix_t *b,
				 const tern_matrix_t *c,
				 const tern_gemm_options_t *options,
				 tern_stream_t stream)
{
	struct tern_program *programs[64];
	tern_gemm_options_t defaults;
	struct tern_device *dev;
	uint32_t cores, mblocks, nblocks, cn, cm, used = 0;
	struct gemm g;
	tern_status_t s;

	if (!a || !b || !c || !tern_handle_valid(stream, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	dev = stream->device;
	if (!options) {
		tern_gemm_options_init(&defaults);
		options = &defaults;
	}
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_COMPUTE)) {
		tern_set_last_error("tern_gemm: device %d has no compute engines",
				    dev->index);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	memset(&g, 0, sizeof(g));
	g.a = a;
	g.b = b;
	g.c = c;
	g.o = options;
	s = gemm_check(&g, dev);
	if (!s)
		s = gemm_layout(&g, dev);
	if (s)
		return s;
	cores = options->cores ? options->cores : dev->info.cores.cores;
	if (cores > dev->info.cores.cores || cores > 64) {
		tern_set_last_error("tern_gemm: %u cores asked for; the device has %u",
				    cores, dev->info.cores.cores);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	g.alpha = options->alpha * (options->scale_a * options->scale_b);
	mblocks = div_up(g.m, TILE_M);
	nblocks = div_up(g.n, TILE_N);
	/* columns of tiles first, so each core keeps B's panels to itself */
	cn = nblocks < cores ? nblocks : cores;
	cm = mblocks < cores / cn ? mblocks : cores / cn;
	for (uint32_t i = 0; i < cn && !s; i++)
		for (uint32_t j = 0; j < cm && !s; j++) {
			s = tern_program_create(dev, used, &programs[used]);
			if (s)
				break;
			used++;
			s = gemm_program(&g, programs[used - 1],
					 mblocks * j / cm, mblocks * (j + 1) / cm,
					 nblocks * i / cn, nblocks * (i + 1) / cn);
		}
	if (!s)
		s = tern_programs_launch(programs, used, stream);
	for (uint32_t i = 0; i < used; i++)
		tern_program_destroy(programs[i]);
	return s;
}
