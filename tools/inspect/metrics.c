// SPDX-License-Identifier: MIT
/*
 * tern-inspect metrics: every counter and gauge in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector or a scrape wrapper. One HELP and TYPE line per metric
 * family, then its samples; label values escaped as the format says. The
 * device, engine, link and client families come from the model's lists
 * (values.h): a value with a metric there is printed here.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "net/stats.h"
#include "text.h"
#include "values.h"

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

/*
 * An engine's labels after its device's: its number, its type and its
 * core, "" for a DMA engine (to Prometheus the same as no label).
 */
static void metrics_engine_labels(FILE *out,
				  const struct tern_state_engine *engine)
{
	fprintf(out, ",engine=\"%u\",type=\"%s\",core=\"", engine->index,
		tern_engine_type_name(engine->type));
	if (snapshot_engine_has_core(engine))
		fprintf(out, "%u", engine->core);
	fputc('"', out);
}

/* What a list's sample is of, and the labels that name it. */
struct metrics_object {
	const void *values;			/* the list's struct */
	const struct snapshot_device *dev;	/* of a device or an engine */
	const struct snapshot_link *link;
	const struct snapshot_client *client;
};

/* The labels naming @o, after "{" (@line: the value sampled). */
static void metrics_labels(FILE *out, const struct snapshot *snap,
			   const struct metrics_object *o,
			   const struct value_line *line)
{
	if (o->client) {
		fprintf(out, "device=\"%u\",pid=\"%u\",client=\"%llu\",comm=\"",
			o->client->device, o->client->pid,
			(unsigned long long)o->client->id);
		metrics_write_label_value(out, o->client->comm);
		fputc('"', out);
	} else if (o->link) {
		const struct snapshot_device *a =
			snapshot_device_by_fabric_id(snap, o->link->device_a);
		const struct snapshot_device *b =
			snapshot_device_by_fabric_id(snap, o->link->device_b);

		fprintf(out, "link=\"%u\"", o->link->index);
		/* The link's state names its ends, by device index. */
		if (line->unit == TERN_UNIT_PORT_STATE)
			fprintf(out,
				",device_a=\"%u\",port_a=\"%u\",device_b=\"%u\",port_b=\"%u\"",
				a ? a->index : o->link->device_a, o->link->port_a,
				b ? b->index : o->link->device_b, o->link->port_b);
	} else {
		fprintf(out, "device=\"%u\"", o->dev->index);
		if (o->values != o->dev)
			metrics_engine_labels(out, o->values);
	}
}

/* One sample (several for health reasons) of @line for @o. */
static void metrics_sample(FILE *out, const struct snapshot *snap,
			   const struct metrics_object *o,
			   const struct value_line *line, size_t family_len)
{
	const char *labels = line->metric + family_len;
	uint64_t value = value_get(line, o->values);

	if (line->unit == TERN_UNIT_REASONS) {
		char names[128], *name, *save = NULL;

		/* One sample, value 1, per reason a device is not ok. */
		snapshot_health_reasons((uint32_t)value, names, sizeof(names));
		for (name = strtok_r(names, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			fprintf(out, "%.*s{", (int)family_len, line->metric);
			metrics_labels(out, snap, o, line);
			fprintf(out, ",reason=\"%s\"", name);
			metrics_u64(out, 1);
		}
		return;
	}
	fprintf(out, "%.*s{", (int)family_len, line->metric);
	metrics_labels(out, snap, o, line);
	/* The line's own labels tell the family's members apart. */
	if (*labels)
		fprintf(out, ",%.*s", (int)strlen(labels) - 2, labels + 1);
	if (line->unit == TERN_UNIT_NS && strstr(line->metric, "_seconds"))
		fprintf(out, "} %.9f\n", (double)value / 1e9);
	else if (line->unit == TERN_UNIT_PORT_STATE)
		metrics_u64(out, o->link && o->link->up);
	else
		metrics_u64(out, value);
}

/*
 * Every family of @list for @objects: a family is a run of lines with the
 * same name, whose HELP is its first's; a name ending in _total is a
 * counter. Each object's samples of a family go together.
 */
static void metrics_list(FILE *out, const struct snapshot *snap,
			 const struct value_list *list,
			 const struct metrics_object *objects, int count)
{
	size_t i = 0;

	while (i < list->count) {
		const struct value_line *first = &list->lines[i];
		size_t n = 1, len;
		char family[96];

		if (!first->metric) {
			i++;
			continue;
		}
		len = strcspn(first->metric, "{");
		while (i + n < list->count && list->lines[i + n].metric &&
		       strcspn(list->lines[i + n].metric, "{") == len &&
		       strncmp(list->lines[i + n].metric, first->metric, len) == 0)
			n++;
		snprintf(family, sizeof(family), "%.*s", (int)len, first->metric);
		metrics_family(out, family,
			       len > 6 && strcmp(family + len - 6, "_total") == 0 ?
			       "counter" : "gauge", first->help);
		for (int o = 0; o < count; o++)
			for (size_t m = 0; m < n; m++)
				metrics_sample(out, snap, &objects[o],
					       &list->lines[i + m], len);
		i += n;
	}
}

static void metrics_devices(FILE *out, const struct snapshot *snap)
{
	struct metrics_object *objects =
		calloc((size_t)snap->device_count + 1, sizeof(*objects));

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
		if (objects)
			objects[i] = (struct metrics_object){
				.values = dev, .dev = dev,
			};
	}
	if (objects)
		metrics_list(out, snap, &values_device, objects,
			     snap->device_count);
	free(objects);
}

static void metrics_engines(FILE *out, const struct snapshot *snap)
{
	struct metrics_object *objects;
	size_t engines = 0;
	int n = 0;

	for (int i = 0; i < snap->device_count; i++)
		engines += snap->devices[i].engine_count;
	objects = calloc(engines + 1, sizeof(*objects));
	if (!objects)
		return;
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		for (uint32_t e = 0; e < dev->engine_count; e++)
			objects[n++] = (struct metrics_object){
				.values = &dev->engines[e], .dev = dev,
			};
	}
	metrics_list(out, snap, &values_engine, objects, n);
	free(objects);
}

/*
 * Each device's engines by type: how many, and their busy time together,
 * so that rate() of the one over the other is the type's utilisation.
 * Only the types a device has; engines of no known type are in none.
 */
static void metrics_engine_types(FILE *out, const struct snapshot *snap)
{
	static const struct {
		const char *name, *type, *help;
	} families[] = {
		{ "tern_device_engines", "gauge",
		  "Engines of the device, by type (dma, tensor, vector, scalar)." },
		{ "tern_device_engine_busy_seconds_total", "counter",
		  "Time the device's engines of the type had a job, together." },
	};

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		metrics_family(out, families[f].name, families[f].type,
			       families[f].help);
		for (int i = 0; i < snap->device_count; i++) {
			const struct snapshot_device *dev = &snap->devices[i];
			struct snapshot_engine_type types[SNAPSHOT_ENGINE_TYPES];

			snapshot_engine_types(dev, types);
			for (uint32_t t = 0; t < SNAPSHOT_ENGINE_TYPES; t++) {
				if (!types[t].engines)
					continue;
				fprintf(out, "%s{device=\"%u\",type=\"%s\"",
					families[f].name, dev->index,
					tern_engine_type_name(t));
				if (f == 0)
					metrics_u64(out, types[t].engines);
				else
					fprintf(out, "} %.9f\n",
						(double)types[t].busy_ns / 1e9);
			}
		}
	}
}

static void metrics_links(FILE *out, const struct snapshot *snap)
{
	struct metrics_object *objects =
		calloc((size_t)snap->link_count + 1, sizeof(*objects));

	if (!objects)
		return;
	for (int l = 0; l < snap->link_count; l++)
		objects[l] = (struct metrics_object){
			.values = &snap->links[l], .link = &snap->links[l],
		};
	metrics_list(out, snap, &values_link, objects, snap->link_count);
	free(objects);
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
	struct metrics_object *objects =
		calloc((size_t)snap->client_count + 1, sizeof(*objects));

	if (!objects)
		return;
	for (int c = 0; c < snap->client_count; c++)
		objects[c] = (struct metrics_object){
			.values = &snap->clients[c], .client = &snap->clients[c],
		};
	metrics_list(out, snap, &values_client, objects, snap->client_count);
	free(objects);
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
	metrics_engine_types(out, snap);
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
