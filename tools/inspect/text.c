// SPDX-License-Identifier: MIT
/*
 * Untrusted text made safe to print.
 */
#include <stdint.h>

#include "text.h"

const char *text_printable(const char *raw, char *buf, size_t len)
{
	size_t i = 0;

	if (!len)
		return buf;
	for (const unsigned char *c = (const unsigned char *)raw;
	     *c && i + 1 < len; c++)
		buf[i++] = *c >= 0x20 && *c < 0x7f ? (char)*c : '?';
	buf[i] = '\0';
	return buf;
}

size_t text_utf8_char(const char *s)
{
	const unsigned char *c = (const unsigned char *)s;
	uint32_t value, min;
	size_t n;

	if (c[0] < 0x80)
		return 1;
	if ((c[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, value = c[0] & 0x1f;
	} else if ((c[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, value = c[0] & 0x0f;
	} else if ((c[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, value = c[0] & 0x07;
	} else {
		return 0;	/* a continuation byte, or 0xf8 and up */
	}
	/* A NUL ends the string and fails this test, so no overrun. */
	for (size_t i = 1; i < n; i++) {
		if ((c[i] & 0xc0) != 0x80)
			return 0;
		value = value << 6 | (c[i] & 0x3f);
	}
	if (value < min || value > 0x10ffff ||
	    (value >= 0xd800 && value <= 0xdfff))
		return 0;
	return n;
}
