/* SPDX-License-Identifier: MIT */
/*
 * Verification data for the collective tests: inputs that are small whole
 * numbers, chosen per rank and position so that every reduction of them is
 * exact in every data type and in any order, and the element access that
 * reads and writes them in each type.
 */
#ifndef TOOLS_BENCH_COLL_DATA_H
#define TOOLS_BENCH_COLL_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "tern.h"

/* What the inputs feed: a reduction with an op, or data that only moves. */
struct coll_data {
	tern_dtype_t dtype;
	size_t elem_size;
	int reduces;		/* 1: inputs are reduced with @op */
	tern_redop_t op;
	int nranks;
};

/* Rank @rank's input at element @index. */
double coll_data_input(const struct coll_data *d, int rank, uint64_t index);

/* The reduction over every rank of element @index's inputs. */
double coll_data_reduced(const struct coll_data *d, uint64_t index);

/* Writes @count inputs of @rank, from input element @first, to @buf. */
void coll_data_fill(const struct coll_data *d, void *buf, int rank,
		    uint64_t first, uint64_t count);

/* Element @index of @buf, in @d's type, as a double. */
double coll_data_load(const struct coll_data *d, const void *buf,
		      uint64_t index);

#endif /* TOOLS_BENCH_COLL_DATA_H */
