// SPDX-License-Identifier: MIT
/*
 * tern-inspect top: what changed between two snapshots (engine time, link
 * bytes, per client engine time) and how a frame is drawn.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "json.h"
#include "live.h"
#include "text.h"
#include "top_frame.h"

/* A counter's growth; 0 if it went back (the module was reloaded). */
static uint64_t top_delta(uint64_t now, uint64_t old)
{
	return now > old ? now - old : 0;
}

static double top_percent(uint64_t busy_ns, uint64_t capacity_ns)
{
	double percent;

	if (!capacity_ns)
		return 0;
	percent = 100.0 * (double)busy_ns / (double)capacity_ns;
	return percent > 100 ? 100 : percent;
}

static uint64_t top_engine_busy_ns(const struct snapshot_device *dev)
{
	uint64_t total = 0;

	for (uint32_t e = 0; e < dev->engine_count && e < SNAPSHOT_MAX_ENGINES; e++)
		total += dev->engines[e].busy_ns;
	return total;
}

static const struct snapshot_device *top_old_device(const struct snapshot *old,
						    uint32_t index)
{
	for (int i = 0; i < old->device_count; i++)
		if (old->devices[i].index == index)
			return &old->devices[i];
	return NULL;
}

static const struct snapshot_link *top_old_link(const struct snapshot *old,
						uint32_t index)
{
	for (int i = 0; i < old->link_count; i++)
		if (old->links[i].index == index)
			return &old->links[i];
	return NULL;
}

static uint64_t top_old_client_busy(const struct snapshot *old,
				    const struct snapshot_client *client)
{
	for (int i = 0; i < old->client_count; i++)
		if (old->clients[i].id == client->id &&
		    old->clients[i].device == client->device)
			return old->clients[i].busy_ns;
	return 0;	/* opened during the interval: all its time is new */
}

/* Adds each link's bytes in the interval to the devices at its ends. */
static void top_count_links(const struct snapshot *old,
			    const struct snapshot *now, struct top_frame *frame)
{
	for (int l = 0; l < now->link_count; l++) {
		const struct snapshot_link *link = &now->links[l];
		const struct snapshot_link *before = top_old_link(old, link->index);
		uint64_t a_to_b = top_delta(link->bytes_a_to_b,
					    before ? before->bytes_a_to_b : 0);
		uint64_t b_to_a = top_delta(link->bytes_b_to_a,
					    before ? before->bytes_b_to_a : 0);

		frame->fabric_bytes += a_to_b + b_to_a;
		for (int d = 0; d < frame->device_count; d++) {
			struct top_device_row *row = &frame->devices[d];

			if (row->dev->fabric_id == link->device_a) {
				row->out_bytes += a_to_b;
				row->in_bytes += b_to_a;
			}
			if (row->dev->fabric_id == link->device_b) {
				row->out_bytes += b_to_a;
				row->in_bytes += a_to_b;
			}
		}
	}
}

static int top_client_order(const void *a, const void *b)
{
	const struct top_client_row *x = a, *y = b;

	if (x->busy_ns != y->busy_ns)
		return x->busy_ns < y->busy_ns ? 1 : -1;
	if (x->client->mem_device != y->client->mem_device)
		return x->client->mem_device < y->client->mem_device ? 1 : -1;
	if (x->client->pid != y->client->pid)
		return x->client->pid < y->client->pid ? -1 : 1;
	return x->client->device < y->client->device ? -1 :
	       x->client->device > y->client->device;
}

bool top_frame_compute(const struct snapshot *old, const struct snapshot *now,
		       struct top_frame *frame)
{
	static const struct snapshot none;

	memset(frame, 0, sizeof(*frame));
	frame->snap = now;
	frame->has_rates = old != NULL;
	if (!old)
		old = &none;	/* every counter's growth is then 0 */
	frame->interval_ns = frame->has_rates ?
		top_delta(now->taken_ns, old->taken_ns) : 0;
	live_timestamp(frame->time, sizeof(frame->time));
	frame->devices = calloc((size_t)now->device_count + 1,
				sizeof(*frame->devices));
	frame->clients = calloc((size_t)now->client_count + 1,
				sizeof(*frame->clients));
	if (!frame->devices || !frame->clients) {
		top_frame_free(frame);
		return false;
	}
	frame->device_count = now->device_count;
	frame->client_count = now->client_count;

	for (int d = 0; d < now->device_count; d++) {
		const struct snapshot_device *dev = &now->devices[d];
		const struct snapshot_device *before = top_old_device(old, dev->index);
		struct top_device_row *row = &frame->devices[d];

		row->dev = dev;
		row->busy_ns = !frame->has_rates ? 0 :
			top_delta(top_engine_busy_ns(dev),
				  before ? top_engine_busy_ns(before) : 0);
		row->utilisation = top_percent(row->busy_ns,
					       frame->interval_ns * dev->engine_count);
		frame->engines += dev->engine_count;
		frame->engines_busy += dev->engines_busy;
		frame->mem_used += dev->mem_used;
		frame->mem_total += dev->mem_total;
		frame->busy_ns += row->busy_ns;
		frame->clients_hidden += dev->clients_hidden;
		if (dev->health <= SNAPSHOT_HEALTH_FAILED)
			frame->health_count[dev->health]++;
	}
	frame->utilisation = top_percent(frame->busy_ns,
					 frame->interval_ns * frame->engines);
	if (frame->has_rates)
		top_count_links(old, now, frame);

	for (int c = 0; c < now->client_count; c++) {
		const struct snapshot_client *client = &now->clients[c];
		const struct snapshot_device *dev =
			top_old_device(now, client->device);
		struct top_client_row *row = &frame->clients[c];

		row->client = client;
		row->busy_ns = !frame->has_rates ? 0 :
			top_delta(client->busy_ns,
				  top_old_client_busy(old, client));
		row->utilisation = top_percent(row->busy_ns, frame->interval_ns *
					       (dev ? dev->engine_count : 1));
	}
	qsort(frame->clients, (size_t)frame->client_count,
	      sizeof(*frame->clients), top_client_order);
	return true;
}

void top_frame_free(struct top_frame *frame)
{
	free(frame->devices);
	free(frame->clients);
	frame->devices = NULL;
	frame->clients = NULL;
}

/* Where the text goes, and how much of it fits. */
struct top_screen {
	FILE *out;
	int width, lines_left;	/* 0 width: any; lines_left < 0: any */
	bool in_place;		/* over the last frame: erase each line's rest */
};

static void top_line(struct top_screen *screen, const char *format, ...)
{
	char line[512];
	va_list args;

	if (screen->lines_left == 0)
		return;
	va_start(args, format);
	vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	if (screen->width > 0 && (int)strlen(line) > screen->width)
		line[screen->width] = '\0';
	fprintf(screen->out, "%s%s\n", line, screen->in_place ? "\033[K" : "");
	if (screen->lines_left > 0)
		screen->lines_left--;
}

/* "1.5 MiB/s" for @bytes over the frame's interval; "-" with no rates. */
static void top_rate(const struct top_frame *frame, uint64_t bytes, char *buf,
		     int len)
{
	uint64_t interval_ns = frame->interval_ns;
	uint64_t per_second = interval_ns ?
		(uint64_t)((double)bytes * 1e9 / (double)interval_ns) : 0;

	if (!frame->has_rates) {
		snprintf(buf, (size_t)len, "-");
		return;
	}
	cli_format_bytes(per_second, buf, len);
	strncat(buf, "/s", (size_t)len - strlen(buf) - 1);
}

/* "12.5" percent, or "-" with no rates. */
static const char *top_util(const struct top_frame *frame, double percent,
			    char *buf, int len)
{
	if (frame->has_rates)
		snprintf(buf, (size_t)len, "%.1f", percent);
	else
		snprintf(buf, (size_t)len, "-");
	return buf;
}

static void top_print_header(const struct top_frame *frame,
			     struct top_screen *screen, const char *hint)
{
	char used[32], total[32], fabric[40], interval[40], util_total[24];
	char hidden[48] = "";

	cli_format_bytes(frame->mem_used, used, sizeof(used));
	cli_format_bytes(frame->mem_total, total, sizeof(total));
	top_rate(frame, frame->fabric_bytes, fabric, sizeof(fabric));
	if (frame->has_rates) {
		snprintf(interval, sizeof(interval), "interval %.1f s",
			 (double)frame->interval_ns / 1e9);
		snprintf(util_total, sizeof(util_total), "%.1f%%",
			 frame->utilisation);
	} else {
		snprintf(interval, sizeof(interval), "rates from the next frame");
		snprintf(util_total, sizeof(util_total), "-");
	}
	top_line(screen, "tern-inspect top - %s, %s, backend %s%s%s",
		 frame->time, interval, tern_backend_name(frame->snap->backend),
		 hint ? ", " : "", hint ? hint : "");
	top_line(screen,
		 "devices: %d (%d ok, %d degraded, %d failed)  engines busy: %u of %u  utilisation: %s",
		 frame->device_count, frame->health_count[SNAPSHOT_HEALTH_OK],
		 frame->health_count[SNAPSHOT_HEALTH_DEGRADED],
		 frame->health_count[SNAPSHOT_HEALTH_FAILED],
		 frame->engines_busy, frame->engines,
		 util_total);
	if (frame->clients_hidden)
		snprintf(hidden, sizeof(hidden), " (%u of other users hidden)",
			 frame->clients_hidden);
	top_line(screen, "memory: %s / %s  fabric: %s  clients: %d%s", used,
		 total, fabric, frame->client_count, hidden);
	top_line(screen, "%s", "");
}

static void top_print_devices(const struct top_frame *frame,
			      struct top_screen *screen)
{
	top_line(screen, "%-4s %6s %5s  %-21s %11s %11s  %s", "DEV", "UTIL%",
		 "BUSY", "MEMORY USED / TOTAL", "LINK IN", "LINK OUT", "HEALTH");
	for (int d = 0; d < frame->device_count; d++) {
		const struct top_device_row *row = &frame->devices[d];
		const struct snapshot_device *dev = row->dev;
		char used[32], total[32], memory[72], in[40], out[40];
		char engines[24], reasons[128], util[16];

		cli_format_bytes(dev->mem_used, used, sizeof(used));
		cli_format_bytes(dev->mem_total, total, sizeof(total));
		snprintf(memory, sizeof(memory), "%s / %s", used, total);
		snprintf(engines, sizeof(engines), "%u/%u", dev->engines_busy,
			 dev->engine_count);
		top_rate(frame, row->in_bytes, in, sizeof(in));
		top_rate(frame, row->out_bytes, out, sizeof(out));
		snapshot_health_reasons(dev->health_reasons, reasons,
					sizeof(reasons));
		top_line(screen, "%-4u %6s %5s  %-21s %11s %11s  %s%s%s%s",
			 dev->index,
			 top_util(frame, row->utilisation, util, sizeof(util)),
			 engines, memory, in, out,
			 snapshot_health_name(dev->health),
			 reasons[0] ? " (" : "", reasons, reasons[0] ? ")" : "");
	}
}

static void top_print_clients(const struct top_frame *frame,
			      struct top_screen *screen)
{
	char note[128];

	inspect_hidden_note(frame->clients_hidden, note, sizeof(note));
	top_line(screen, "%-8s %-16s %4s %10s %6s %5s", "PID", "COMMAND",
		 "DEV", "MEMORY", "UTIL%", "JOBS");
	if (!frame->client_count && !note[0])
		top_line(screen, "(no process has a Tern device open%s)",
			 frame->snap->source == SNAPSHOT_SOURCE_SIM ?
			 "; the simulator reports none" : "");
	else if (!frame->client_count)
		top_line(screen, "(none of yours)");
	if (note[0])
		top_line(screen, "%s", note);
	for (int c = 0; c < frame->client_count; c++) {
		const struct top_client_row *row = &frame->clients[c];
		const struct snapshot_client *client = row->client;
		char memory[32], comm[TEXT_PRINTABLE_MAX], util[16];

		cli_format_bytes(client->mem_device, memory, sizeof(memory));
		top_line(screen, "%-8u %-16.16s %4u %10s %6s %5u", client->pid,
			 text_printable(client->comm, comm, sizeof(comm)),
			 client->device, memory,
			 top_util(frame, row->utilisation, util, sizeof(util)),
			 client->jobs_active);
	}
}

void top_frame_print_plain(const struct top_frame *frame, FILE *out,
			   int width, int height, const char *hint,
			   bool in_place)
{
	struct top_screen screen = { out, width, height > 0 ? height : -1,
				     in_place };

	if (in_place)
		fputs("\033[H", out);	/* home; no clearing, no flicker */
	top_print_header(frame, &screen, hint);
	top_print_devices(frame, &screen);
	top_line(&screen, "%s", "");
	top_print_clients(frame, &screen);
	if (in_place)
		fputs("\033[J", out);	/* what the last frame had below */
}

/* Bytes per second over the interval, rounded down. */
static uint64_t top_per_second(uint64_t bytes, uint64_t interval_ns)
{
	return interval_ns ? (uint64_t)((double)bytes * 1e9 / (double)interval_ns) : 0;
}

static uint64_t top_rounded(double percent)
{
	return (uint64_t)(percent + 0.5);
}

void top_frame_print_json(const struct top_frame *frame, FILE *out,
			  bool pretty)
{
	struct json_writer w;

	json_init(&w, out, pretty);
	json_object_begin(&w, NULL);
	json_u64(&w, "schema_version", INSPECT_SCHEMA_VERSION);
	json_string(&w, "time", frame->time);
	json_u64(&w, "interval_ns", frame->interval_ns);
	json_string(&w, "backend", tern_backend_name(frame->snap->backend));
	json_string(&w, "backend_reason", cli_backend_reason(frame->snap->backend));
	json_object_begin(&w, "totals");
	json_u64(&w, "devices", (uint64_t)frame->device_count);
	json_u64(&w, "engines", frame->engines);
	json_u64(&w, "engines_busy", frame->engines_busy);
	json_u64(&w, "busy_ns", frame->busy_ns);
	json_u64(&w, "utilisation_percent", top_rounded(frame->utilisation));
	json_u64(&w, "memory_used_bytes", frame->mem_used);
	json_u64(&w, "memory_total_bytes", frame->mem_total);
	json_u64(&w, "fabric_bytes_per_second",
		 top_per_second(frame->fabric_bytes, frame->interval_ns));
	json_u64(&w, "clients", (uint64_t)frame->client_count);
	json_u64(&w, "clients_hidden", frame->clients_hidden);
	json_object_end(&w);
	json_array_begin(&w, "devices");
	for (int d = 0; d < frame->device_count; d++) {
		const struct top_device_row *row = &frame->devices[d];
		const struct snapshot_device *dev = row->dev;

		json_object_begin(&w, NULL);
		json_u64(&w, "index", dev->index);
		json_u64(&w, "busy_ns", row->busy_ns);
		json_u64(&w, "utilisation_percent", top_rounded(row->utilisation));
		json_u64(&w, "engines", dev->engine_count);
		json_u64(&w, "engines_busy", dev->engines_busy);
		json_u64(&w, "memory_used_bytes", dev->mem_used);
		json_u64(&w, "memory_total_bytes", dev->mem_total);
		json_u64(&w, "link_in_bytes_per_second",
			 top_per_second(row->in_bytes, frame->interval_ns));
		json_u64(&w, "link_out_bytes_per_second",
			 top_per_second(row->out_bytes, frame->interval_ns));
		json_string(&w, "health", snapshot_health_name(dev->health));
		inspect_json_reasons(&w, "health_reasons", dev->health_reasons);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_array_begin(&w, "clients");
	for (int c = 0; c < frame->client_count; c++) {
		const struct top_client_row *row = &frame->clients[c];
		const struct snapshot_client *client = row->client;

		json_object_begin(&w, NULL);
		json_u64(&w, "pid", client->pid);
		json_string(&w, "command", client->comm);
		json_u64(&w, "device", client->device);
		json_u64(&w, "memory_device_bytes", client->mem_device);
		json_u64(&w, "memory_host_bytes", client->mem_host);
		json_u64(&w, "busy_ns", row->busy_ns);
		json_u64(&w, "utilisation_percent", top_rounded(row->utilisation));
		json_u64(&w, "jobs_active", client->jobs_active);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	json_finish(&w);
}
