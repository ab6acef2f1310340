// SPDX-License-Identifier: MIT
/*
 * tern-inspect info DEV: everything known about one device: identity,
 * memory, engines, its links, fault counters, health and clients. Or the
 * same as JSON, written once for both (print.h). Its memory and jobs are
 * the lines of the model's list that say so (values.h).
 */
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"
#include "text.h"
#include "values.h"

static void info_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect info [options] DEV\n"
		"Everything known about device DEV (its index, node such as\n"
		"/dev/accel/accel0, or bus id): identity, capabilities, memory,\n"
		"each engine's type (dma, tensor, vector, scalar), core and\n"
		"counters, the engines by type, its fabric links, memory errors,\n"
		"health with the reasons, and the processes using it.\n"
		"\n"
		"Options:\n");
	inspect_print_common_options(out);
}

/* A link of @dev seen from its end: its port, the peer's, bytes out/in. */
struct info_link_end {
	uint32_t port, peer_device, peer_port;
	uint64_t bytes_out, bytes_in;
};

static bool info_link_end(const struct snapshot *snap,
			  const struct snapshot_device *dev,
			  const struct snapshot_link *link,
			  struct info_link_end *end)
{
	const struct snapshot_device *peer;
	uint32_t peer_id;

	if (link->device_a == dev->fabric_id) {
		end->port = link->port_a;
		end->peer_port = link->port_b;
		end->bytes_out = link->bytes_a_to_b;
		end->bytes_in = link->bytes_b_to_a;
		peer_id = link->device_b;
	} else if (link->device_b == dev->fabric_id) {
		end->port = link->port_b;
		end->peer_port = link->port_a;
		end->bytes_out = link->bytes_b_to_a;
		end->bytes_in = link->bytes_a_to_b;
		peer_id = link->device_a;
	} else {
		return false;
	}
	peer = snapshot_device_by_fabric_id(snap, peer_id);
	end->peer_device = peer ? peer->index : peer_id;
	return true;
}

/* "  LABEL:     CONV": a labelled line of the text, aligned. */
static const char *info_label(char *buf, size_t len, const char *label,
			      const char *conv)
{
	snprintf(buf, len, "  %-22s %s", label, conv);
	return buf;
}

/* "2.004 s": engine time as the tables show it. */
static void info_seconds(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f s", (double)ns / 1e9);
}

static void info_print_engines(struct print *p,
			       const struct snapshot_device *dev)
{
	print_u64(p, "engines_busy", "\nengines (%llu busy of ",
		  dev->engines_busy);
	print_text(p, "%u)\n", dev->engine_count);
	print_text(p, "  %-6s  %-7s  %-4s  %-4s  %-4s  %12s  %6s  %10s  %8s  %8s  %6s\n",
		   "ENGINE", "TYPE", "CORE", "BUSY", "HUNG", "BUSY TIME",
		   "QUEUED", "COMPLETED", "FAILED", "TIMEOUTS", "RESETS");
	print_array(p, "engines");
	for (uint32_t e = 0; e < dev->engine_count; e++) {
		const struct tern_state_engine *eng = &dev->engines[e];
		char busy[32];

		info_seconds(eng->busy_ns, busy, sizeof(busy));
		print_object(p, NULL);
		print_u64(p, "index", "  %-6llu  ", eng->index);
		print_string(p, "type", "%-7s  ", tern_engine_type_name(eng->type));
		print_optional_u64(p, "core", "%-4s  ",
				   snapshot_engine_has_core(eng), eng->core);
		print_bool(p, "busy", "%-4s  ", eng->busy, "yes", "no");
		print_bool(p, "hung", "%-4s  ", eng->hung, "YES", "no");
		print_u64(p, "busy_ns", NULL, eng->busy_ns);
		print_string(p, NULL, "%12s  ", busy);
		print_u64(p, "jobs_queued", "%6llu  ", eng->jobs_queued);
		print_u64(p, "jobs_completed", "%10llu  ", eng->jobs_completed);
		print_u64(p, "jobs_failed", "%8llu  ", eng->jobs_failed);
		print_u64(p, "timeouts", "%8llu  ", eng->timeouts);
		print_u64(p, "resets", "%6llu\n", eng->resets);
		print_u64(p, "hang_resets", NULL, eng->hang_resets);
		print_object_end(p);
	}
	print_array_end(p);
}

/*
 * The engines by type: how many, how many busy now, their busy time
 * together (top has the rate). Only the types the device has.
 */
static void info_print_engine_types(struct print *p,
				    const struct snapshot_device *dev)
{
	struct snapshot_engine_type types[SNAPSHOT_ENGINE_TYPES];
	bool any = false;

	snapshot_engine_types(dev, types);
	print_array(p, "engine_types");
	for (uint32_t t = 0; t < SNAPSHOT_ENGINE_TYPES; t++) {
		char busy[32];

		if (!types[t].engines)
			continue;
		if (!any)
			print_text(p, "\n  %-7s  %7s  %4s  %12s\n", "TYPE",
				   "ENGINES", "BUSY", "BUSY TIME");
		any = true;
		info_seconds(types[t].busy_ns, busy, sizeof(busy));
		print_object(p, NULL);
		print_string(p, "type", "  %-7s  ", tern_engine_type_name(t));
		print_u64(p, "engines", "%7llu  ", types[t].engines);
		print_u64(p, "engines_busy", "%4llu  ", types[t].busy);
		print_u64(p, "busy_ns", NULL, types[t].busy_ns);
		print_string(p, NULL, "%12s\n", busy);
		print_object_end(p);
	}
	print_array_end(p);
}

static void info_print_links(struct print *p, const struct snapshot *snap,
			     const struct snapshot_device *dev)
{
	bool any = false;

	print_u64(p, "links_up", "\nlinks (%llu up; ", dev->links_up);
	print_u64(p, "fabric_ports", "%llu fabric ports; FABRIC LINK numbers "
		  "the link across the fabric, as topo does)\n",
		  dev->port_count);
	print_array(p, "links");
	for (int l = 0; l < snap->link_count; l++) {
		const struct snapshot_link *link = &snap->links[l];
		struct info_link_end end;
		char peer[24];

		if (!info_link_end(snap, dev, link, &end))
			continue;
		if (!any)
			print_text(p, "  %-11s  %-4s  %-9s  %-5s  %12s  %12s  %6s\n",
				   "FABRIC LINK", "PORT", "PEER/PORT", "STATE",
				   "BYTES OUT", "BYTES IN", "ERRORS");
		any = true;
		snprintf(peer, sizeof(peer), "%u/%u", end.peer_device,
			 end.peer_port);
		print_object(p, NULL);
		print_u64(p, "index", "  %-11llu  ", link->index);
		print_u64(p, "port", "%-4llu  ", end.port);
		print_u64(p, "peer_device", NULL, end.peer_device);
		print_u64(p, "peer_port", NULL, end.peer_port);
		print_string(p, NULL, "%-9s  ", peer);
		print_string(p, "state", NULL, link->up ? "up" : "down");
		print_string(p, NULL, "%-5s  ", link->up ? "up" : "DOWN");
		print_bytes(p, "bytes_out", "%12s  ", end.bytes_out);
		print_bytes(p, "bytes_in", "%12s  ", end.bytes_in);
		print_u64(p, "errors", "%6llu\n", link->errors);
		print_object_end(p);
	}
	print_array_end(p);
	if (!any)
		print_text(p, "  none\n");
}

/*
 * The device's values of @section, as the model's list has them (its
 * lines' text): "section/label:\tconversion" a line of their own,
 * "section/conversion" going on, "section/" JSON only.
 */
static void info_print_section(struct print *p,
			       const struct snapshot_device *dev,
			       const char *section)
{
	size_t len = strlen(section);

	for (size_t i = 0; i < values_device.count; i++) {
		const struct value_line *line = &values_device.lines[i];
		const char *text = line->text, *tab;
		char label[64], fmt[96];
		uint64_t value = value_get(line, dev);

		if (!text || strncmp(text, section, len) || text[len] != '/')
			continue;
		text += len + 1;
		tab = strchr(text, '\t');
		if (tab) {
			snprintf(label, sizeof(label), "%.*s", (int)(tab - text),
				 text);
			text = info_label(fmt, sizeof(fmt), label, tab + 1);
		}
		if (line->unit == TERN_UNIT_BYTES)
			print_bytes(p, line->name, *text ? text : NULL, value);
		else
			print_u64(p, line->name, *text ? text : NULL, value);
	}
}

static void info_print(const struct inspect_options *opts,
		       const struct snapshot *snap,
		       const struct snapshot_device *dev)
{
	char fmt[64], used[32], total[32], memory[96];
	struct print p;

	cli_format_bytes(dev->memory_used_bytes, used, sizeof(used));
	cli_format_bytes(dev->memory_total_bytes, total, sizeof(total));
	snprintf(memory, sizeof(memory), "%s / %s (%u%%)", used, total,
		 dev->memory_total_bytes ?
		 (unsigned int)(dev->memory_used_bytes * 100 / dev->memory_total_bytes) : 0);

	print_begin(&p, opts, snap);
	print_object(&p, "device");
	print_u64(&p, "index", "device %llu\n", dev->index);
	print_string(&p, "name", info_label(fmt, sizeof(fmt), "name:", "%s\n"),
		     dev->name);
	print_string(&p, "node", info_label(fmt, sizeof(fmt), "node:", "%s\n"),
		     dev->node);
	print_string(&p, "bus_id",
		     info_label(fmt, sizeof(fmt), "bus id:", "%s\n"),
		     dev->bus_id);
	print_u64(&p, "fabric_id",
		  info_label(fmt, sizeof(fmt), "fabric id:", "%llu\n"),
		  dev->fabric_id);
	print_string(&p, "driver_version",
		     info_label(fmt, sizeof(fmt), "driver version:", "%s\n"),
		     dev->driver_version);
	print_capabilities(&p, "capabilities",
			   info_label(fmt, sizeof(fmt), "capabilities:",
				      "%s\n"), dev->capabilities);
	print_u64(&p, "engine_clock_hz",
		  info_label(fmt, sizeof(fmt), "engine clock:", "%llu Hz\n"),
		  dev->clock_hz);
	print_string(&p, "health",
		     info_label(fmt, sizeof(fmt), "health:", "%s"),
		     tern_health_name(dev->health));
	print_reasons(&p, "health_reasons",
		      dev->health_reasons ? ": %s\n" : "\n",
		      dev->health_reasons);

	print_text(&p, "\nmemory\n");
	print_string(&p, NULL, info_label(fmt, sizeof(fmt),
					  "device used / total:", "%s\n"),
		     memory);
	info_print_section(&p, dev, "memory");
	print_text(&p, "\njobs\n");
	info_print_section(&p, dev, "jobs");

	info_print_engines(&p, dev);
	info_print_engine_types(&p, dev);
	info_print_links(&p, snap, dev);
	print_u64(&p, "client_count", "\nclients (%llu)\n", dev->client_count);
	print_u64(&p, "clients_hidden", NULL, dev->clients_hidden);
	inspect_print_clients(&p, snap, dev, true);
	print_object_end(&p);
	print_end(&p);
}

static int info_run(int argc, char **argv, struct inspect_options *opts)
{
	struct inspect_args args = { .max_operands = 1 };
	const struct snapshot_device *dev;
	struct snapshot snap;
	int ret;

	ret = inspect_parse_args("info", argc, argv, opts, &args,
				 info_usage);
	if (ret != INSPECT_RUN)
		return ret;
	if (args.operand_count == 0) {
		fprintf(stderr,
			"tern-inspect info: expected a device: its index, node or bus id (see 'tern-inspect info --help')\n");
		return EXIT_USAGE;
	}
	ret = inspect_snapshot("info", &snap);
	if (ret)
		return ret;
	dev = snapshot_find_device(&snap, args.operands[0]);
	if (!dev) {
		fprintf(stderr, "tern-inspect info: no device '%s'; devices are %u-%u (see 'tern-inspect list')\n",
			args.operands[0], snap.devices[0].index,
			snap.devices[snap.device_count - 1].index);
		snapshot_free(&snap);
		return EXIT_USAGE;
	}
	inspect_note_node_error("info", dev);
	info_print(opts, &snap, dev);
	snapshot_free(&snap);
	return 0;
}

const struct inspect_command inspect_info_command = {
	.name = "info",
	.summary = "everything about one device: memory, engines, links, health",
	.usage = info_usage,
	.run = info_run,
};
