// SPDX-License-Identifier: MIT
/*
 * Finding the Tern device nodes (nodes.h).
 */
#include <fcntl.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "nodes.h"

int tern_node_is_tern(int fd)
{
	drmVersionPtr version = drmGetVersion(fd);
	int tern;

	if (!version)
		return 0;
	tern = version->name && strcmp(version->name, "tern") == 0;
	drmFreeVersion(version);
	return tern;
}

int tern_nodes_each(int (*visit)(int fd, const char *path, void *ctx),
		    void *ctx)
{
	static const char *const patterns[] = {
		"/dev/accel/accel*", "/dev/dri/renderD*",
	};
	int stop = 0;

	for (size_t p = 0; p < 2 && !stop; p++) {
		glob_t g;

		if (glob(patterns[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && !stop; i++) {
			int fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);

			if (fd < 0)
				continue;
			if (tern_node_is_tern(fd))
				stop = visit(fd, g.gl_pathv[i], ctx);
			else
				close(fd);
		}
		globfree(&g);
	}
	return stop;
}
