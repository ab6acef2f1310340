// SPDX-License-Identifier: MIT
/*
 * tern-inspect module unload: which processes keep tern.ko busy, found as
 * fuser would: their open files and mappings of the device nodes whose
 * device's driver is tern.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "module_kmod.h"
#include "text.h"

/* Whether @link (a /proc/PID/fd target or maps path) is one of @nodes. */
static bool module_is_node(const char *link, char nodes[][32], int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(link, nodes[i]) == 0)
			return true;
	return false;
}

/* The last part of the symbolic link @path points to, or "" if none. */
static void module_link_name(const char *path, char *name, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *last;

	name[0] = '\0';
	if (n < 0)
		return;
	target[n] = '\0';
	last = strrchr(target, '/');
	snprintf(name, len, "%.255s", last ? last + 1 : target);
}

/*
 * Whether node @name of @class_dir belongs to tern: its device is bound to
 * the driver "tern" (a chip or a mock device), or is a mock device,
 * platform device "tern.<index>", of an older tern.ko that bound none.
 */
static bool module_node_is_tern(const char *class_dir, const char *name)
{
	char path[512], link[256];
	size_t prefix = strlen(MODULE_NAME ".");

	snprintf(path, sizeof(path), "%s/%s/device/driver", class_dir, name);
	module_link_name(path, link, sizeof(link));
	if (strcmp(link, MODULE_NAME) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/%s/device", class_dir, name);
	module_link_name(path, link, sizeof(link));
	return strncmp(link, MODULE_NAME ".", prefix) == 0 && link[prefix] &&
	       strspn(link + prefix, "0123456789") == strlen(link + prefix);
}

/*
 * The device nodes tern.ko made: accel (6.12) or DRM render (6.1) nodes
 * of tern's devices.
 */
static int module_tern_nodes(char nodes[][32], int max)
{
	static const struct {
		const char *class_dir, *prefix, *dev_dir;
	} classes[] = {
		{ "/sys/class/accel", "accel", "/dev/accel" },
		{ "/sys/class/drm", "renderD", "/dev/dri" },
	};
	int count = 0;

	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
		DIR *dir = opendir(classes[c].class_dir);
		struct dirent *entry;

		while (dir && (entry = readdir(dir)) && count < max) {
			if (strncmp(entry->d_name, classes[c].prefix,
				    strlen(classes[c].prefix)) != 0)
				continue;
			if (!module_node_is_tern(classes[c].class_dir,
						 entry->d_name))
				continue;
			snprintf(nodes[count++], 32, "%s/%.16s",
				 classes[c].dev_dir, entry->d_name);
		}
		if (dir)
			closedir(dir);
	}
	return count;
}

/* Whether process @pid has one of @nodes open or mapped. */
static bool module_process_uses(const char *pid, char nodes[][32], int count)
{
	char path[300], target[PATH_MAX], line[1024];
	struct dirent *entry;
	bool uses = false;
	FILE *maps;
	DIR *fds;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	fds = opendir(path);
	while (fds && !uses && (entry = readdir(fds))) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%.32s", pid,
			 entry->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		uses = module_is_node(target, nodes, count);
	}
	if (fds)
		closedir(fds);
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	maps = uses ? NULL : fopen(path, "r");
	while (maps && !uses && fgets(line, sizeof(line), maps)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		uses = module_is_node(file, nodes, count);
	}
	if (maps)
		fclose(maps);
	return uses;
}

/* Prints " pid 123 (python3)" for each process using tern's nodes. */
void module_print_users(void)
{
	char nodes[128][32], comm_path[300], comm[64], shown[64];
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	int count = module_tern_nodes(nodes, 128), found = 0;
	FILE *file;

	while (count && proc && (entry = readdir(proc))) {
		if (!isdigit((unsigned char)entry->d_name[0]) ||
		    !module_process_uses(entry->d_name, nodes, count))
			continue;
		snprintf(comm_path, sizeof(comm_path), "/proc/%s/comm",
			 entry->d_name);
		comm[0] = '\0';
		file = fopen(comm_path, "r");
		if (file) {
			if (fgets(comm, sizeof(comm), file))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(file);
		}
		fprintf(stderr, "%s pid %s (%s)",
			found++ ? "," : MODULE_PROG ": processes using its devices:",
			entry->d_name,
			text_printable(comm, shown, sizeof(shown)));
	}
	if (proc)
		closedir(proc);
	if (found)
		fputc('\n', stderr);
}

