// SPDX-License-Identifier: MIT
/*
 * tern-inspect top: what changed between two snapshots (engine time, link
 * bytes, per client engine time) and how a frame is drawn: text laid
 * out on the screen, or JSON, written once for both (print.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"
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

	for (uint32_t e = 0; e < dev->engine_count; e++)
		total += dev->engines[e].busy_ns;
	return total;
}

/*
 * @row's engines by type: how many, how many busy now, and their engine
 * time in the interval since @before (NULL: the device is new, or no
 * interval yet when !@rates) over the engines' capacity.
 */
static void top_count_types(struct top_device_row *row,
			    const struct snapshot_device *before,
			    bool rates, uint64_t interval_ns)
{
	struct snapshot_engine_type now[SNAPSHOT_ENGINE_TYPES];
	struct snapshot_engine_type was[SNAPSHOT_ENGINE_TYPES] = { { 0 } };

	snapshot_engine_types(row->dev, now);
	if (before)
		snapshot_engine_types(before, was);
	for (uint32_t t = 0; t < SNAPSHOT_ENGINE_TYPES; t++) {
		struct top_type_row *type = &row->types[t];

		type->engines = now[t].engines;
		type->engines_busy = now[t].busy;
		type->busy_ns = rates ? top_delta(now[t].busy_ns,
						  was[t].busy_ns) : 0;
		type->utilisation = top_percent(type->busy_ns,
						interval_ns * type->engines);
	}
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
	if (x->client->memory_device_bytes != y->client->memory_device_bytes)
		return x->client->memory_device_bytes <
		       y->client->memory_device_bytes ? 1 : -1;
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
		top_count_types(row, before, frame->has_rates,
				frame->interval_ns);
		frame->engines += dev->engine_count;
		frame->engines_busy += dev->engines_busy;
		frame->mem_used += dev->memory_used_bytes;
		frame->mem_total += dev->memory_total_bytes;
		frame->busy_ns += row->busy_ns;
		frame->clients_hidden += dev->clients_hidden;
		if (dev->health <= DRM_TERN_HEALTH_FAILED)
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

/* Bytes per second over the interval, rounded down. */
static uint64_t top_per_second(uint64_t bytes, uint64_t interval_ns)
{
	return interval_ns ? (uint64_t)((double)bytes * 1e9 / (double)interval_ns) : 0;
}

static uint64_t top_rounded(double percent)
{
	return (uint64_t)(percent + 0.5);
}

static void top_print_header(struct print *p, const struct top_frame *frame,
			     const char *hint)
{
	char fabric[40], interval[40], util_total[24];

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
	print_string(p, "time", "tern-inspect top - %s, ", frame->time);
	print_u64(p, "interval_ns", NULL, frame->interval_ns);
	print_string(p, NULL, "%s, ", interval);
	if (p->json)
		inspect_json_backend(&p->w, frame->snap);
	print_string(p, NULL, "backend %s",
		     tern_backend_name(frame->snap->backend));
	print_text(p, "%s%s\n", hint ? ", " : "", hint ? hint : "");

	print_object(p, "totals");
	print_u64(p, "devices", "devices: %llu ", (uint64_t)frame->device_count);
	print_text(p, "(%d ok, %d degraded, %d failed)  ",
		   frame->health_count[DRM_TERN_HEALTH_OK],
		   frame->health_count[DRM_TERN_HEALTH_DEGRADED],
		   frame->health_count[DRM_TERN_HEALTH_FAILED]);
	print_u64(p, "engines_busy", "engines busy: %llu of ",
		  frame->engines_busy);
	print_u64(p, "engines", "%llu  ", frame->engines);
	print_u64(p, "busy_ns", NULL, frame->busy_ns);
	print_u64(p, "utilisation_percent", NULL,
		  top_rounded(frame->utilisation));
	print_string(p, NULL, "utilisation: %s\n", util_total);
	print_bytes(p, "memory_used_bytes", "memory: %s / ", frame->mem_used);
	print_bytes(p, "memory_total_bytes", "%s  ", frame->mem_total);
	print_u64(p, "fabric_bytes_per_second", NULL,
		  top_per_second(frame->fabric_bytes, frame->interval_ns));
	print_string(p, NULL, "fabric: %s  ", fabric);
	print_u64(p, "clients", "clients: %llu", (uint64_t)frame->client_count);
	print_u64(p, "clients_hidden",
		  frame->clients_hidden ? " (%llu of other users hidden)" : NULL,
		  frame->clients_hidden);
	print_text(p, "\n\n");
	print_object_end(p);
}

/* Whether @row's device has a core: engines of more than the DMA type. */
static bool top_has_cores(const struct top_device_row *row)
{
	for (uint32_t t = DRM_TERN_ENGINE_TENSOR; t < SNAPSHOT_ENGINE_TYPES; t++)
		if (row->types[t].engines)
			return true;
	return false;
}

/*
 * The device's engines by type, for the types it has: in text a line
 * under a chip of cores' row ("dma 1.2% 0/4  tensor 50.0% 1/2 ..."),
 * in JSON always.
 */
static void top_print_types(struct print *p, const struct top_frame *frame,
			    const struct top_device_row *row)
{
	bool text = top_has_cores(row);
	const char *gap = "     ";

	print_array(p, "engine_types");
	for (uint32_t t = 0; t < SNAPSHOT_ENGINE_TYPES; t++) {
		const struct top_type_row *type = &row->types[t];
		char util[16], busy[24];

		if (!type->engines)
			continue;
		top_util(frame, type->utilisation, util, sizeof(util) - 1);
		if (frame->has_rates)
			strcat(util, "%");
		snprintf(busy, sizeof(busy), "%u/%u", type->engines_busy,
			 type->engines);
		if (text)
			print_text(p, "%s", gap);
		gap = "  ";
		print_object(p, NULL);
		print_string(p, "type", text ? "%s " : NULL,
			     tern_engine_type_name(t));
		print_u64(p, "engines", NULL, type->engines);
		print_u64(p, "engines_busy", NULL, type->engines_busy);
		print_u64(p, "busy_ns", NULL, type->busy_ns);
		print_u64(p, "utilisation_percent", NULL,
			  top_rounded(type->utilisation));
		print_string(p, NULL, text ? "%s " : NULL, util);
		print_string(p, NULL, text ? "%s" : NULL, busy);
		print_object_end(p);
	}
	print_array_end(p);
	if (text)
		print_text(p, "\n");
}

static void top_print_devices(struct print *p, const struct top_frame *frame)
{
	print_text(p, "%-4s %6s %5s  %-21s %11s %11s  %s\n", "DEV", "UTIL%",
		   "BUSY", "MEMORY USED / TOTAL", "LINK IN", "LINK OUT",
		   "HEALTH");
	print_array(p, "devices");
	for (int d = 0; d < frame->device_count; d++) {
		const struct top_device_row *row = &frame->devices[d];
		const struct snapshot_device *dev = row->dev;
		char used[32], total[32], memory[72], in[40], out[40];
		char engines[24], util[16];

		cli_format_bytes(dev->memory_used_bytes, used, sizeof(used));
		cli_format_bytes(dev->memory_total_bytes, total, sizeof(total));
		snprintf(memory, sizeof(memory), "%s / %s", used, total);
		snprintf(engines, sizeof(engines), "%u/%u", dev->engines_busy,
			 dev->engine_count);
		top_rate(frame, row->in_bytes, in, sizeof(in));
		top_rate(frame, row->out_bytes, out, sizeof(out));
		print_object(p, NULL);
		print_u64(p, "index", "%-4llu ", dev->index);
		print_u64(p, "busy_ns", NULL, row->busy_ns);
		print_u64(p, "utilisation_percent", NULL,
			  top_rounded(row->utilisation));
		print_string(p, NULL, "%6s ",
			     top_util(frame, row->utilisation, util,
				      sizeof(util)));
		print_u64(p, "engines", NULL, dev->engine_count);
		print_u64(p, "engines_busy", NULL, dev->engines_busy);
		print_string(p, NULL, "%5s  ", engines);
		print_u64(p, "memory_used_bytes", NULL, dev->memory_used_bytes);
		print_u64(p, "memory_total_bytes", NULL, dev->memory_total_bytes);
		print_string(p, NULL, "%-21s ", memory);
		print_u64(p, "link_in_bytes_per_second", NULL,
			  top_per_second(row->in_bytes, frame->interval_ns));
		print_string(p, NULL, "%11s ", in);
		print_u64(p, "link_out_bytes_per_second", NULL,
			  top_per_second(row->out_bytes, frame->interval_ns));
		print_string(p, NULL, "%11s  ", out);
		print_string(p, "health", "%s",
			     tern_health_name(dev->health));
		print_reasons(p, "health_reasons",
			      dev->health_reasons ? " (%s)" : NULL,
			      dev->health_reasons);
		print_text(p, "\n");
		top_print_types(p, frame, row);
		print_object_end(p);
	}
	print_array_end(p);
	print_text(p, "\n");
}

static void top_print_clients(struct print *p, const struct top_frame *frame)
{
	char note[128];

	inspect_hidden_note(frame->clients_hidden, note, sizeof(note));
	print_text(p, "%-8s %-16s %4s %10s %6s %5s\n", "PID", "COMMAND", "DEV",
		   "MEMORY", "UTIL%", "JOBS");
	if (!frame->client_count && !note[0])
		print_text(p, "(no process has a Tern device open%s)\n",
			   frame->snap->source == SNAPSHOT_SOURCE_SIM ?
			   "; the simulator reports none" : "");
	else if (!frame->client_count)
		print_text(p, "(none of yours)\n");
	if (note[0])
		print_text(p, "%s\n", note);
	print_array(p, "clients");
	for (int c = 0; c < frame->client_count; c++) {
		const struct top_client_row *row = &frame->clients[c];
		const struct snapshot_client *client = row->client;
		char comm[TEXT_PRINTABLE_MAX], util[16];

		print_object(p, NULL);
		print_u64(p, "pid", "%-8llu ", client->pid);
		print_string(p, "command", NULL, client->comm);
		print_string(p, NULL, "%-16.16s ",
			     text_printable(client->comm, comm, sizeof(comm)));
		print_u64(p, "device", "%4llu ", client->device);
		print_bytes(p, "memory_device_bytes", "%10s ",
			    client->memory_device_bytes);
		print_u64(p, "memory_host_bytes", NULL,
			  client->memory_host_bytes);
		print_u64(p, "busy_ns", NULL, row->busy_ns);
		print_u64(p, "utilisation_percent", NULL,
			  top_rounded(row->utilisation));
		print_string(p, NULL, "%6s ",
			     top_util(frame, row->utilisation, util,
				      sizeof(util)));
		print_u64(p, "jobs_active", "%5llu\n", client->jobs_active);
		print_object_end(p);
	}
	print_array_end(p);
}

/* The print helpers' text lines, onto the screen. */
static void top_screen_line(void *ctx, const char *text)
{
	top_line(ctx, "%s", text);
}

/* A frame, as text on @screen or as one JSON document: written once. */
static void top_frame_print(const struct top_frame *frame, FILE *out,
			    bool json, bool pretty, struct top_screen *screen,
			    const char *hint)
{
	struct print p;

	print_begin_lines(&p, out, json, pretty, top_screen_line, screen);
	top_print_header(&p, frame, hint);
	top_print_devices(&p, frame);
	top_print_clients(&p, frame);
	print_end(&p);
}

void top_frame_print_plain(const struct top_frame *frame, FILE *out,
			   int width, int height, const char *hint,
			   bool in_place)
{
	struct top_screen screen = { out, width, height > 0 ? height : -1,
				     in_place };

	if (in_place)
		fputs("\033[H", out);	/* home; no clearing, no flicker */
	top_frame_print(frame, out, false, false, &screen, hint);
	if (in_place)
		fputs("\033[J", out);	/* what the last frame had below */
}

void top_frame_print_json(const struct top_frame *frame, FILE *out,
			  bool pretty)
{
	top_frame_print(frame, out, true, pretty, NULL, NULL);
}
