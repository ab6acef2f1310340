// SPDX-License-Identifier: MIT
/*
 * tern-inspect metrics: every counter and gauge in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector or a scrape wrapper. One HELP and TYPE line per metric
 * family, then its samples; label values escaped as the format says.
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "net/stats.h"
#include "text.h"

static void metrics_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect metrics [options]\n"
		"Every device, engine, link and client counter, and each\n"
		"communicator across hosts' network traffic per peer host, in the\n"
		"Prometheus text format (version 0.0.4), names prefixed tern_.\n"
		"--json does not apply: use 'tern-inspect info --json', 'list\n"
		"--json' or 'net --json'.\n"
		"\n"
		"Options:\n"
		"  -h, --help      show this help\n");
}

void metrics_write_label_value(FILE *out, const char *value)
{
	for (const char *c = value; *c;) {
		unsigned char byte = (unsigned char)*c;
		size_t n = 1;

		if (byte == '\\')
			fputs("\\\\", out);
		else if (byte == '"')
			fputs("\\\"", out);
		else if (byte == '\n')
			fputs("\\n", out);
		else if (byte < 0x20 || byte == 0x7f)
			fputc('?', out);
		else if ((n = text_utf8_char(c)) > 0)
			fwrite(c, 1, n, out);
		else
			fputc('?', out);	/* not UTF-8, which the format requires */
		c += n ? n : 1;
	}
}

static void metrics_family(FILE *out, const char *name, const char *type,
			   const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Starts a sample: "name{device="N"" (the caller adds labels and "} v"). */
static void metrics_device_sample(FILE *out, const char *name,
				  const struct snapshot_device *dev)
{
	fprintf(out, "%s{device=\"%u\"", name, dev->index);
}

static void metrics_u64(FILE *out, uint64_t value)
{
	fprintf(out, "} %llu\n", (unsigned long long)value);
}

/* A family with one sample per device, the value at @offset (uint64_t). */
static void metrics_per_device(FILE *out, const struct snapshot *snap,
			       const char *name, const char *type,
			       const char *help, size_t offset, bool is_u32)
{
	metrics_family(out, name, type, help);
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];
		const char *field = (const char *)dev + offset;
		uint64_t value;

		if (is_u32) {
			uint32_t v32;

			memcpy(&v32, field, sizeof(v32));
			value = v32;
		} else {
			memcpy(&value, field, sizeof(value));
		}
		metrics_device_sample(out, name, dev);
		metrics_u64(out, value);
	}
}

#define METRICS_DEVICE_U64(out, snap, name, type, help, field) \
	metrics_per_device(out, snap, name, type, help, \
			   offsetof(struct snapshot_device, field), false)
_Static_assert(sizeof(enum snapshot_health) == sizeof(uint32_t),
	       "health is read as a u32");
#define METRICS_DEVICE_U32(out, snap, name, type, help, field) \
	metrics_per_device(out, snap, name, type, help, \
			   offsetof(struct snapshot_device, field), true)

/* One sample, value 1, per reason a device is not ok: alerts name it. */
static void metrics_health_reasons(FILE *out, const struct snapshot *snap)
{
	metrics_family(out, "tern_device_health_reason", "gauge",
		       "1 for each reason the device is not ok (link_down, link_errors, engine_reset, engine_hung, mem_uncorrected).");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];
		char names[128], *name, *save = NULL;

		snapshot_health_reasons(dev->health_reasons, names,
					sizeof(names));
		for (name = strtok_r(names, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			metrics_device_sample(out, "tern_device_health_reason",
					      dev);
			fprintf(out, ",reason=\"%s\"", name);
			metrics_u64(out, 1);
		}
	}
}

static void metrics_devices(FILE *out, const struct snapshot *snap)
{
	metrics_family(out, "tern_device_info", "gauge",
		       "Identity of a Tern device; the value is always 1.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		metrics_device_sample(out, "tern_device_info", dev);
		fputs(",node=\"", out);
		metrics_write_label_value(out, dev->node);
		fputs("\",bus_id=\"", out);
		metrics_write_label_value(out, dev->bus_id);
		fputs("\",driver_version=\"", out);
		metrics_write_label_value(out, dev->driver_version);
		fprintf(out, "\",fabric_id=\"%u\"", dev->fabric_id);
		metrics_u64(out, 1);
	}
	METRICS_DEVICE_U32(out, snap, "tern_device_health", "gauge",
			   "Device health: 0 ok, 1 degraded, 2 failed.", health);
	metrics_health_reasons(out, snap);
	METRICS_DEVICE_U64(out, snap, "tern_memory_used_bytes", "gauge",
			   "Device memory in use by all processes.", mem_used);
	METRICS_DEVICE_U64(out, snap, "tern_memory_total_bytes", "gauge",
			   "Device memory in all.", mem_total);
	METRICS_DEVICE_U64(out, snap, "tern_memory_host_used_bytes", "gauge",
			   "Host memory held by the device's host buffers.",
			   mem_host_used);
	METRICS_DEVICE_U32(out, snap, "tern_buffers", "gauge",
			   "Buffers alive on the device.", buffer_count);
	METRICS_DEVICE_U32(out, snap, "tern_device_engines_active", "gauge",
			   "How many of the device's engines run a job now.",
			   engines_busy);
	METRICS_DEVICE_U32(out, snap, "tern_clients", "gauge",
			   "Open files (processes) of the device.", client_count);
	METRICS_DEVICE_U32(out, snap, "tern_clients_hidden", "gauge",
			   "Open files of the device of other users, which only root or CAP_PERFMON sees.",
			   clients_hidden);
	METRICS_DEVICE_U64(out, snap, "tern_job_timeouts_total", "counter",
			   "Jobs failed by the job timeout.", job_timeouts);
	METRICS_DEVICE_U64(out, snap, "tern_engine_resets_total", "counter",
			   "Engine resets.", engine_resets);
	METRICS_DEVICE_U64(out, snap, "tern_engine_hang_resets_total", "counter",
			   "Engine resets after the engine hung (the engine_reset health reason).",
			   engine_hang_resets);

	metrics_family(out, "tern_memory_errors_total", "counter",
		       "Device memory errors by kind.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		metrics_device_sample(out, "tern_memory_errors_total", dev);
		fputs(",kind=\"corrected\"", out);
		metrics_u64(out, dev->mem_errors_corrected);
		metrics_device_sample(out, "tern_memory_errors_total", dev);
		fputs(",kind=\"uncorrected\"", out);
		metrics_u64(out, dev->mem_errors_uncorrected);
	}
}

static uint32_t metrics_engine_count(const struct snapshot_device *dev)
{
	return dev->engine_count < SNAPSHOT_MAX_ENGINES ? dev->engine_count
							: SNAPSHOT_MAX_ENGINES;
}

static void metrics_engine_sample(FILE *out, const char *name,
				  const struct snapshot_device *dev,
				  const struct snapshot_engine *eng)
{
	metrics_device_sample(out, name, dev);
	fprintf(out, ",engine=\"%u\"", eng->index);
}

static void metrics_engines(FILE *out, const struct snapshot *snap)
{
	metrics_family(out, "tern_engine_active", "gauge",
		       "1 while the engine runs a job, else 0.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		for (uint32_t e = 0; e < metrics_engine_count(dev); e++) {
			metrics_engine_sample(out, "tern_engine_active", dev,
					      &dev->engines[e]);
			metrics_u64(out, dev->engines[e].busy);
		}
	}
	metrics_family(out, "tern_engine_busy_seconds_total", "counter",
		       "Time the engine had a job.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		for (uint32_t e = 0; e < metrics_engine_count(dev); e++) {
			metrics_engine_sample(out, "tern_engine_busy_seconds_total",
					      dev, &dev->engines[e]);
			fprintf(out, "} %.9f\n",
				(double)dev->engines[e].busy_ns / 1e9);
		}
	}
	metrics_family(out, "tern_engine_jobs_queued", "gauge",
		       "Jobs handed to the engine and not ended.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		for (uint32_t e = 0; e < metrics_engine_count(dev); e++) {
			metrics_engine_sample(out, "tern_engine_jobs_queued",
					      dev, &dev->engines[e]);
			metrics_u64(out, dev->engines[e].jobs_queued);
		}
	}
	metrics_family(out, "tern_engine_jobs_total", "counter",
		       "Jobs the engine ended, by result.");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		for (uint32_t e = 0; e < metrics_engine_count(dev); e++) {
			const struct snapshot_engine *eng = &dev->engines[e];

			metrics_engine_sample(out, "tern_engine_jobs_total",
					      dev, eng);
			fputs(",result=\"completed\"", out);
			metrics_u64(out, eng->jobs_completed);
			metrics_engine_sample(out, "tern_engine_jobs_total",
					      dev, eng);
			fputs(",result=\"failed\"", out);
			metrics_u64(out, eng->jobs_failed);
		}
	}
}

/* Starts a link sample: "name{link="N"" with the ends' labels if @ends. */
static void metrics_link_sample(FILE *out, const struct snapshot *snap,
				const char *name,
				const struct snapshot_link *link, bool ends)
{
	const struct snapshot_device *a =
		snapshot_device_by_fabric_id(snap, link->device_a);
	const struct snapshot_device *b =
		snapshot_device_by_fabric_id(snap, link->device_b);

	fprintf(out, "%s{link=\"%u\"", name, link->index);
	if (ends)
		fprintf(out,
			",device_a=\"%u\",port_a=\"%u\",device_b=\"%u\",port_b=\"%u\"",
			a ? a->index : link->device_a, link->port_a,
			b ? b->index : link->device_b, link->port_b);
}

static void metrics_links(FILE *out, const struct snapshot *snap)
{
	metrics_family(out, "tern_link_up", "gauge",
		       "1 while the fabric link is up; labels name its ends.");
	for (int l = 0; l < snap->link_count; l++) {
		metrics_link_sample(out, snap, "tern_link_up", &snap->links[l],
				    true);
		metrics_u64(out, snap->links[l].up);
	}
	metrics_family(out, "tern_link_bytes_total", "counter",
		       "Bytes carried by the link, by direction.");
	for (int l = 0; l < snap->link_count; l++) {
		const struct snapshot_link *link = &snap->links[l];

		metrics_link_sample(out, snap, "tern_link_bytes_total", link,
				    false);
		fputs(",direction=\"a_to_b\"", out);
		metrics_u64(out, link->bytes_a_to_b);
		metrics_link_sample(out, snap, "tern_link_bytes_total", link,
				    false);
		fputs(",direction=\"b_to_a\"", out);
		metrics_u64(out, link->bytes_b_to_a);
	}
	metrics_family(out, "tern_link_errors_total", "counter",
		       "Errors the link counted.");
	for (int l = 0; l < snap->link_count; l++) {
		metrics_link_sample(out, snap, "tern_link_errors_total",
				    &snap->links[l], false);
		metrics_u64(out, snap->links[l].errors);
	}
}

/* Each end of each link, as device labels see it: sums per device. */
static void metrics_ports(FILE *out, const struct snapshot *snap)
{
	static const char *const names[] = {
		"tern_port_tx_bytes_total", "tern_port_rx_bytes_total",
	};
	static const char *const helps[] = {
		"Bytes the device sent out of the fabric port.",
		"Bytes the device received on the fabric port.",
	};

	for (int dir = 0; dir < 2; dir++) {
		metrics_family(out, names[dir], "counter", helps[dir]);
		for (int l = 0; l < snap->link_count; l++) {
			const struct snapshot_link *link = &snap->links[l];
			const struct snapshot_device *a =
				snapshot_device_by_fabric_id(snap, link->device_a);
			const struct snapshot_device *b =
				snapshot_device_by_fabric_id(snap, link->device_b);
			uint32_t ia = a ? a->index : link->device_a;
			uint32_t ib = b ? b->index : link->device_b;

			/* End A sends a_to_b and receives b_to_a; B the reverse. */
			fprintf(out,
				"%s{device=\"%u\",port=\"%u\",peer_device=\"%u\",peer_port=\"%u\"",
				names[dir], ia, link->port_a, ib, link->port_b);
			metrics_u64(out, dir == 0 ? link->bytes_a_to_b :
						    link->bytes_b_to_a);
			fprintf(out,
				"%s{device=\"%u\",port=\"%u\",peer_device=\"%u\",peer_port=\"%u\"",
				names[dir], ib, link->port_b, ia, link->port_a);
			metrics_u64(out, dir == 0 ? link->bytes_b_to_a :
						    link->bytes_a_to_b);
		}
	}
}

static void metrics_clients(FILE *out, const struct snapshot *snap)
{
	static const char *const kinds[] = { "device", "host" };

	metrics_family(out, "tern_client_memory_bytes", "gauge",
		       "Memory of the buffers a process holds on a device, by kind.");
	for (int c = 0; c < snap->client_count; c++) {
		const struct snapshot_client *client = &snap->clients[c];
		const uint64_t bytes[] = { client->mem_device, client->mem_host };

		for (int k = 0; k < 2; k++) {
			fprintf(out,
				"tern_client_memory_bytes{device=\"%u\",pid=\"%u\",client=\"%llu\",comm=\"",
				client->device, client->pid,
				(unsigned long long)client->id);
			metrics_write_label_value(out, client->comm);
			fprintf(out, "\",kind=\"%s\"", kinds[k]);
			metrics_u64(out, bytes[k]);
		}
	}
}

/* Each communicator across hosts' traffic per peer host (net.c). */
static void metrics_net(FILE *out)
{
	static const char *const names[] = {
		"tern_net_tx_bytes_total", "tern_net_tx_messages_total",
		"tern_net_rx_bytes_total", "tern_net_rx_messages_total",
		"tern_net_errors_total",
	};
	static const char *const helps[] = {
		"Bytes a rank sent over the network to the peer host.",
		"Messages a rank sent over the network to the peer host.",
		"Bytes a rank received over the network from the peer host.",
		"Messages a rank received over the network from the peer host.",
		"Network transfers to or from the peer host that failed.",
	};
	struct tern_net_stats **all;
	int n = net_stats_load(&all);

	for (int m = 0; m < 5 && n; m++) {
		metrics_family(out, names[m], "counter", helps[m]);
		for (int i = 0; i < n; i++) {
			for (uint32_t j = 0; j < all[i]->npeers; j++) {
				const struct tern_net_stats_peer *p =
					&all[i]->peer[j];
				const uint64_t v[] = {
					p->tx_bytes, p->tx_messages, p->rx_bytes,
					p->rx_messages, p->errors,
				};

				fprintf(out, "%s{pid=\"%d\",rank=\"%d\",host=\"",
					names[m], all[i]->pid, all[i]->rank);
				metrics_write_label_value(out, all[i]->host);
				fputs("\",peer_host=\"", out);
				metrics_write_label_value(out, p->host);
				fputc('"', out);
				metrics_u64(out, v[m]);
			}
		}
	}
	net_stats_free(all, n);
}

void metrics_write(FILE *out, const struct snapshot *snap)
{
	metrics_devices(out, snap);
	metrics_engines(out, snap);
	metrics_links(out, snap);
	metrics_ports(out, snap);
	metrics_clients(out, snap);
	metrics_net(out);
}

static int metrics_run(int argc, char **argv, struct inspect_options *opts)
{
	struct snapshot snap;
	int ret;

	ret = inspect_parse_args("metrics", argc, argv, opts, NULL,
				 metrics_usage);
	if (ret != INSPECT_RUN)
		return ret;
	if (opts->json || opts->pretty) {
		fprintf(stderr,
			"tern-inspect metrics: --json and --pretty do not apply: metrics "
			"prints the Prometheus text format; for JSON use 'tern-inspect "
			"info --json DEV' or 'tern-inspect list --json'\n");
		return EXIT_USAGE;
	}
	ret = inspect_snapshot("metrics", &snap);
	if (ret)
		return ret;
	metrics_write(stdout, &snap);
	snapshot_free(&snap);
	return 0;
}

const struct inspect_command inspect_metrics_command = {
	.name = "metrics",
	.summary = "every counter in the Prometheus text format",
	.usage = metrics_usage,
	.run = metrics_run,
};
