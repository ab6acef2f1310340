// SPDX-License-Identifier: MIT
/*
 * One view, both outputs (print.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"

void print_begin_lines(struct print *p, FILE *out, bool json, bool pretty,
		       void (*line)(void *ctx, const char *text), void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->json = json;
	p->out = out;
	p->line = line;
	p->ctx = ctx;
	if (!json)
		return;
	json_init(&p->w, out, pretty);
	json_object_begin(&p->w, NULL);
	json_u64(&p->w, "schema_version", INSPECT_SCHEMA_VERSION);
}

void print_begin(struct print *p, const struct inspect_options *opts,
		 const struct snapshot *snap)
{
	print_begin_lines(p, stdout, opts->json, opts->pretty, NULL, NULL);
	if (p->json && snap)
		inspect_json_backend(&p->w, snap);
}

/* Text out: as it comes, or cut into lines for the sink. */
static void print_emit(struct print *p, const char *text)
{
	if (!p->line) {
		fputs(text, p->out);
		return;
	}
	for (; *text; text++) {
		if (*text == '\n') {
			p->pending[p->pending_len] = '\0';
			p->line(p->ctx, p->pending);
			p->pending_len = 0;
		} else if (p->pending_len < sizeof(p->pending) - 1) {
			p->pending[p->pending_len++] = *text;
		}
	}
}

void print_end(struct print *p)
{
	if (!p->json) {
		if (p->pending_len)
			print_emit(p, "\n");
		return;
	}
	json_object_end(&p->w);
	json_finish(&p->w);
}

/* Text @fmt with one argument; the format is the caller's own constant. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void print_text_u64(struct print *p, const char *fmt, uint64_t value)
{
	char text[512];

	snprintf(text, sizeof(text), fmt, (unsigned long long)value);
	print_emit(p, text);
}

static void print_text_string(struct print *p, const char *fmt,
			      const char *value)
{
	char text[512];

	snprintf(text, sizeof(text), fmt, value && value[0] ? value : "-");
	print_emit(p, text);
}
#pragma GCC diagnostic pop

void print_u64(struct print *p, const char *key, const char *fmt,
	       uint64_t value)
{
	if (p->json && key)
		json_u64(&p->w, key, value);
	else if (!p->json && fmt)
		print_text_u64(p, fmt, value);
}

void print_element_u64(struct print *p, const char *fmt, uint64_t value)
{
	if (p->json)
		json_u64(&p->w, NULL, value);
	else if (fmt)
		print_text_u64(p, fmt, value);
}

void print_element_string(struct print *p, const char *fmt,
			  const char *value)
{
	if (p->json)
		json_string(&p->w, NULL, value ? value : "");
	else if (fmt)
		print_text_string(p, fmt, value);
}

void print_string(struct print *p, const char *key, const char *fmt,
		  const char *value)
{
	if (p->json && key)
		json_string(&p->w, key, value ? value : "");
	else if (!p->json && fmt)
		print_text_string(p, fmt, value);
}

void print_bool(struct print *p, const char *key, const char *fmt, bool value,
		const char *yes, const char *no)
{
	if (p->json && key)
		json_bool(&p->w, key, value);
	else if (!p->json && fmt)
		print_text_string(p, fmt, value ? yes : no);
}

void print_optional_u64(struct print *p, const char *key, const char *fmt,
			bool present, uint64_t value)
{
	char text[24];

	if (p->json && key && present) {
		json_u64(&p->w, key, value);
	} else if (p->json && key) {
		json_null(&p->w, key);
	} else if (!p->json && fmt) {
		snprintf(text, sizeof(text), "%llu", (unsigned long long)value);
		print_text_string(p, fmt, present ? text : "");
	}
}

void print_bytes(struct print *p, const char *key, const char *fmt,
		 uint64_t bytes)
{
	char text[32];

	if (p->json) {
		print_u64(p, key, NULL, bytes);
		return;
	}
	cli_format_bytes(bytes, text, sizeof(text));
	print_string(p, NULL, fmt, text);
}

void print_reasons(struct print *p, const char *key, const char *fmt,
		   uint32_t reasons)
{
	char names[128];

	if (p->json && key) {
		inspect_json_reasons(&p->w, key, reasons);
	} else if (!p->json && fmt) {
		snapshot_health_reasons(reasons, names, sizeof(names));
		print_text_string(p, fmt, names);
	}
}

void print_capabilities(struct print *p, const char *key, const char *fmt,
			uint64_t caps)
{
	char names[160];

	if (p->json && key) {
		inspect_json_capabilities(&p->w, key, caps);
	} else if (!p->json && fmt) {
		inspect_format_capabilities(caps, names, sizeof(names));
		print_text_string(p, fmt, names);
	}
}

void print_text(struct print *p, const char *fmt, ...)
{
	char text[512];
	va_list args;

	if (p->json)
		return;
	va_start(args, fmt);
	vsnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	print_emit(p, text);
}

void print_object(struct print *p, const char *key)
{
	if (p->json)
		json_object_begin(&p->w, key);
}

void print_object_end(struct print *p)
{
	if (p->json)
		json_object_end(&p->w);
}

void print_array(struct print *p, const char *key)
{
	if (p->json)
		json_array_begin(&p->w, key);
}

void print_array_end(struct print *p)
{
	if (p->json)
		json_array_end(&p->w);
}
