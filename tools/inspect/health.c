// SPDX-License-Identifier: MIT
/*
 * tern-inspect health [-q]: each device's health with the reasons and the
 * fault counters behind them, each link that is down or saw errors, and a
 * summary. Exit status 0 when every device is ok, 1 when any is degraded
 * or failed (or the devices could not be read), so scripts and probes can
 * use it directly. Text and JSON are written once for both (print.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"

#define HEALTH_PROG "tern-inspect health"

static void health_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect health [-q] [options]\n"
		"       tern-inspect health --clear DEV|all\n"
		"Each device's health (ok, degraded, failed) and why: memory\n"
		"errors, job timeouts, engine resets, links down and link errors;\n"
		"then each link that is down or counted errors, and a summary.\n"
		"\n"
		"--clear (root) forgets the past faults of device DEV (index, node\n"
		"or bus id) or of all: link_errors, engine_reset and\n"
		"mem_uncorrected clear, the counters stay; link_down and\n"
		"engine_hung last while the link is down or the engine hung.\n"
		"\n"
		"Exit status: 0 every device is ok (--clear: cleared); 1 a device\n"
		"is degraded or failed, or the devices could not be read (--clear:\n"
		"not root, or the driver cannot clear); 2 bad command line.\n"
		"\n"
		"Options:\n"
		"  -q, --quiet     print nothing; the exit status says it all\n"
		"  -c, --clear     clear the device named after it, or all\n");
	inspect_print_common_options(out);
}

/* Devices in each state; index by uint32_t. */
struct health_summary {
	int count[3];
};

static void health_summarize(const struct snapshot *snap,
			     struct health_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < snap->device_count; i++)
		sum->count[snap->devices[i].health]++;
}

/* A link that is down or counted errors, by device index. */
static void health_print_link(struct print *p, const struct snapshot *snap,
			      const struct snapshot_link *link)
{
	const struct snapshot_device *a =
		snapshot_device_by_fabric_id(snap, link->device_a);
	const struct snapshot_device *b =
		snapshot_device_by_fabric_id(snap, link->device_b);

	print_object(p, NULL);
	print_u64(p, "index", "link %llu: ", link->index);
	print_u64(p, "device_a", "device %llu ", a ? a->index : link->device_a);
	print_u64(p, "port_a", "port %llu <-> ", link->port_a);
	print_u64(p, "device_b", "device %llu ", b ? b->index : link->device_b);
	print_u64(p, "port_b", "port %llu: ", link->port_b);
	print_string(p, "state", NULL, link->up ? "up" : "down");
	print_string(p, NULL, "%s, ", link->up ? "up" : "DOWN");
	print_u64(p, "errors", "%llu errors\n", link->errors);
	print_object_end(p);
}

static void health_print(const struct inspect_options *opts,
			 const struct snapshot *snap,
			 const struct health_summary *sum)
{
	bool healthy = sum->count[DRM_TERN_HEALTH_OK] == snap->device_count;
	struct print p;

	print_begin(&p, opts, snap);
	print_text(&p, "%-6s  %-8s  %-32s  %11s  %8s  %6s  %10s  %11s\n",
		   "DEVICE", "HEALTH", "REASONS", "MEM ERR C/U", "TIMEOUTS",
		   "RESETS", "LINKS DOWN", "LINK ERRORS");
	print_array(&p, "devices");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];
		struct inspect_link_counts links;
		char mem[48];

		inspect_count_links(snap, dev, &links);
		snprintf(mem, sizeof(mem), "%llu/%llu",
			 (unsigned long long)dev->mem_errors_corrected,
			 (unsigned long long)dev->mem_errors_uncorrected);
		print_object(&p, NULL);
		print_u64(&p, "index", "%-6llu  ", dev->index);
		print_string(&p, "health", "%-8s  ",
			     tern_health_name(dev->health));
		print_reasons(&p, "health_reasons", "%-32s  ",
			      dev->health_reasons);
		print_u64(&p, "mem_errors_corrected", NULL,
			  dev->mem_errors_corrected);
		print_u64(&p, "mem_errors_uncorrected", NULL,
			  dev->mem_errors_uncorrected);
		print_string(&p, NULL, "%11s  ", mem);
		print_u64(&p, "job_timeouts", "%8llu  ", dev->job_timeouts);
		print_u64(&p, "engine_resets", "%6llu  ", dev->engine_resets);
		print_u64(&p, "engine_hang_resets", NULL,
			  dev->engine_hang_resets);
		print_u64(&p, "links_down", "%10llu  ", links.down);
		print_u64(&p, "link_errors", "%11llu\n", links.errors);
		print_object_end(&p);
	}
	print_array_end(&p);
	print_array(&p, "links");
	for (int l = 0; l < snap->link_count; l++)
		if (!snap->links[l].up || snap->links[l].errors)
			health_print_link(&p, snap, &snap->links[l]);
	print_array_end(&p);
	print_bool(&p, "healthy", "%s: ", healthy, "healthy", "UNHEALTHY");
	print_object(&p, "summary");
	print_u64(&p, "devices", "%llu devices: ", (uint64_t)snap->device_count);
	print_u64(&p, "ok", "%llu ok, ", (uint64_t)sum->count[DRM_TERN_HEALTH_OK]);
	print_u64(&p, "degraded", "%llu degraded, ",
		  (uint64_t)sum->count[DRM_TERN_HEALTH_DEGRADED]);
	print_u64(&p, "failed", "%llu failed\n",
		  (uint64_t)sum->count[DRM_TERN_HEALTH_FAILED]);
	print_object_end(&p);
	print_end(&p);
}

/*
 * Where tern.ko takes "1" to forget a device's past faults: under the
 * device behind its node, whatever bus it is on (platform for mock
 * hardware, PCI for a chip).
 */
static void health_clear_path(const struct snapshot_device *dev, char *buf,
			      size_t len)
{
	const char *minor = strrchr(dev->node, '/');
	const char *class = strncmp(dev->node, "/dev/accel/", 11) == 0 ?
			    "accel" : "drm";

	snprintf(buf, len, "/sys/class/%s/%s/device/tern/health_clear", class,
		 minor ? minor + 1 : dev->node);
}

/* Writes "1" to @dev's health_clear. Returns 0 or the exit status. */
static int health_clear_device(const struct snapshot_device *dev)
{
	char path[200];
	FILE *file;
	int err = 0;

	health_clear_path(dev, path, sizeof(path));
	file = fopen(path, "w");
	if (!file || fputs("1", file) == EOF)
		err = errno;
	if (file && fclose(file) != 0 && !err)
		err = errno;
	if (!err)
		return 0;
	if (err == ENOENT)
		fprintf(stderr,
			HEALTH_PROG ": tern.ko %s has no health_clear (%s): the driver is older than this tool; load a newer tern.ko\n",
			dev->driver_version[0] ? dev->driver_version : "(unknown version)",
			path);
	else
		fprintf(stderr, HEALTH_PROG ": clearing device %u: %s: %s\n",
			dev->index, path, strerror(err));
	return 1;
}

/* health --clear WHICH: every device, or the one @which names. */
static int health_clear(const struct inspect_options *opts, const char *which)
{
	const struct snapshot_device *dev = NULL;
	bool all = strcmp(which, "all") == 0;
	struct snapshot snap;
	struct print p;
	int ret;

	ret = inspect_snapshot("health", &snap);
	if (ret)
		return ret;
	if (!all && !(dev = snapshot_find_device(&snap, which))) {
		fprintf(stderr,
			HEALTH_PROG ": --clear '%s': expected all or a device; devices are %u-%u (see 'tern-inspect list')\n",
			which, snap.devices[0].index,
			snap.devices[snap.device_count - 1].index);
		snapshot_free(&snap);
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr,
			HEALTH_PROG ": clearing health needs root: sudo tern-inspect health --clear %s\n",
			which);
		ret = 1;
	} else if (snap.source != SNAPSHOT_SOURCE_DRIVER) {
		fprintf(stderr,
			HEALTH_PROG ": the simulator keeps no health to clear: --clear is for tern.ko's devices\n");
		ret = 1;
	}
	for (int i = 0; !ret && i < snap.device_count; i++)
		if (all || &snap.devices[i] == dev)
			ret = health_clear_device(&snap.devices[i]);
	if (!ret) {
		print_begin(&p, opts, &snap);
		if (all)
			print_text(&p, "cleared the health of all %d devices\n",
				   snap.device_count);
		else
			print_text(&p, "cleared the health of device %u\n",
				   dev->index);
		print_array(&p, "cleared");
		for (int i = 0; i < snap.device_count; i++)
			if (all || &snap.devices[i] == dev)
				print_element_u64(&p, NULL,
						  snap.devices[i].index);
		print_array_end(&p);
		print_end(&p);
	}
	snapshot_free(&snap);
	return ret;
}

static int health_run(int argc, char **argv, struct inspect_options *opts)
{
	bool quiet = false, clear = false;
	const struct inspect_flag flags[] = {
		{ 'q', "quiet", &quiet }, { 'c', "clear", &clear },
	};
	struct inspect_args args = { .flags = flags, .flag_count = 2,
				     .max_operands = 1 };
	struct health_summary sum;
	struct snapshot snap;
	int ret;

	ret = inspect_parse_args("health", argc, argv, opts, &args,
				 health_usage);
	if (ret != INSPECT_RUN)
		return ret;
	if (clear && args.operand_count == 0) {
		fprintf(stderr,
			HEALTH_PROG ": --clear: expected a device (index, node or bus id) or all (see 'tern-inspect health --help')\n");
		return EXIT_USAGE;
	}
	if (!clear && args.operand_count)
		return inspect_extra_argument("health", "health",
					      args.operands[0]);
	if (clear && quiet) {
		fprintf(stderr, HEALTH_PROG ": --quiet does not apply to --clear\n");
		return EXIT_USAGE;
	}
	if (clear)
		return health_clear(opts, args.operands[0]);
	ret = inspect_snapshot("health", &snap);
	if (ret)
		return ret == EXIT_USAGE ? ret : 1;
	health_summarize(&snap, &sum);
	if (!quiet)	/* else the exit status is the answer */
		health_print(opts, &snap, &sum);
	ret = sum.count[DRM_TERN_HEALTH_OK] == snap.device_count ? 0 : 1;
	snapshot_free(&snap);
	return ret;
}

const struct inspect_command inspect_health_command = {
	.name = "health",
	.summary = "each device's health and why; exit 1 if any is not ok",
	.usage = health_usage,
	.run = health_run,
};
