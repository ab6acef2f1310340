// SPDX-License-Identifier: MIT
/*
 * Where the network's per-process counters live (stats.h): TERN_RUN_DIR,
 * else /tmp/tern-UID, one directory per user so that nobody else's
 * process can plant or read a file there.
 */
#include <stdio.h>
#include <unistd.h>

#include "net/stats.h"
#include "settings.h"

int tern_net_stats_dir(char *buf, unsigned long len)
{
	const char *dir = tern_setting_text("TERN_RUN_DIR");
	int n;

	if (dir)
		n = snprintf(buf, len, "%s", dir);
	else
		n = snprintf(buf, len, "/tmp/tern-%u", (unsigned int)getuid());
	return n < 0 || (unsigned long)n >= len ? -1 : n;
}
