// SPDX-License-Identifier: MIT
/*
 * tern-inspect fault DEV link|mem-error|engine-hang ...: one command that
 * injects a fault the same way on both sources, so that operators and
 * tests drive faults alike: on tern.ko by writing the device's debugfs
 * file (root), on the simulated machine with tern_sim_inject_fault(), in
 * the same words.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "tern_sim.h"

#define FAULT_PROG "tern-inspect fault"

static void fault_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect fault DEV link PORT down|up|error\n"
		"       tern-inspect fault DEV mem-error correctable|uncorrectable [OFFSET]\n"
		"       tern-inspect fault DEV engine-hang ENGINE\n"
		"\n"
		"Injects a fault into device DEV (index, node or bus id): takes the\n"
		"link on PORT down or up or counts an error on it, reports a memory\n"
		"error (at byte OFFSET of the device's memory), or hangs ENGINE until\n"
		"its job times out and it is reset. On tern.ko this writes the\n"
		"device's debugfs file (fabric_link, mem_error, engine_hang) and needs\n"
		"root; on the simulated machine any process of the user may, and\n"
		"every process sees it. Watch it with 'tern-inspect events' and\n"
		"'tern-inspect health'.\n"
		"\n"
		"It prints what it wrote, as text only.\n"
		"\n"
		"Exit status: 0 injected; 1 refused (not root on tern.ko, or the\n"
		"driver or machine said no); 2 bad command line.\n");
}

/* What to write where: the debugfs file and its line. */
struct fault_request {
	const char *file;
	char line[96];
};

static int fault_bad(const char *what)
{
	fprintf(stderr, FAULT_PROG ": %s (see 'tern-inspect fault --help')\n",
		what);
	return EXIT_USAGE;
}

/* Turns the words after DEV into @req; EXIT_USAGE with a message if not. */
static int fault_parse(char **words, int count,
		       const struct snapshot_device *dev,
		       struct fault_request *req)
{
	char msg[160];
	long n;

	if (count < 1)
		return fault_bad("expected link, mem-error or engine-hang after the device");
	if (strcmp(words[0], "link") == 0) {
		if (count != 3)
			return fault_bad("link takes PORT and down, up or error");
		if (!cli_parse_long(words[1], 0, (long)dev->port_count - 1, &n)) {
			snprintf(msg, sizeof(msg), "link '%s': expected a port of device %u, 0-%d",
				 words[1], dev->index, (int)dev->port_count - 1);
			return fault_bad(msg);
		}
		if (strcmp(words[2], "down") && strcmp(words[2], "up") &&
		    strcmp(words[2], "error")) {
			snprintf(msg, sizeof(msg), "link %ld '%s': expected down, up or error",
				 n, words[2]);
			return fault_bad(msg);
		}
		req->file = "fabric_link";
		snprintf(req->line, sizeof(req->line), "%ld %s", n, words[2]);
		return 0;
	}
	if (strcmp(words[0], "mem-error") == 0) {
		if (count < 2 || count > 3 ||
		    (strcmp(words[1], "correctable") &&
		     strcmp(words[1], "uncorrectable")))
			return fault_bad("mem-error takes correctable or uncorrectable, then an optional OFFSET");
		if (count == 3 && !cli_parse_long(words[2], 0, LONG_MAX, &n)) {
			snprintf(msg, sizeof(msg), "mem-error offset '%s': expected a byte offset",
				 words[2]);
			return fault_bad(msg);
		}
		req->file = "mem_error";
		snprintf(req->line, sizeof(req->line), "%s%s%s", words[1],
			 count == 3 ? " " : "", count == 3 ? words[2] : "");
		return 0;
	}
	if (strcmp(words[0], "engine-hang") == 0) {
		if (count != 2 ||
		    !cli_parse_long(words[1], 0, (long)dev->engine_count - 1, &n)) {
			snprintf(msg, sizeof(msg), "engine-hang takes an engine of device %u, 0-%d",
				 dev->index, (int)dev->engine_count - 1);
			return fault_bad(msg);
		}
		req->file = "engine_hang";
		snprintf(req->line, sizeof(req->line), "%ld", n);
		return 0;
	}
	snprintf(msg, sizeof(msg), "unknown fault '%s'; faults are: link mem-error engine-hang",
		 words[0]);
	return fault_bad(msg);
}

/* tern.ko: the device's DRM debugfs directory, by its node. */
static void fault_debugfs_path(const struct snapshot_device *dev,
			       const char *file, char *path, size_t len)
{
	const char *render = "/dev/dri/renderD";
	const char *name = strchr(dev->bus_id, ':');

	if (strncmp(dev->node, render, strlen(render)) == 0)
		snprintf(path, len, "/sys/kernel/debug/dri/%s/%s",
			 dev->node + strlen(render), file);
	else	/* accel: named after the device, "tern.N" */
		snprintf(path, len, "/sys/kernel/debug/accel/%s/%s",
			 name ? name + 1 : dev->name, file);
}

static int fault_kernel(const struct snapshot_device *dev,
			const struct fault_request *req)
{
	char path[256];
	ssize_t n;
	int fd;

	fault_debugfs_path(dev, req->file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			fprintf(stderr, FAULT_PROG ": %s: injecting faults into tern.ko needs root (sudo tern-inspect fault ...)\n",
				path);
		else
			fprintf(stderr, FAULT_PROG ": %s: %s (is debugfs mounted at /sys/kernel/debug?)\n",
				path, strerror(errno));
		return 1;
	}
	n = write(fd, req->line, strlen(req->line));
	if (n != (ssize_t)strlen(req->line)) {
		fprintf(stderr, FAULT_PROG ": device %u: tern.ko refused '%s' in %s: %s\n",
			dev->index, req->line, req->file,
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

static int fault_run(int argc, char **argv, struct inspect_options *opts)
{
	const struct snapshot_device *dev;
	struct fault_request req;
	struct snapshot snap;
	tern_status_t status;
	int ret;

	/* The fault's words are positional: only -h is an option here. */
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		fault_usage(stdout);
		return 0;
	}
	(void)opts;
	if (argc >= 2 && argv[1][0] == '-')
		return fault_bad("expected a device, not an option");
	if (argc < 3)
		return fault_bad("expected a device and a fault");
	ret = inspect_snapshot("fault", &snap);
	if (ret)
		return ret;
	dev = snapshot_find_device(&snap, argv[1]);
	if (!dev) {
		fprintf(stderr, FAULT_PROG ": no device '%s'; devices are %u-%u (see 'tern-inspect list')\n",
			argv[1], snap.devices[0].index,
			snap.devices[snap.device_count - 1].index);
		snapshot_free(&snap);
		return EXIT_USAGE;
	}
	ret = fault_parse(argv + 2, argc - 2, dev, &req);
	if (!ret && snap.source == SNAPSHOT_SOURCE_DRIVER) {
		ret = fault_kernel(dev, &req);
	} else if (!ret) {
		status = tern_sim_inject_fault((int)dev->index, req.file,
					       req.line);
		if (status) {
			fprintf(stderr, FAULT_PROG ": device %u: %s: %s\n",
				dev->index, req.line, tern_get_last_error());
			ret = status == TERN_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : 1;
		}
	}
	if (!ret)
		printf("device %u: %s: %s\n", dev->index, req.file, req.line);
	snapshot_free(&snap);
	return ret;
}

const struct inspect_command inspect_fault_command = {
	.name = "fault",
	.summary = "inject a link, memory or engine fault (tern.ko or sim)",
	.usage = fault_usage,
	.run = fault_run,
};
