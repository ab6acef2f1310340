// SPDX-License-Identifier: MIT
/*
 * What the live views, top and events, share.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "live.h"

bool live_parse_seconds(const char *text, double min, double max,
			int64_t *ms)
{
	int64_t whole = 0, fraction = 0;
	int decimals = 0;
	const char *c = text;

	if (!text || !isdigit((unsigned char)*c))
		return false;
	for (; isdigit((unsigned char)*c); c++) {
		whole = whole * 10 + (*c - '0');
		if (whole > 1000000000)
			return false;
	}
	if (*c == '.') {
		c++;
		if (!isdigit((unsigned char)*c))
			return false;
		for (; isdigit((unsigned char)*c); c++) {
			if (++decimals > 3)
				return false;
			fraction = fraction * 10 + (*c - '0');
		}
	}
	if (*c != '\0')
		return false;
	for (; decimals < 3; decimals++)
		fraction *= 10;
	*ms = whole * 1000 + fraction;
	return *ms >= (int64_t)(min * 1000 + 0.5) &&
	       *ms <= (int64_t)(max * 1000 + 0.5);
}

int64_t live_now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void live_timestamp(char *buf, int len)
{
	struct timespec now;
	struct tm utc;
	char seconds[32];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &utc);
	strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &utc);
	snprintf(buf, len, "%s.%03ldZ", seconds, now.tv_nsec / 1000000);
}
