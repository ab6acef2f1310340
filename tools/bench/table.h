/* SPDX-License-Identifier: MIT */
/*
 * The columns of a tern-bench table, in one list that prints both the
 * three header lines (groups, names, units) and, for tests that keep a
 * row's figures in a struct, the rows themselves.
 */
#ifndef TOOLS_BENCH_TABLE_H
#define TOOLS_BENCH_TABLE_H

#include <stddef.h>

/* How a row prints a column's field: the struct member at @offset. */
enum bench_column_kind {
	BENCH_COLUMN_NONE,	/* the test prints its rows itself */
	BENCH_COLUMN_UINT,	/* uint64_t */
	BENCH_COLUMN_REAL,	/* double with @precision decimals; NaN: n/a */
	BENCH_COLUMN_TEXT,	/* const char * */
};

struct bench_column {
	const char *group;	/* centred over its run of columns; NULL: none */
	const char *name, *unit;
	int width;
	enum bench_column_kind kind;
	int precision;
	size_t offset;
};

/* A column whose rows the test prints itself. */
#define BENCH_HEADING(g, n, u, w) \
	{ .group = (g), .name = (n), .unit = (u), .width = (w) }

/* Prints @line without trailing blanks, and a newline. */
void bench_print_trimmed(char *line);

/* The three "# ..." lines over @count columns. */
void bench_table_header(const struct bench_column *columns, size_t count);

/* One row: each column's field of @row, right-aligned under its name. */
void bench_table_row(const struct bench_column *columns, size_t count,
		     const void *row);

#endif /* TOOLS_BENCH_TABLE_H */
