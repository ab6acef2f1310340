/* SPDX-License-Identifier: MIT */
/*
 * Text that came from elsewhere (a process's name is whatever it set with
 * prctl) made safe to print: no terminal escapes, no broken columns, no
 * invalid UTF-8 in JSON or Prometheus output.
 */
#ifndef TOOLS_INSPECT_TEXT_H
#define TOOLS_INSPECT_TEXT_H

#include <stddef.h>

/* Room for a process name (16 bytes in Linux) and then some. */
#define TEXT_PRINTABLE_MAX 64

/*
 * Copies @raw into @buf (@len bytes, NUL-terminated, truncated to fit)
 * with every byte that is not printable ASCII (0x20-0x7e) replaced by
 * '?', so that one byte is one column on any terminal. Returns @buf.
 */
const char *text_printable(const char *raw, char *buf, size_t len);

/*
 * The length (1-4) of the well-formed UTF-8 character at @s (RFC 3629: no
 * overlong forms, surrogates or values above U+10FFFF), or 0 when the
 * bytes there are not one. @s is NUL-terminated; *@s must not be NUL.
 */
size_t text_utf8_char(const char *s);

#endif /* TOOLS_INSPECT_TEXT_H */
