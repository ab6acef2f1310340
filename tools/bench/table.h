/* SPDX-License-Identifier: MIT */
/*
 * The columns of a tern-bench table, in one list that the three header
 * lines (groups, names, units) are printed from.
 */
#ifndef TOOLS_BENCH_TABLE_H
#define TOOLS_BENCH_TABLE_H

#include <stddef.h>

struct bench_column {
	const char *group;	/* centred over its run of columns; NULL: none */
	const char *name, *unit;
	int width;
};

#define BENCH_HEADING(g, n, u, w) \
	{ .group = (g), .name = (n), .unit = (u), .width = (w) }

/* Prints @line without trailing blanks, and a newline. */
void bench_print_trimmed(char *line);

/* The three "# ..." lines over @count columns. */
void bench_table_header(const struct bench_column *columns, size_t count);

#endif /* TOOLS_BENCH_TABLE_H */
