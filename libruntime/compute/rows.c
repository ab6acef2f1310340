// SPDX-License-Identifier: MIT
/*
 * What the row kernels share: their matrices cut into blocks of up to 128
 * rows, one row to a partition, loaded as float32 tiles, a body of engine
 * instructions per block from the kernel, and the results stored; the
 * blocks of a core alternate between two sets of tiles, so one block's
 * loads and stores overlap the last one's work. Sums down the rows (a
 * bias's gradient) are matmuls of a column of ones by each block,
 * accumulated in PSUM over the blocks of one core.
 */
#include <string.h>

#include "rows.h"
#include "submit.h"

#define SLOTS		2
#define SUM_CHUNK	TERN_MATMUL_MAX_N

/* 128 float32 ones in device memory, made once per device. */
static tern_status_t rows_ones(struct tern_device *dev, tern_ptr_t *ones)
{
	struct tern_compute *c = dev->compute;
	tern_status_t s = TERN_SUCCESS;
	float *cpu;

	pthread_mutex_lock(&c->lock);
	if (!c->ones) {
		s = tern_buffer_alloc_internal(dev, TERN_MEMORY_DEVICE,
					       TERN_PARTITIONS * 4, &c->ones,
					       (void **)&cpu);
		for (uint32_t i = 0; !s && i < TERN_PARTITIONS; i++)
			cpu[i] = 1.0f;
	}
	*ones = tern_ptr(c->ones, 0);
	pthread_mutex_unlock(&c->lock);
	return s;
}

static tern_tile_t rows_tile(tern_dtype_t dtype, uint32_t rows, uint32_t at,
			     uint32_t cols)
{
	tern_tile_t t = {
		.space = TERN_SBUF, .dtype = dtype, .partitions = rows,
		.offset = at, .elements = cols,
	};

	return t;
}

/* Rows @row0.. of @m as a view: a row to a partition. */
static tern_view_t rows_view(const tern_matrix_t *m, uint32_t row0)
{
	size_t es = tern_dtype_bytes(m->dtype);
	tern_view_t v = {
		.ptr = tern_ptr(m->ptr.buffer,
				m->ptr.offset + (size_t)row0 * m->ld * es),
		.partition_stride = (size_t)m->ld * es,
		.element_stride = es, .dtype = m->dtype,
	};

	return v;
}

/* Elements @first.. of a float32 vector, one to a partition or (@across) in a row. */
static tern_view_t rows_vector(tern_ptr_t v, uint32_t first, bool across,
			       bool broadcast)
{
	tern_view_t view = {
		.ptr = tern_ptr(v.buffer, v.offset + (size_t)first * 4),
		.partition_stride = broadcast ? 0 : across ? 0 : 4,
		.element_stride = 4, .dtype = TERN_FLOAT32,
	};

	return view;
}

/* Bytes a partition of SBUF holds for one slot, and for all. */
static uint32_t rows_slot_bytes(const struct rows_kernel *k)
{
	return (k->n_in + k->n_out + k->scratch) * k->cols * 4 +
	       (k->n_row_in + k->n_row_out + k->columns) * 4;
}

/* Where everything of slot @slot lies in each partition. */
static void rows_place(const struct rows_kernel *k, struct rows_block *b,
		       uint32_t slot, uint32_t rows)
{
	uint32_t at = k->n_col_in * k->cols * 4 + 4 +
		      slot * rows_slot_bytes(k);

	b->rows = rows;
	b->cols = k->cols;
	for (uint32_t i = 0; i < k->n_in; i++, at += k->cols * 4)
		b->in[i] = rows_tile(TERN_FLOAT32, rows, at, k->cols);
	for (uint32_t i = 0; i < k->n_out; i++, at += k->cols * 4)
		b->out[i] = rows_tile(k->out[i]->dtype, rows, at, k->cols);
	for (uint32_t i = 0; i < k->scratch; i++, at += k->cols * 4)
		b->tmp[i] = rows_tile(TERN_FLOAT32, rows, at, k->cols);
	for (uint32_t i = 0; i < k->n_row_in; i++, at += 4)
		b->row_in[i] = rows_tile(TERN_FLOAT32, rows, at, 1);
	for (uint32_t i = 0; i < k->n_row_out; i++, at += 4)
		b->row_out[i] = rows_tile(TERN_FLOAT32, rows, at, 1);
	for (uint32_t i = 0; i < k->columns; i++, at += 4)
		b->column[i] = rows_tile(TERN_FLOAT32, rows, at, 1);
	for (uint32_t i = 0; i < k->n_col_in; i++)
		b->col_in[i] = rows_tile(TERN_FLOAT32, rows, i * k->cols * 4,
					 k->cols);
	b->ones = rows_tile(TERN_FLOAT32, rows, k->n_col_in * k->cols * 4, 1);
}

tern_status_t rows_sum_into(struct rows_block *b, uint32_t which,
			    const tern_tile_t *tile)
{
	tern_status_t s = TERN_SUCCESS;

	for (uint32_t at = 0; at < b->cols && !s; at += SUM_CHUNK) {
		uint32_t n = b->cols - at < SUM_CHUNK ? b->cols - at :
			     SUM_CHUNK;
		uint32_t bank = which * b->sum_chunks + at / SUM_CHUNK;
		tern_tile_t part = *tile;
		tern_tile_t acc = {
			.space = TERN_PSUM, .dtype = TERN_FLOAT32,
			.partitions = 1, .offset = bank * TERN_PSUM_BANK_BYTES,
			.elements = n,
		};

		part.offset += at * 4;
		part.elements = n;
		s = tern_program_matmul(b->p, &acc, &b->ones, &part,
					!b->first);
	}
	return s;
}

/* Stores the sums down the rows once the core's last block is in. */
static tern_status_t rows_store_sums(const struct rows_kernel *k,
				     struct rows_block *b)
{
	tern_status_t s = TERN_SUCCESS;

	for (uint32_t i = 0; i < k->n_col_out && !s; i++)
		for (uint32_t at = 0; at < k->cols && !s; at += SUM_CHUNK) {
			uint32_t n = k->cols - at < SUM_CHUNK ?
				     k->cols - at : SUM_CHUNK;
			uint32_t bank = i * b->sum_chunks + at / SUM_CHUNK;
			tern_tile_t acc = {
				.space = TERN_PSUM, .dtype = TERN_FLOAT32,
				.partitions = 1,
				.offset = bank * TERN_PSUM_BANK_BYTES,
				.elements = n,
			};
			tern_tile_t out = b->tmp[0];
			tern_view_t v = rows_vector(k->col_out[i], at, true,
						    false);

			out.partitions = 1;
			out.elements = n;
			s = tern_program_copy(b->p, TERN_ENGINE_VECTOR, &out,
					      &acc, false);
			if (!s)
				s = tern_program_store(b->p, &v, &out);
		}
	return s;
}

/* Stores the results of block @b, whose first row is @row0. */
static tern_status_t rows_store(const struct rows_kernel *k,
				const struct rows_block *b, uint32_t row0)
{
	tern_status_t s = TERN_SUCCESS;
	tern_view_t v;

	for (uint32_t i = 0; i < k->n_out && !s; i++) {
		v = rows_view(k->out[i], row0);
		s = tern_program_store(b->p, &v, &b->out[i]);
	}
	for (uint32_t i = 0; i < k->n_row_out && !s; i++) {
		v = rows_vector(k->row_out[i], row0, false, false);
		s = tern_program_store(b->p, &v, &b->row_out[i]);
	}
	return s;
}

/*
 * One core's program: blocks [@first, @last) of 128 rows. Each block's
 * stores come after the next block's loads: the DMA engine takes them in
 * order, and a store, which waits for its block's body, would otherwise
 * hold back the loads the next body needs.
 */
static tern_status_t rows_program(const struct rows_kernel *k,
				  tern_program_t p, uint32_t first,
				  uint32_t last, tern_ptr_t ones)
{
	struct rows_block b = { .p = p }, prev;
	tern_status_t s = TERN_SUCCESS;
	uint32_t prev_row0 = 0;
	tern_view_t v;

	b.sum_chunks = (k->cols + SUM_CHUNK - 1) / SUM_CHUNK;
	rows_place(k, &b, 0, TERN_PARTITIONS);
	for (uint32_t i = 0; i < k->n_col_in && !s; i++) {
		v = rows_vector(k->col_in[i], 0, true, true);
		s = tern_program_load(p, &b.col_in[i], &v);
	}
	if (!s && k->n_col_out) {
		v = rows_vector(ones, 0, false, false);
		s = tern_program_load(p, &b.ones, &v);
	}
	for (uint32_t blk = first; blk < last && !s; blk++) {
		uint32_t row0 = blk * TERN_PARTITIONS;
		uint32_t rows = k->rows - row0 < TERN_PARTITIONS ?
				k->rows - row0 : TERN_PARTITIONS;

		rows_place(k, &b, (blk - first) % SLOTS, rows);
		b.first = blk == first;
		for (uint32_t i = 0; i < k->n_in && !s; i++) {
			v = rows_view(k->in[i], row0);
			s = tern_program_load(p, &b.in[i], &v);
		}
		for (uint32_t i = 0; i < k->n_row_in && !s; i++) {
			v = rows_vector(k->row_in[i], row0, false, false);
			s = tern_program_load(p, &b.row_in[i], &v);
		}
		if (!s && blk > first)
			s = rows_store(k, &prev, prev_row0);
		if (!s)
			s = k->body(&b, k->arg);
		prev = b;
		prev_row0 = row0;
	}
	if (!s && last > first)
		s = rows_store(k, &prev, prev_row0);
	if (!s && k->n_col_out)
		s = rows_store_sums(k, &b);
	return s;
}

/* The kernel's matrices and vectors, checked as tern_compute.h promises. */
static tern_status_t rows_check(const struct rows_kernel *k,
				const struct tern_device *dev)
{
	static const char *const in_names[] = { "the first input",
		"the second input", "the third input", "the fourth input" };
	static const char *const out_names[] = { "the output",
		"the second output", "the third output" };

	for (uint32_t i = 0; i < k->n_in; i++)
		if (!tern_matrix_ok(k->in[i], dev, k->name, in_names[i], false))
			return TERN_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < k->n_out; i++)
		if (!tern_matrix_ok(k->out[i], dev, k->name, out_names[i],
				    false))
			return TERN_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < k->n_in + k->n_out; i++) {
		const tern_matrix_t *m = i < k->n_in ? k->in[i] :
					 k->out[i - k->n_in];

		if (m->rows != k->rows || m->cols != k->cols) {
			tern_set_last_error("%s: the matrices are of one shape: %u x %u, not %u x %u",
					    k->name, k->rows, k->cols, m->rows,
					    m->cols);
			return TERN_ERROR_INVALID_ARGUMENT;
		}
	}
	for (uint32_t o = 0; o < k->n_out; o++)
		for (uint32_t i = 0; i < k->n_in + o; i++) {
			const tern_matrix_t *m = i < k->n_in ? k->in[i] :
						 k->out[i - k->n_in];

			if (tern_matrices_overlap(k->out[o], m) &&
			    (i >= k->n_in || !tern_matrices_same(k->out[o], m))) {
				tern_set_last_error("%s: an output overlaps another matrix without being it",
						    k->name);
				return TERN_ERROR_INVALID_ARGUMENT;
			}
		}
	for (uint32_t i = 0; i < k->n_row_in + k->n_row_out; i++)
		if (!tern_vector_ok(i < k->n_row_in ? k->row_in[i] :
				    k->row_out[i - k->n_row_in], k->rows, dev,
				    k->name, "a vector of a value per row"))
			return TERN_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < k->n_col_in + k->n_col_out; i++)
		if (!tern_vector_ok(i < k->n_col_in ? k->col_in[i] :
				    k->col_out[i - k->n_col_in], k->cols, dev,
				    k->name, "a vector of a value per column"))
			return TERN_ERROR_INVALID_ARGUMENT;
	return TERN_SUCCESS;
}

/* Whether a core holds the kernel's tiles; a sentence if not. */
static tern_status_t rows_fit(const struct rows_kernel *k,
			      const struct tern_device *dev)
{
	const struct tern_core_shape *shape = &dev->info.cores;
	uint64_t need = (uint64_t)k->n_col_in * k->cols * 4 + 4 +
			SLOTS * (uint64_t)rows_slot_bytes(k);
	uint32_t chunks = (k->cols + SUM_CHUNK - 1) / SUM_CHUNK;

	if (need > shape->sbuf_partition_bytes) {
		tern_set_last_error("%s: rows of %u columns need %llu bytes of SBUF a partition; a core has %u",
				    k->name, k->cols, (unsigned long long)need,
				    shape->sbuf_partition_bytes);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	if ((uint64_t)k->n_col_out * chunks * TERN_PSUM_BANK_BYTES >
	    shape->psum_partition_bytes) {
		tern_set_last_error("%s: sums of %u columns need %u PSUM banks; a core has %u",
				    k->name, k->cols, k->n_col_out * chunks,
				    shape->psum_partition_bytes /
				    TERN_PSUM_BANK_BYTES);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	return TERN_SUCCESS;
}

tern_status_t rows_run(const struct rows_kernel *kernel, tern_stream_t stream)
{
	struct tern_program *programs[64];
	struct rows_kernel shaped = *kernel;
	const struct rows_kernel *k = &shaped;
	struct tern_device *dev;
	uint32_t blocks, cores, used = 0;
	tern_ptr_t ones = { NULL, 0 };
	tern_status_t s;

	if (!tern_handle_valid(stream, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	/* every matrix has the first input's shape */
	shaped.rows = kernel->in[0]->rows;
	shaped.cols = kernel->in[0]->cols;
	dev = stream->device;
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_COMPUTE)) {
		tern_set_last_error("%s: device %d has no compute engines",
				    k->name, dev->index);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	s = rows_check(k, dev);
	if (!s)
		s = rows_fit(k, dev);
	if (!s && !tern_compute_get(dev))
		s = TERN_ERROR_OUT_OF_MEMORY;
	if (!s && k->n_col_out)
		s = rows_ones(dev, &ones);
	if (s)
		return s;
	blocks = (k->rows + TERN_PARTITIONS - 1) / TERN_PARTITIONS;
	cores = k->n_col_out ? 1 : dev->info.cores.cores;
	if (cores > blocks)
		cores = blocks;
	if (cores > 64)
		cores = 64;
	for (uint32_t c = 0; c < cores && !s; c++) {
		s = tern_program_create(dev, c, &programs[c]);
		if (s)
			break;
		used++;
		s = rows_program(k, programs[c], blocks * c / cores,
				 blocks * (c + 1) / cores, ones);
	}
	if (!s)
		s = tern_programs_launch(programs, used, stream);
	for (uint32_t c = 0; c < used; c++)
		tern_program_destroy(programs[c]);
	return s;
}
