// SPDX-License-Identifier: MIT
/*
 * A small streaming JSON writer (RFC 8259) for tern-inspect.
 */
#include "json.h"
#include "text.h"

void json_init(struct json_writer *w, FILE *out, bool pretty)
{
	w->out = out;
	w->pretty = pretty;
	w->depth = 0;
	w->has_items[0] = false;
}

static void json_indent(struct json_writer *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/*
 * Always valid JSON in UTF-8, whatever @text holds: control characters
 * (and DEL) escaped, each byte that is not part of a well-formed UTF-8
 * character written as U+FFFD.
 */
static void json_quoted(struct json_writer *w, const char *text)
{
	fputc('"', w->out);
	for (const char *c = text; *c;) {
		unsigned char byte = (unsigned char)*c;
		size_t n;

		if (byte == '"' || byte == '\\') {
			fprintf(w->out, "\\%c", byte);
			c++;
		} else if (byte < 0x20 || byte == 0x7f) {
			fprintf(w->out, "\\u%04x", byte);
			c++;
		} else if ((n = text_utf8_char(c)) > 0) {
			fwrite(c, 1, n, w->out);
			c += n;
		} else {
			fputs("\\ufffd", w->out);
			c++;
		}
	}
	fputc('"', w->out);
}

/* Separator, indentation and key before a value. */
static void json_prefix(struct json_writer *w, const char *key)
{
	if (w->depth > 0) {
		if (w->has_items[w->depth])
			fputc(',', w->out);
		w->has_items[w->depth] = true;
		json_indent(w);
	}
	if (key) {
		json_quoted(w, key);
		fputs(w->pretty ? ": " : ":", w->out);
	}
}

static void json_open(struct json_writer *w, const char *key, char bracket)
{
	json_prefix(w, key);
	fputc(bracket, w->out);
	/* Our schemas nest 5 deep; stay in bounds if a caller ever errs. */
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void json_close(struct json_writer *w, char bracket)
{
	bool had_items = w->has_items[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (had_items)
		json_indent(w);
	fputc(bracket, w->out);
}

void json_object_begin(struct json_writer *w, const char *key)
{
	json_open(w, key, '{');
}

void json_object_end(struct json_writer *w)
{
	json_close(w, '}');
}

void json_array_begin(struct json_writer *w, const char *key)
{
	json_open(w, key, '[');
}

void json_array_end(struct json_writer *w)
{
	json_close(w, ']');
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
	json_prefix(w, key);
	json_quoted(w, value);
}

void json_u64(struct json_writer *w, const char *key, uint64_t value)
{
	json_prefix(w, key);
	fprintf(w->out, "%llu", (unsigned long long)value);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
	json_prefix(w, key);
	fputs(value ? "true" : "false", w->out);
}

void json_null(struct json_writer *w, const char *key)
{
	json_prefix(w, key);
	fputs("null", w->out);
}

void json_finish(struct json_writer *w)
{
	fputc('\n', w->out);
	fflush(w->out);
}
