/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer for tern-inspect's --json output: values
 * are written as they are produced, compact by default or indented with
 * --pretty. Keys are passed with each value; pass NULL inside arrays.
 */
#ifndef TOOLS_INSPECT_JSON_H
#define TOOLS_INSPECT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_writer {
	FILE *out;
	bool pretty;
	int depth;
	bool has_items[JSON_MAX_DEPTH];	/* per open container */
};

void json_init(struct json_writer *w, FILE *out, bool pretty);
void json_object_begin(struct json_writer *w, const char *key);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w, const char *key);
void json_array_end(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_u64(struct json_writer *w, const char *key, uint64_t value);
void json_bool(struct json_writer *w, const char *key, bool value);
/* null: a value that is not there (a DMA engine's core). */
void json_null(struct json_writer *w, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json_writer *w);

#endif /* TOOLS_INSPECT_JSON_H */
