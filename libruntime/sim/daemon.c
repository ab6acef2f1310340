// SPDX-License-Identifier: MIT
/*
 * Which tern-simd a process starts: the first executable file named
 * tern-simd found
 *
 *   1. at TERN_SIM_DAEMON, when it is set (and nowhere else then);
 *   2. beside libtern.so, and in the directory `make install` puts
 *      tern-simd in, seen from the one it puts libtern.so in (BINDIR from
 *      LIBDIR, ../bin by default), wherever the tree was installed or
 *      staged;
 *   3. beside the program (for a program linked with libtern.a, libtern's
 *      own place);
 *   4. in the directories fixed when libtern was built (TERN_SIMD_DIRS:
 *      its build tree and BINDIR), so that a program linked with
 *      libtern.a, or run from a folder of its own, finds the tern-simd of
 *      libtern's own build;
 *   5. on PATH.
 *
 * The nearest to libtern come first: a machine of another build refuses
 * this process (HELLO), so the tern-simd that came with libtern is the
 * one to start.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"
#include "sim.h"

/* Both come from the build (install.mk); these are for any other. */
#ifndef TERN_SIMD_DIRS
#define TERN_SIMD_DIRS		""
#endif
#ifndef TERN_SIMD_FROM_LIBDIR
#define TERN_SIMD_FROM_LIBDIR	"../bin"
#endif

/* @dir (its first @dir_len bytes)/tern-simd in @out, if it is there. */
static bool sim_daemon_in(const char *dir, size_t dir_len, char *out,
			  size_t len)
{
	if (!dir_len || snprintf(out, len, "%.*s/tern-simd", (int)dir_len,
				 dir) >= (int)len)
		return false;
	return access(out, X_OK) == 0;
}

/* The first of the ':'-separated directories @list that holds one. */
static bool sim_daemon_in_list(const char *list, char *out, size_t len)
{
	while (list && *list) {
		size_t dir_len = strcspn(list, ":");

		if (sim_daemon_in(list, dir_len, out, len))
			return true;
		list += dir_len + (list[dir_len] == ':');
	}
	return false;
}

/* The directory of @path, symbolic links resolved, into @dir. */
static bool sim_dir_of(const char *path, char dir[PATH_MAX])
{
	if (!realpath(path, dir))
		return false;
	*strrchr(dir, '/') = '\0';	/* "/x" gives "": no directory */
	return dir[0] != '\0';
}

/*
 * libtern.so's directory, when libtern is a shared library (the link map
 * of the main program has an empty name; a static program has none).
 */
static bool sim_libtern_dir(char dir[PATH_MAX])
{
	struct link_map *map = NULL;
	Dl_info info;

	if (!dladdr1((void *)sim_libtern_dir, &info, (void **)&map,
		     RTLD_DL_LINKMAP) || !map || !map->l_name ||
	    !map->l_name[0])
		return false;
	return sim_dir_of(map->l_name, dir);
}

bool sim_daemon_find(char *out, size_t len)
{
	const char *env = tern_setting_text("TERN_SIM_DAEMON");
	char dir[PATH_MAX], installed[PATH_MAX + sizeof(TERN_SIMD_FROM_LIBDIR)];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) == 0;
	}
	if (sim_libtern_dir(dir)) {
		snprintf(installed, sizeof(installed), "%s/%s", dir,
			 TERN_SIMD_FROM_LIBDIR);
		if (sim_daemon_in(dir, strlen(dir), out, len) ||
		    sim_daemon_in(installed, strlen(installed), out, len))
			return true;
	}
	if (sim_dir_of("/proc/self/exe", dir) &&
	    sim_daemon_in(dir, strlen(dir), out, len))
		return true;
	return sim_daemon_in_list(TERN_SIMD_DIRS, out, len) ||
	       sim_daemon_in_list(getenv("PATH"), out, len);
}

void sim_daemon_searched(char *out, size_t len)
{
	const char *env = tern_setting_text("TERN_SIM_DAEMON");
	char dirs[sizeof(TERN_SIMD_DIRS) + 1];

	if (env && *env) {
		snprintf(out, len, "TERN_SIM_DAEMON=%s is not an executable "
			 "file", env);
		return;
	}
	snprintf(dirs, sizeof(dirs), "%s", TERN_SIMD_DIRS);
	for (char *p = dirs; (p = strchr(p, ':'));)
		*p = ' ';
	snprintf(out, len, "tern-simd is not beside libtern or the program, "
		 "%s%s%son PATH: set TERN_SIM_DAEMON to its path",
		 dirs[0] ? "in " : "", dirs, dirs[0] ? " or " : "or ");
}
