// SPDX-License-Identifier: MIT
/*
 * tern-inspect list [-v]: one row per device (node, bus id, memory,
 * engines, links, health, clients); -v adds each device's clients and
 * capabilities. Or the same as JSON, written once for both (print.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"
#include "text.h"

/* The window engine utilisation is measured over: short, still a sample. */
#define LIST_UTILISATION_NS 100000000L

static void list_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect list [-v] [options]\n"
		"A line naming the backend, one with the driver's version, the\n"
		"device count and the fabric's shape, then one line per device:\n"
		"index, device node, bus id, engine utilisation over 0.1 s (\"-\"\n"
		"on the simulator, which keeps no engine time), device memory used\n"
		"and total, engines busy now of all, fabric links up of all,\n"
		"health and the number of processes (open files) using it.\n"
		"\n"
		"Options:\n"
		"  -v, --verbose   also each device's clients (pid, command,\n"
		"                  memory) and capabilities; other users' clients\n"
		"                  only for root or CAP_PERFMON (counted otherwise)\n");
	inspect_print_common_options(out);
}

static int list_width(const struct snapshot *snap, size_t offset,
		      const char *title)
{
	int width = (int)strlen(title);

	for (int i = 0; i < snap->device_count; i++) {
		const char *text = (const char *)&snap->devices[i] + offset;
		int len = (int)strlen(text);

		if (len > width)
			width = len;
	}
	return width;
}

/*
 * "tern.ko 0.4.0, 16 devices, torus:4x4" or "simulator, 4 devices, ring":
 * what answers, how many devices it has and how they are joined.
 */
static void list_print_summary(const struct snapshot *snap)
{
	const char *version = snap->device_count ?
		snap->devices[0].driver_version : "";
	char shape[80];

	topo_shape(snap, shape, sizeof(shape));
	if (snap->source == SNAPSHOT_SOURCE_SIM)
		printf("simulator");
	else
		printf("tern.ko%s%s", version[0] ? " " : "", version);
	printf(", %d device%s, %s\n", snap->device_count,
	       snap->device_count == 1 ? "" : "s", shape);
}

/* Engine time of @dev's engines, all together. */
static uint64_t list_busy_ns(const struct snapshot_device *dev)
{
	uint64_t total = 0;

	for (uint32_t e = 0; e < dev->engine_count; e++)
		total += dev->engines[e].busy_ns;
	return total;
}

/*
 * "37" (percent of @dev's engine time busy since @before, an earlier
 * snapshot), or "-" when there is none to compare with.
 */
static void list_utilisation(const struct snapshot *snap,
			     const struct snapshot *before,
			     const struct snapshot_device *dev, char *buf,
			     size_t len)
{
	uint64_t interval = before ? snap->taken_ns - before->taken_ns : 0;
	const struct snapshot_device *was = NULL;
	uint64_t busy, capacity;

	for (int i = 0; before && i < before->device_count; i++)
		if (before->devices[i].index == dev->index)
			was = &before->devices[i];
	capacity = interval * dev->engine_count;
	if (!was || !capacity) {
		snprintf(buf, len, "-");
		return;
	}
	busy = list_busy_ns(dev) > list_busy_ns(was) ?
	       list_busy_ns(dev) - list_busy_ns(was) : 0;
	snprintf(buf, len, "%.0f", busy >= capacity ? 100.0 :
		 100.0 * (double)busy / (double)capacity);
}

/* The table, or its JSON; @before: the snapshot utilisation is from. */
static void list_print(const struct inspect_options *opts,
		       const struct snapshot *snap,
		       const struct snapshot *before, bool verbose)
{
	int node_width = list_width(snap, offsetof(struct snapshot_device, node),
				    "NODE");
	int bus_width = list_width(snap,
				   offsetof(struct snapshot_device, bus_id),
				   "BUS ID");
	char node_fmt[16], bus_fmt[16];
	struct print p;

	snprintf(node_fmt, sizeof(node_fmt), "%%-%ds  ", node_width);
	snprintf(bus_fmt, sizeof(bus_fmt), "%%-%ds  ", bus_width);
	print_begin(&p, opts, snap);
	print_text(&p, "backend: %s\n", cli_backend_description(snap->backend));
	if (snap->device_count && !p.json) {
		list_print_summary(snap);
		printf("%-6s  %-*s  %-*s  %5s  %-28s  %7s  %5s  %-8s  %5s\n",
		       "DEVICE", node_width, "NODE", bus_width, "BUS ID",
		       "UTIL%", "MEMORY USED / TOTAL", "ENGINES", "LINKS",
		       "HEALTH", "PROCS");
	}
	print_array(&p, "devices");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];
		char used[32], total[32], memory[80], engines[24], links_text[24];
		char util[8];
		struct inspect_link_counts links;
		uint64_t used_bytes = dev->memory_used_bytes;
		uint64_t total_bytes = dev->memory_total_bytes;
		unsigned int percent = total_bytes ?
			(unsigned int)(used_bytes * 100 / total_bytes) : 0;

		inspect_count_links(snap, dev, &links);
		cli_format_bytes(used_bytes, used, sizeof(used));
		cli_format_bytes(total_bytes, total, sizeof(total));
		snprintf(memory, sizeof(memory), "%s / %s (%u%%)", used, total,
			 percent);
		snprintf(engines, sizeof(engines), "%u/%u", dev->engines_busy,
			 dev->engine_count);
		snprintf(links_text, sizeof(links_text), "%u/%u", dev->links_up,
			 links.total);
		list_utilisation(snap, before, dev, util, sizeof(util));

		print_object(&p, NULL);
		print_u64(&p, "index", "%-6llu  ", dev->index);
		print_string(&p, "node", node_fmt, dev->node);
		print_string(&p, "bus_id", bus_fmt, dev->bus_id);
		print_u64(&p, "fabric_id", NULL, dev->fabric_id);
		print_string(&p, NULL, "%5s  ", util);
		print_u64(&p, "memory_used_bytes", NULL, used_bytes);
		print_u64(&p, "memory_total_bytes", NULL, total_bytes);
		print_string(&p, NULL, "%-28s  ", memory);
		print_u64(&p, "engines_busy", NULL, dev->engines_busy);
		print_u64(&p, "engines", NULL, dev->engine_count);
		print_u64(&p, "engine_clock_hz", NULL, dev->clock_hz);
		print_string(&p, NULL, "%7s  ", engines);
		print_u64(&p, "links_up", NULL, dev->links_up);
		print_u64(&p, "links_total", NULL, links.total);
		print_u64(&p, "fabric_ports", NULL, dev->port_count);
		print_string(&p, NULL, "%5s  ", links_text);
		print_string(&p, "health", "%-8s  ",
			     tern_health_name(dev->health));
		print_reasons(&p, "health_reasons", NULL, dev->health_reasons);
		print_u64(&p, "client_count", "%5llu\n", dev->client_count);
		print_u64(&p, "clients_hidden", NULL, dev->clients_hidden);
		print_capabilities(&p, "capabilities",
				   verbose ? "        capabilities: %s\n" : NULL,
				   dev->capabilities);
		if (verbose)
			inspect_print_clients(&p, snap, dev, false);
		print_object_end(&p);
	}
	print_array_end(&p);
	print_end(&p);
}

/*
 * Engine utilisation needs two readings of the engines' busy time: the
 * table shows a second snapshot, 0.1 s after @first.
 */
static int list_with_utilisation(const struct inspect_options *opts,
				 const struct snapshot *first, bool verbose)
{
	const struct timespec pause = { 0, LIST_UTILISATION_NS };
	struct snapshot_session session = { 0 };
	struct snapshot later;
	int ret;

	nanosleep(&pause, NULL);
	ret = snapshot_refresh("tern-inspect list", &session, first, &later);
	snapshot_session_end(&session);
	if (ret)
		return ret;
	list_print(opts, &later, first, verbose);
	snapshot_free(&later);
	return 0;
}

static int list_run(int argc, char **argv, struct inspect_options *opts)
{
	bool verbose = false;
	const struct inspect_flag flags[] = { { 'v', "verbose", &verbose } };
	struct inspect_args args = { .flags = flags, .flag_count = 1 };
	struct snapshot snap;
	int ret;

	ret = inspect_parse_args("list", argc, argv, opts, &args,
				 list_usage);
	if (ret != INSPECT_RUN)
		return ret;
	ret = inspect_snapshot("list", &snap);
	if (ret) {
		/* Still say which backend found nothing, when it is known. */
		if (ret == 1 && snap.backend)
			list_print(opts, &snap, NULL, verbose);
		return ret;
	}
	/* One note is enough: the nodes share their owner and mode. */
	for (int i = 0; verbose && i < snap.device_count; i++) {
		if (snap.devices[i].node_errno) {
			inspect_note_node_error("list", &snap.devices[i]);
			break;
		}
	}
	if (!opts->json && snap.source == SNAPSHOT_SOURCE_DRIVER)
		ret = list_with_utilisation(opts, &snap, verbose);
	else
		list_print(opts, &snap, NULL, verbose);
	snapshot_free(&snap);
	return ret;
}

const struct inspect_command inspect_list_command = {
	.name = "list",
	.summary = "one line per device: memory, engines, links, health, processes",
	.usage = list_usage,
	.run = list_run,
};
