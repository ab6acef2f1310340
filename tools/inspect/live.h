/* SPDX-License-Identifier: MIT */
/*
 * What the live views, top and events, share: durations typed in decimal
 * seconds and wall-clock timestamps.
 */
#ifndef TOOLS_INSPECT_LIVE_H
#define TOOLS_INSPECT_LIVE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Parses decimal seconds ("1", "0.5", "2.25") in [@min, @max] into
 * milliseconds, rounded. No sign, exponent, blanks, or more than three
 * decimals.
 */
bool live_parse_seconds(const char *text, double min, double max,
			int64_t *ms);

/* CLOCK_MONOTONIC in milliseconds. */
int64_t live_now_ms(void);

/* "2026-11-29T18:00:01.123Z", the current time in UTC, into @buf. */
void live_timestamp(char *buf, int len);

#endif /* TOOLS_INSPECT_LIVE_H */
