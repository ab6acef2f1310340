// SPDX-License-Identifier: MIT
/*
 * Diagnostics. libtern never prints unless TERN_DEBUG=1 asks it to.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pthread_once_t tern_debug_once = PTHREAD_ONCE_INIT;
static bool tern_debug_enabled;

static void tern_debug_init(void)
{
	const char *value = getenv("TERN_DEBUG");

	tern_debug_enabled = value && strcmp(value, "1") == 0;
}

void tern_debug(const char *fmt, ...)
{
	va_list args;

	pthread_once(&tern_debug_once, tern_debug_init);
	if (!tern_debug_enabled)
		return;
	va_start(args, fmt);
	flockfile(stderr);
	fputs("libtern: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
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

TERN_API const char *tern_get_last_error(void)
{
	static __thread char copy[sizeof(tern_last_error)];

	pthread_mutex_lock(&tern_last_error_lock);
	memcpy(copy, tern_last_error, sizeof(copy));
	pthread_mutex_unlock(&tern_last_error_lock);
	return copy;
}
