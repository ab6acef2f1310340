// SPDX-License-Identifier: MIT
/*
 * Diagnostics on stderr, as TERN_DEBUG asks: unset (or any other value),
 * only the one sentence saying why libtern cannot serve the process (the
 * backend refused it), once; 1, every choice libtern makes besides; 0,
 * nothing at all. A program that reports tern_get_last_error() itself
 * sets TERN_DEBUG=0.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "settings.h"

enum tern_say { TERN_SAY_NOTHING, TERN_SAY_REFUSALS, TERN_SAY_ALL };

static pthread_once_t tern_debug_once = PTHREAD_ONCE_INIT;
static enum tern_say tern_say;

static void tern_debug_init(void)
{
	const char *value = tern_setting_text("TERN_DEBUG");

	if (value && strcmp(value, "1") == 0)
		tern_say = TERN_SAY_ALL;
	else if (value && strcmp(value, "0") == 0)
		tern_say = TERN_SAY_NOTHING;
	else
		tern_say = TERN_SAY_REFUSALS;
}

static void tern_say_line(const char *fmt, va_list args)
{
	flockfile(stderr);
	fputs("libtern: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void tern_debug(const char *fmt, ...)
{
	va_list args;

	pthread_once(&tern_debug_once, tern_debug_init);
	if (tern_say != TERN_SAY_ALL)
		return;
	va_start(args, fmt);
	tern_say_line(fmt, args);
	va_end(args);
}

static void tern_say_refusal(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	tern_say_line(fmt, args);
	va_end(args);
}

static pthread_mutex_t tern_last_error_lock = PTHREAD_MUTEX_INITIALIZER;
static char tern_last_error[512];

void tern_set_last_error(const char *fmt, ...)
{
	va_list args;

	pthread_mutex_lock(&tern_last_error_lock);
	va_start(args, fmt);
	vsnprintf(tern_last_error, sizeof(tern_last_error), fmt, args);
	va_end(args);
	tern_debug("%s", tern_last_error);
	pthread_mutex_unlock(&tern_last_error_lock);
}

void tern_report_refusal(tern_status_t status)
{
	pthread_once(&tern_debug_once, tern_debug_init);
	pthread_mutex_lock(&tern_last_error_lock);
	/* With TERN_DEBUG=1 the sentence is out already. */
	if (!tern_last_error[0] && tern_say != TERN_SAY_NOTHING)
		tern_say_refusal("%s (%s)", tern_status_string(status),
				 tern_status_name(status));
	else if (tern_say == TERN_SAY_REFUSALS)
		tern_say_refusal("%s", tern_last_error);
	pthread_mutex_unlock(&tern_last_error_lock);
}

TERN_API const char *tern_get_last_error(void)
{
	static __thread char copy[sizeof(tern_last_error)];

	pthread_mutex_lock(&tern_last_error_lock);
	memcpy(copy, tern_last_error, sizeof(copy));
	pthread_mutex_unlock(&tern_last_error_lock);
	return copy;
}
