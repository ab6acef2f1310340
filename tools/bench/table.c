// SPDX-License-Identifier: MIT
/*
 * tern-bench tables: "# " then the columns two blanks apart, so a row's
 * first field is as wide as its column plus the "# " of the header.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "table.h"

void bench_print_trimmed(char *line)
{
	size_t len = strlen(line);

	while (len && line[len - 1] == ' ')
		line[--len] = '\0';
	puts(line);
}

static bool bench_same_group(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Three lines: the groups, centred over their columns, names and units. */
void bench_table_header(const struct bench_column *columns, size_t count)
{
	char line[3][512];
	int at[3] = { 0, 0, 0 };

	for (size_t i = 0; i < count; i++) {
		const struct bench_column *c = &columns[i];
		const char *sep = i ? "  " : "# ";

		at[1] += snprintf(line[1] + at[1], sizeof(line[1]) - at[1],
				  "%s%*s", sep, c->width, c->name);
		at[2] += snprintf(line[2] + at[2], sizeof(line[2]) - at[2],
				  "%s%*s", sep, c->width, c->unit);
		if (i && bench_same_group(c->group, columns[i - 1].group))
			continue;
		/* the group's span, from its first column to its last */
		{
			const char *title = c->group ? c->group : "";
			int span = -2, len = (int)strlen(title), left;

			for (size_t k = i; k < count &&
			     bench_same_group(columns[k].group, c->group); k++)
				span += 2 + columns[k].width;
			left = (span - len) / 2;
			at[0] += snprintf(line[0] + at[0], sizeof(line[0]) - at[0],
					  "%s%*s%s%*s", sep, left, "", title,
					  span - len - left, "");
		}
	}
	for (int i = 0; i < 3; i++)
		bench_print_trimmed(line[i]);
}

void bench_table_row(const struct bench_column *columns, size_t count,
		     const void *row)
{
	for (size_t i = 0; i < count; i++) {
		const struct bench_column *c = &columns[i];
		const char *field = (const char *)row + c->offset;
		int width = c->width + (i ? 0 : 2);
		double real;

		if (i)
			fputs("  ", stdout);
		switch (c->kind) {
		case BENCH_COLUMN_UINT:
			printf("%*llu", width,
			       (unsigned long long)*(const uint64_t *)field);
			break;
		case BENCH_COLUMN_REAL:
			real = *(const double *)field;
			if (isnan(real))
				printf("%*s", width, "n/a");
			else
				printf("%*.*f", width, c->precision, real);
			break;
		case BENCH_COLUMN_TEXT:
			printf("%*s", width, *(const char *const *)field);
			break;
		default:
			printf("%*s", width, "");
			break;
		}
	}
	printf("\n");
	fflush(stdout);	/* a row at a time for whoever is watching */
}
