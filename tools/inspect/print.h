/* SPDX-License-Identifier: MIT */
/*
 * Writing a view once for both outputs, as iproute2's print_*(PRINT_ANY)
 * helpers do: each value is given once, with its JSON key and its text
 * format. With --json only the keys count, as text only the formats: a
 * NULL key is text only, a NULL format JSON only. So the text and the
 * JSON of a view cannot drift apart.
 *
 * Text formats take the value as printf takes it: %llu (and widths) for
 * numbers, %s for strings. An empty string shows as "-" in text, since a
 * table cell is never blank.
 */
#ifndef TOOLS_INSPECT_PRINT_H
#define TOOLS_INSPECT_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct inspect_options;
struct snapshot;

struct print {
	bool json;
	FILE *out;
	struct json_writer w;
	/* Text line by line to @line (top's screen), else to @out as it comes. */
	void (*line)(void *ctx, const char *text);
	void *ctx;
	char pending[512];
	size_t pending_len;
};

/*
 * Starts a document: in JSON the top object, with the schema version and,
 * given @snap, which backend answered (inspect_json_backend()).
 */
void print_begin(struct print *p, const struct inspect_options *opts,
		 const struct snapshot *snap);
/*
 * The same to @out, text going to @line (may be NULL) a line at a time,
 * without its newline: for a view laid out on a screen.
 */
void print_begin_lines(struct print *p, FILE *out, bool json, bool pretty,
		       void (*line)(void *ctx, const char *text), void *ctx);
/* Ends it: in JSON the top object and the line. */
void print_end(struct print *p);

void print_u64(struct print *p, const char *key, const char *fmt,
	       uint64_t value);
void print_string(struct print *p, const char *key, const char *fmt,
		  const char *value);
/* JSON true or false; text @yes or @no through @fmt. */
void print_bool(struct print *p, const char *key, const char *fmt, bool value,
		const char *yes, const char *no);
/*
 * A number that may not be there: in JSON @value or null, in text @fmt (a
 * %s conversion) with @value or "-".
 */
void print_optional_u64(struct print *p, const char *key, const char *fmt,
			bool present, uint64_t value);
/* A byte count: a number in JSON, "4 MiB" in text. */
void print_bytes(struct print *p, const char *key, const char *fmt,
		 uint64_t bytes);
/* DRM_TERN_HEALTH_REASON_* bits: an array of names, text "a,b". */
void print_reasons(struct print *p, const char *key, const char *fmt,
		   uint32_t reasons);
/* DRM_TERN_CAP_* bits: an array of names, text "a,b". */
void print_capabilities(struct print *p, const char *key, const char *fmt,
			uint64_t caps);
/* An element of an array: in JSON a value without key, in text @fmt. */
void print_element_u64(struct print *p, const char *fmt, uint64_t value);
void print_element_string(struct print *p, const char *fmt,
			  const char *value);
/* Text only: headings, separators, line ends. */
void print_text(struct print *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* JSON only: the containers the values go in (@key NULL in an array). */
void print_object(struct print *p, const char *key);
void print_object_end(struct print *p);
void print_array(struct print *p, const char *key);
void print_array_end(struct print *p);

#endif /* TOOLS_INSPECT_PRINT_H */
