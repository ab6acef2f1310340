/* SPDX-License-Identifier: MIT */
/*
 * The model's lists of a device's values (model/tern_state_list.h) as
 * tern-inspect prints them: every line, with where its value lives in the
 * snapshot's structs, for metrics (metrics.c) and info (info.c), so that
 * a value added to a list shows there without a line of either.
 */
#ifndef TOOLS_INSPECT_VALUES_H
#define TOOLS_INSPECT_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "tern_state.h"

struct value_line {
	const char *name;	/* its JSON key */
	uint8_t type;		/* enum tern_state_type */
	uint8_t unit;		/* enum tern_state_unit */
	size_t offset;		/* in the set's snapshot struct */
	const char *metric;	/* "family{labels}", or NULL */
	const char *text;	/* info's "section/label:\tconversion", or NULL */
	const char *help;
};

/* A list: its lines, in order. */
struct value_list {
	const struct value_line *lines;
	size_t count;
};

/* In struct snapshot_device, struct tern_state_engine, ..._link, ..._client. */
extern const struct value_list values_device, values_engine, values_link,
	values_client;

/* The value @line names in @object, a struct of its list. */
uint64_t value_get(const struct value_line *line, const void *object);

#endif /* TOOLS_INSPECT_VALUES_H */
