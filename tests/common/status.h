/* SPDX-License-Identifier: MIT */
/*
 * Asserts on what a tern.h call returns: on a mismatch the test fails
 * naming the call, where it is, both statuses and what libtern said of it.
 */
#ifndef TERN_TEST_STATUS_H
#define TERN_TEST_STATUS_H

#include "test.h"
#include "tern.h"

static inline void check_status(tern_status_t got, tern_status_t want,
				const char *call, const char *file, int line)
{
	if (got != want)
		fail_msg("%s:%d: %s returned %s, want %s (%s)", file, line,
			 call, tern_status_name(got), tern_status_name(want),
			 tern_get_last_error());
}

#define assert_status(call, want) \
	check_status((call), (want), #call, __FILE__, __LINE__)
#define assert_ok(call)	assert_status(call, TERN_SUCCESS)

#endif /* TERN_TEST_STATUS_H */
