// SPDX-License-Identifier: MIT
/*
 * tern-inspect list: one row per device (index, node, memory, engines,
 * fabric ports), or the same as JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "json.h"

struct list_row {
	tern_device_properties_t props;
	uint64_t memory_used;
	uint64_t memory_total;
};

static const struct {
	uint64_t bit;
	const char *name;
} list_capabilities[] = {
	{ TERN_DEVICE_CAP_MOCK, "mock" },
	{ TERN_DEVICE_CAP_HOST_MEMORY, "host_memory" },
	{ TERN_DEVICE_CAP_SEMAPHORE, "semaphore" },
	{ TERN_DEVICE_CAP_TIMESTAMP, "timestamp" },
};

static void list_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect list [options]\n"
		"One line per device: index, device node, device memory used and\n"
		"total, engines and fabric ports, after a line naming the backend.\n"
		"\n"
		"Options:\n");
	inspect_print_common_options(out);
}

/* Reads device @index; on failure explains it on stderr. */
static int list_read_device(int index, struct list_row *row)
{
	tern_device_t device;
	tern_status_t status;
	char what[48];

	status = tern_device_open(index, &device);
	if (status == TERN_SUCCESS) {
		status = tern_device_get_properties(device, &row->props);
		if (status == TERN_SUCCESS)
			status = tern_device_memory_usage(device,
							  &row->memory_used,
							  &row->memory_total);
		tern_device_close(device);
	}
	if (status != TERN_SUCCESS) {
		snprintf(what, sizeof(what), "reading device %d", index);
		cli_report_error("tern-inspect list", what, status);
		return 1;
	}
	return 0;
}

static void list_print_json(const struct inspect_options *opts,
			    tern_backend_t backend,
			    const struct list_row *rows, int count)
{
	struct json_writer w;

	json_init(&w, stdout, opts->pretty);
	json_object_begin(&w, NULL);
	json_u64(&w, "schema_version", INSPECT_SCHEMA_VERSION);
	json_string(&w, "backend", tern_backend_name(backend));
	json_string(&w, "backend_reason", cli_backend_reason(backend));
	json_array_begin(&w, "devices");
	for (int i = 0; i < count; i++) {
		const struct list_row *row = &rows[i];

		json_object_begin(&w, NULL);
		json_u64(&w, "index", (uint64_t)row->props.index);
		json_string(&w, "node", row->props.node);
		json_u64(&w, "memory_used_bytes", row->memory_used);
		json_u64(&w, "memory_total_bytes", row->memory_total);
		json_u64(&w, "engines", row->props.engine_count);
		json_u64(&w, "fabric_ports", row->props.fabric_port_count);
		json_u64(&w, "engine_clock_hz", row->props.clock_hz);
		json_array_begin(&w, "capabilities");
		for (size_t c = 0; c < sizeof(list_capabilities) /
				       sizeof(list_capabilities[0]); c++)
			if (row->props.capabilities & list_capabilities[c].bit)
				json_string(&w, NULL, list_capabilities[c].name);
		json_array_end(&w);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	json_finish(&w);
}

static void list_print_plain(tern_backend_t backend,
			     const struct list_row *rows, int count)
{
	int node_width = (int)strlen("NODE");

	for (int i = 0; i < count; i++) {
		int len = (int)strlen(rows[i].props.node);

		if (len > node_width)
			node_width = len;
	}
	printf("backend: %s\n", cli_backend_description(backend));
	if (count == 0)
		return;
	printf("%-6s  %-*s  %-23s  %7s  %5s\n", "DEVICE", node_width, "NODE",
	       "MEMORY USED / TOTAL", "ENGINES", "PORTS");
	for (int i = 0; i < count; i++) {
		const struct list_row *row = &rows[i];
		char used[32], total[32], memory[72];

		cli_format_bytes(row->memory_used, used, sizeof(used));
		cli_format_bytes(row->memory_total, total, sizeof(total));
		snprintf(memory, sizeof(memory), "%s / %s", used, total);
		printf("%-6d  %-*s  %-23s  %7u  %5u\n", row->props.index,
		       node_width, row->props.node, memory,
		       row->props.engine_count, row->props.fabric_port_count);
	}
}

static int list_run(int argc, char **argv, struct inspect_options *opts)
{
	struct list_row *rows = NULL;
	tern_backend_t backend;
	int count, ret;

	switch (inspect_parse_options("list", argc, argv, opts)) {
	case INSPECT_PARSE_HELP:
		list_usage(stdout);
		return 0;
	case INSPECT_PARSE_USAGE:
		return EXIT_USAGE;
	case INSPECT_PARSE_RUN:
		break;
	}
	ret = inspect_find_devices("list", &backend, &count);
	if (ret) {
		/* Still say which backend found nothing, when it is known. */
		if (tern_get_backend(&backend) != TERN_SUCCESS)
			return ret;
		if (opts->json)
			list_print_json(opts, backend, NULL, 0);
		else
			list_print_plain(backend, NULL, 0);
		return ret;
	}
	rows = calloc((size_t)count, sizeof(*rows));
	if (!rows) {
		cli_report_error("tern-inspect list", "listing devices",
				 TERN_ERROR_OUT_OF_MEMORY);
		return 1;
	}
	for (int i = 0; i < count && ret == 0; i++)
		ret = list_read_device(i, &rows[i]);
	if (ret == 0) {
		if (opts->json)
			list_print_json(opts, backend, rows, count);
		else
			list_print_plain(backend, rows, count);
	}
	free(rows);
	return ret;
}

const struct inspect_command inspect_list_command = {
	.name = "list",
	.summary = "list devices: node, memory, engines, fabric ports",
	.usage = list_usage,
	.run = list_run,
};
