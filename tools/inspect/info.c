// SPDX-License-Identifier: MIT
/*
 * tern-inspect info DEV: everything known about one device: identity,
 * memory, engines, its links, fault counters, health and clients. Or the
 * same as JSON.
 */
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "json.h"
#include "text.h"

static void info_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect info [options] DEV\n"
		"Everything known about device DEV (its index, node such as\n"
		"/dev/accel/accel0, or bus id): identity, capabilities, memory,\n"
		"each engine's counters, its fabric links, memory errors, health\n"
		"with the reasons, and the processes using it.\n"
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

static uint32_t info_engine_count(const struct snapshot_device *dev)
{
	return dev->engine_count < SNAPSHOT_MAX_ENGINES ? dev->engine_count
							: SNAPSHOT_MAX_ENGINES;
}

static void info_print_json(const struct inspect_options *opts,
			    const struct snapshot *snap,
			    const struct snapshot_device *dev)
{
	struct json_writer w;

	inspect_json_begin(&w, opts, snap);
	json_object_begin(&w, "device");
	json_u64(&w, "index", dev->index);
	json_string(&w, "name", dev->name);
	json_string(&w, "node", dev->node);
	json_string(&w, "bus_id", dev->bus_id);
	json_u64(&w, "fabric_id", dev->fabric_id);
	json_string(&w, "driver_version", dev->driver_version);
	inspect_json_capabilities(&w, "capabilities", dev->capabilities);
	json_u64(&w, "engine_clock_hz", dev->clock_hz);
	json_u64(&w, "memory_used_bytes", dev->mem_used);
	json_u64(&w, "memory_total_bytes", dev->mem_total);
	json_u64(&w, "memory_host_used_bytes", dev->mem_host_used);
	json_u64(&w, "buffers", dev->buffer_count);
	json_u64(&w, "engines_busy", dev->engines_busy);
	json_u64(&w, "jobs_completed", dev->jobs_completed);
	json_u64(&w, "jobs_failed", dev->jobs_failed);
	json_u64(&w, "job_timeouts", dev->job_timeouts);
	json_u64(&w, "engine_resets", dev->engine_resets);
	json_u64(&w, "engine_hang_resets", dev->engine_hang_resets);
	json_u64(&w, "mem_errors_corrected", dev->mem_errors_corrected);
	json_u64(&w, "mem_errors_uncorrected", dev->mem_errors_uncorrected);
	json_string(&w, "health", snapshot_health_name(dev->health));
	inspect_json_reasons(&w, "health_reasons", dev->health_reasons);
	json_u64(&w, "fabric_ports", dev->port_count);
	json_u64(&w, "links_up", dev->links_up);
	json_array_begin(&w, "engines");
	for (uint32_t e = 0; e < info_engine_count(dev); e++) {
		const struct snapshot_engine *eng = &dev->engines[e];

		json_object_begin(&w, NULL);
		json_u64(&w, "index", eng->index);
		json_bool(&w, "busy", eng->busy);
		json_bool(&w, "hung", eng->hung);
		json_u64(&w, "busy_ns", eng->busy_ns);
		json_u64(&w, "jobs_queued", eng->jobs_queued);
		json_u64(&w, "jobs_completed", eng->jobs_completed);
		json_u64(&w, "jobs_failed", eng->jobs_failed);
		json_u64(&w, "timeouts", eng->timeouts);
		json_u64(&w, "resets", eng->resets);
		json_u64(&w, "hang_resets", eng->hang_resets);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_array_begin(&w, "links");
	for (int l = 0; l < snap->link_count; l++) {
		const struct snapshot_link *link = &snap->links[l];
		struct info_link_end end;

		if (!info_link_end(snap, dev, link, &end))
			continue;
		json_object_begin(&w, NULL);
		json_u64(&w, "index", link->index);
		json_u64(&w, "port", end.port);
		json_u64(&w, "peer_device", end.peer_device);
		json_u64(&w, "peer_port", end.peer_port);
		json_string(&w, "state", link->up ? "up" : "down");
		json_u64(&w, "bytes_out", end.bytes_out);
		json_u64(&w, "bytes_in", end.bytes_in);
		json_u64(&w, "errors", link->errors);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_u64(&w, "client_count", dev->client_count);
	json_u64(&w, "clients_hidden", dev->clients_hidden);
	inspect_json_clients(&w, snap, dev->index);
	json_object_end(&w);
	json_object_end(&w);
	json_finish(&w);
}

static void info_print_engines(const struct snapshot_device *dev)
{
	printf("\nengines (%u busy of %u)\n", dev->engines_busy,
	       dev->engine_count);
	printf("  %-6s  %-4s  %-4s  %12s  %6s  %10s  %8s  %8s  %6s\n", "ENGINE",
	       "BUSY", "HUNG", "BUSY TIME", "QUEUED", "COMPLETED", "FAILED",
	       "TIMEOUTS", "RESETS");
	for (uint32_t e = 0; e < info_engine_count(dev); e++) {
		const struct snapshot_engine *eng = &dev->engines[e];
		char busy[32];

		snprintf(busy, sizeof(busy), "%.3f s",
			 (double)eng->busy_ns / 1e9);
		printf("  %-6u  %-4s  %-4s  %12s  %6u  %10llu  %8llu  %8llu  %6llu\n",
		       eng->index, eng->busy ? "yes" : "no",
		       eng->hung ? "YES" : "no", busy, eng->jobs_queued,
		       (unsigned long long)eng->jobs_completed,
		       (unsigned long long)eng->jobs_failed,
		       (unsigned long long)eng->timeouts,
		       (unsigned long long)eng->resets);
	}
}

static void info_print_links(const struct snapshot *snap,
			     const struct snapshot_device *dev)
{
	bool any = false;

	printf("\nlinks (%u up; %u fabric ports; FABRIC LINK numbers the link "
	       "across the fabric, as topo does)\n", dev->links_up,
	       dev->port_count);
	for (int l = 0; l < snap->link_count; l++) {
		const struct snapshot_link *link = &snap->links[l];
		struct info_link_end end;
		char peer[24], out[32], in[32];

		if (!info_link_end(snap, dev, link, &end))
			continue;
		if (!any)
			printf("  %-11s  %-4s  %-9s  %-5s  %12s  %12s  %6s\n",
			       "FABRIC LINK", "PORT", "PEER/PORT", "STATE",
			       "BYTES OUT", "BYTES IN", "ERRORS");
		any = true;
		snprintf(peer, sizeof(peer), "%u/%u", end.peer_device,
			 end.peer_port);
		cli_format_bytes(end.bytes_out, out, sizeof(out));
		cli_format_bytes(end.bytes_in, in, sizeof(in));
		printf("  %-11u  %-4u  %-9s  %-5s  %12s  %12s  %6llu\n",
		       link->index, end.port, peer, link->up ? "up" : "DOWN",
		       out, in, (unsigned long long)link->errors);
	}
	if (!any)
		printf("  none\n");
}

static void info_print_clients(const struct snapshot *snap,
			       const struct snapshot_device *dev)
{
	char note[128];
	bool any = false;

	printf("\nclients (%u)\n", dev->client_count);
	for (int c = 0; c < snap->client_count; c++) {
		const struct snapshot_client *client = &snap->clients[c];
		char mem[32], host[32], comm[TEXT_PRINTABLE_MAX];

		if (client->device != dev->index)
			continue;
		if (!any)
			printf("  %-8s  %-16s  %12s  %12s  %7s  %6s  %6s\n",
			       "PID", "COMMAND", "DEVICE MEM", "HOST MEM",
			       "BUFFERS", "QUEUES", "ACTIVE");
		any = true;
		cli_format_bytes(client->mem_device, mem, sizeof(mem));
		cli_format_bytes(client->mem_host, host, sizeof(host));
		printf("  %-8u  %-16s  %12s  %12s  %7u  %6u  %6u\n",
		       client->pid,
		       text_printable(client->comm, comm, sizeof(comm)), mem,
		       host, client->buffers,
		       client->queues, client->jobs_active);
	}
	inspect_hidden_note(dev->clients_hidden, note, sizeof(note));
	if (!any)
		printf("  none%s\n", note[0] ? " of yours" : "");
	if (note[0])
		printf("  %s\n", note);
}

static void info_print_plain(const struct snapshot *snap,
			     const struct snapshot_device *dev)
{
	char caps[160], used[32], total[32], host[32], reasons[128];

	inspect_format_capabilities(dev->capabilities, caps, sizeof(caps));
	cli_format_bytes(dev->mem_used, used, sizeof(used));
	cli_format_bytes(dev->mem_total, total, sizeof(total));
	cli_format_bytes(dev->mem_host_used, host, sizeof(host));
	snapshot_health_reasons(dev->health_reasons, reasons, sizeof(reasons));

	printf("device %u\n", dev->index);
	printf("  %-22s %s\n", "name:", dev->name);
	printf("  %-22s %s\n", "node:", dev->node);
	printf("  %-22s %s\n", "bus id:", dev->bus_id[0] ? dev->bus_id : "-");
	printf("  %-22s %u\n", "fabric id:", dev->fabric_id);
	printf("  %-22s %s\n", "driver version:",
	       dev->driver_version[0] ? dev->driver_version : "-");
	printf("  %-22s %s\n", "capabilities:", caps);
	printf("  %-22s %llu Hz\n", "engine clock:",
	       (unsigned long long)dev->clock_hz);
	printf("  %-22s %s%s%s\n", "health:", snapshot_health_name(dev->health),
	       reasons[0] ? ": " : "", reasons);
	printf("\nmemory\n");
	printf("  %-22s %s / %s (%u%%)\n", "device used / total:", used, total,
	       dev->mem_total ?
	       (unsigned int)(dev->mem_used * 100 / dev->mem_total) : 0);
	printf("  %-22s %s\n", "host buffers:", host);
	printf("  %-22s %u\n", "buffers:", dev->buffer_count);
	printf("  %-22s %llu corrected, %llu uncorrected\n", "memory errors:",
	       (unsigned long long)dev->mem_errors_corrected,
	       (unsigned long long)dev->mem_errors_uncorrected);
	printf("\njobs\n");
	printf("  %-22s %llu\n", "completed:",
	       (unsigned long long)dev->jobs_completed);
	printf("  %-22s %llu\n", "failed:", (unsigned long long)dev->jobs_failed);
	printf("  %-22s %llu\n", "timeouts:",
	       (unsigned long long)dev->job_timeouts);
	printf("  %-22s %llu (%llu after a hang)\n", "engine resets:",
	       (unsigned long long)dev->engine_resets,
	       (unsigned long long)dev->engine_hang_resets);
	info_print_engines(dev);
	info_print_links(snap, dev);
	info_print_clients(snap, dev);
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
	if (opts->json)
		info_print_json(opts, &snap, dev);
	else
		info_print_plain(&snap, dev);
	snapshot_free(&snap);
	return 0;
}

const struct inspect_command inspect_info_command = {
	.name = "info",
	.summary = "everything about one device: memory, engines, links, health",
	.usage = info_usage,
	.run = info_run,
};
