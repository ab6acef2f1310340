/* SPDX-License-Identifier: MIT */
/*
 * Settings: every TERN_* environment variable libtern and its tools read,
 * in one table (settings.c) with its kind, range, default and the line
 * the README's settings table shows, and one parser. A value that is not
 * what the setting takes is refused, never replaced by the default: the
 * lookup returns TERN_ERROR_INVALID_ARGUMENT and tern_get_last_error()
 * says so in one wording, "NAME=\"value\" is not a number of milliseconds
 * from 1 to 60000" or "... is none of a, b or c". An empty variable is
 * as unset.
 *
 * Not installed: for libtern's files and for the tools, which link
 * libtern.a and so read the settings and their ranges from here.
 */
#ifndef TERN_SETTINGS_H
#define TERN_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tern.h"

enum tern_setting_kind {
	TERN_SETTING_NUMBER,	/* a whole number from min to max */
	TERN_SETTING_REAL,	/* a number above min, at most max */
	TERN_SETTING_CHOICE,	/* one of choices[]; on/off is { "on", "off" } */
	TERN_SETTING_TEXT,	/* a name, a path: its reader checks it */
};

/* A setting that shapes the backend: the tools name it when it is refused. */
#define TERN_SETTING_BACKEND	(1u << 0)

#define TERN_SETTING_MAX_CHOICES 6

struct tern_setting {
	const char *name;
	enum tern_setting_kind kind;
	unsigned int flags;
	int64_t min, max;		/* NUMBER, REAL */
	const char *unit;		/* NUMBER, REAL: what it counts */
	/* CHOICE: the names, the last of them followed by NULL */
	const char *choices[TERN_SETTING_MAX_CHOICES];
	const char *values;		/* TEXT: what it takes (markdown) */
	const char *def;		/* the default as written; NULL: none */
	const char *doc;		/* what it does (markdown, one line) */
};

/* The @index'th setting, in the README's order; NULL past the last. */
const struct tern_setting *tern_setting_at(size_t index);

/* The setting called @name; NULL if libtern has none. */
const struct tern_setting *tern_setting_find(const char *name);

/* Whether @name is set to something (not unset, not empty). */
bool tern_setting_is_set(const char *name);

/*
 * The lookups: @name's value when it is set, else its default; without
 * a default the output is left as the caller set it. A value that is
 * not what the setting takes: TERN_ERROR_INVALID_ARGUMENT, the sentence
 * in tern_get_last_error(), the output untouched.
 */
tern_status_t tern_setting_number(const char *name, int64_t *value);
tern_status_t tern_setting_real(const char *name, double *value);
/* *@value: the setting's own name for the choice (compare it with strcmp). */
tern_status_t tern_setting_choice(const char *name, const char **value);
/* A choice of on or off, as a bool. */
tern_status_t tern_setting_on(const char *name, bool *on);
/* The text, else the default, else NULL. Never refused. */
const char *tern_setting_text(const char *name);

/*
 * What @s takes, in plain words for a message: "1-64", "wall or model",
 * "auto, ring, torus:RxC ...". The length tern_setting_takes() wanted,
 * as snprintf(); @buf is cut to fit.
 */
int tern_setting_takes(const struct tern_setting *s, char *buf, size_t len);

#endif /* TERN_SETTINGS_H */
