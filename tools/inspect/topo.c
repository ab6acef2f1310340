// SPDX-License-Identifier: MIT
/*
 * tern-inspect topo: the fabric drawn as text (a torus as a grid with its
 * wraparound links at the edges, a ring as a cycle, anything else as an
 * adjacency list), then a table of every link. Or the same as JSON,
 * written once for both (print.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"

static void topo_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect topo [options]\n"
		"The fabric: a drawing (a torus as a grid, a ring as a cycle,\n"
		"else each device's neighbours), then one line per link: its\n"
		"ends (device/port), state, bytes each way and errors.\n"
		"\n"
		"Options:\n");
	inspect_print_common_options(out);
}

/* Device index at fabric id @id ("?" cells cannot happen on a dense torus). */
static uint32_t topo_index(const struct snapshot *snap, uint32_t id)
{
	const struct snapshot_device *dev = snapshot_device_by_fabric_id(snap, id);

	return dev ? dev->index : id;
}

/* '-' style mark for a link: @up_mark when up, 'x' when down, ' ' if none. */
static char topo_mark(const struct snapshot_link *link, char up_mark)
{
	if (!link)
		return ' ';
	return link->up ? up_mark : 'x';
}

/*
 * The link from cell @a to its neighbour @b: with a dimension of 2 the
 * pair has two links, the direct one first and the wraparound second.
 */
static const struct snapshot_link *topo_grid_link(const struct snapshot *snap,
						  uint32_t a, uint32_t b,
						  bool wrap, uint32_t size)
{
	return snapshot_link_between(snap, a, b, wrap && size == 2 ? 1 : 0);
}

static int topo_digits(uint32_t value)
{
	int digits = 1;

	while (value >= 10) {
		value /= 10;
		digits++;
	}
	return digits;
}

/* One line of vertical marks under (or over) row @row's cells. */
static void topo_grid_verticals(FILE *out, const struct snapshot *snap,
				uint32_t rows, uint32_t cols, uint32_t row,
				int cell, char up_mark, bool wrap)
{
	int column = 4 + cell / 2;

	fprintf(out, "%*s", column, "");
	for (uint32_t c = 0; c < cols; c++) {
		uint32_t a = row * cols + c, b = ((row + 1) % rows) * cols + c;
		const struct snapshot_link *link =
			topo_grid_link(snap, a, b, wrap, rows);

		if (c)
			fprintf(out, "%*s", cell + 2, "");
		fputc(topo_mark(link, up_mark), out);
	}
	fputc('\n', out);
}

static void topo_draw_torus(FILE *out, const struct snapshot *snap,
			    uint32_t rows, uint32_t cols)
{
	int width = topo_digits(topo_index(snap, rows * cols - 1));
	int cell = width + 2;	/* "[12]" */

	fprintf(out,
		"torus %ux%u: %d devices, %d links; '-' '|' link up, 'x' link down;\n"
		"'<' '>' at a row's ends and '^' 'v' at a column's ends are the\n"
		"wraparound link joining them\n\n",
		rows, cols, snap->device_count, snap->link_count);
	topo_grid_verticals(out, snap, rows, cols, rows - 1, cell, '^', true);
	for (uint32_t r = 0; r < rows; r++) {
		const struct snapshot_link *wrap =
			topo_grid_link(snap, r * cols + cols - 1, r * cols, true,
				       cols);

		fprintf(out, "  %c ", topo_mark(wrap, '<'));
		for (uint32_t c = 0; c < cols; c++) {
			uint32_t id = r * cols + c;

			fprintf(out, "[%*u]", width, topo_index(snap, id));
			if (c + 1 < cols) {
				const struct snapshot_link *link =
					topo_grid_link(snap, id, id + 1, false,
						       cols);

				fprintf(out, "-%c-", topo_mark(link, '-'));
			}
		}
		fprintf(out, " %c\n", topo_mark(wrap, '>'));
		if (r + 1 < rows)
			topo_grid_verticals(out, snap, rows, cols, r, cell, '|',
					    false);
	}
	topo_grid_verticals(out, snap, rows, cols, rows - 1, cell, 'v', true);
}

static void topo_draw_ring(FILE *out, const struct snapshot *snap,
			   const int *order)
{
	int n = snap->device_count;

	fprintf(out,
		"ring: %d devices, %d links; '---' link up, '-x-' link down\n\n  ",
		n, snap->link_count);
	for (int i = 0; i < n; i++) {
		const struct snapshot_device *a = &snap->devices[order[i]];
		const struct snapshot_device *b = &snap->devices[order[(i + 1) % n]];
		/* Two devices: the pair has two links, one each way round. */
		const struct snapshot_link *link = snapshot_link_between(
			snap, a->fabric_id, b->fabric_id, n == 2 && i == 1);

		fprintf(out, "%u -%c-", a->index, topo_mark(link, '-'));
		fputs(i % 8 == 7 && i + 1 < n ? "\n  " : " ", out);
	}
	fprintf(out, "(back to %u)\n", snap->devices[order[0]].index);
}

/* One end of a link, seen from a device, for listing in port order. */
struct topo_end {
	uint32_t port, peer, peer_port;
	bool up;
};

static int topo_end_order(const void *a, const void *b)
{
	const struct topo_end *x = a, *y = b;

	return x->port < y->port ? -1 : x->port > y->port;
}

static void topo_draw_adjacency(FILE *out, const struct snapshot *snap)
{
	struct topo_end *ends = calloc((size_t)snap->link_count + 1,
				       sizeof(*ends));

	fprintf(out, "fabric%s%s: %d devices, %d links; each device's peers "
		"(device/port, down links marked DOWN)\n\n",
		snap->topology[0] ? " " : "", snap->topology,
		snap->device_count, snap->link_count);
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];
		size_t count = 0;

		fprintf(out, "  %3u:", dev->index);
		for (int l = 0; ends && l < snap->link_count; l++) {
			const struct snapshot_link *link = &snap->links[l];
			struct topo_end *end = &ends[count];

			if (link->device_a == dev->fabric_id) {
				end->peer = link->device_b;
				end->port = link->port_a;
				end->peer_port = link->port_b;
			} else if (link->device_b == dev->fabric_id) {
				end->peer = link->device_a;
				end->port = link->port_b;
				end->peer_port = link->port_a;
			} else {
				continue;
			}
			end->up = link->up;
			count++;
		}
		qsort(ends, count, sizeof(*ends), topo_end_order);
		for (size_t e = 0; e < count; e++)
			fprintf(out, "%s port %u -> %u/%u%s", e ? "," : "",
				ends[e].port, topo_index(snap, ends[e].peer),
				ends[e].peer_port, ends[e].up ? "" : " DOWN");
		fprintf(out, "%s\n", count ? "" : " no links");
	}
	free(ends);
}

void topo_draw(FILE *out, const struct snapshot *snap)
{
	uint32_t rows, cols;
	int *order;

	if (snapshot_find_torus(snap, &rows, &cols)) {
		topo_draw_torus(out, snap, rows, cols);
		return;
	}
	order = calloc((size_t)snap->device_count + 1, sizeof(*order));
	if (order && snapshot_find_ring(snap, order))
		topo_draw_ring(out, snap, order);
	else
		topo_draw_adjacency(out, snap);
	free(order);
}

void topo_shape(const struct snapshot *snap, char *buf, size_t len)
{
	int *order = calloc((size_t)snap->device_count + 1, sizeof(*order));

	if (snap->torus_rows)
		snprintf(buf, len, "torus:%ux%u", snap->torus_rows,
			 snap->torus_cols);
	else if (order && snapshot_find_ring(snap, order))
		snprintf(buf, len, "ring");
	else if (snap->link_count == 0)
		snprintf(buf, len, "none");
	else if (snap->topology[0])
		snprintf(buf, len, "%s", snap->topology);
	else
		snprintf(buf, len, "other");
	free(order);
}

static void topo_print_link(struct print *p, const struct snapshot *snap,
			    const struct snapshot_link *link)
{
	uint32_t a = topo_index(snap, link->device_a);
	uint32_t b = topo_index(snap, link->device_b);
	char end_a[24], end_b[24];

	snprintf(end_a, sizeof(end_a), "%u/%u", a, link->port_a);
	snprintf(end_b, sizeof(end_b), "%u/%u", b, link->port_b);
	print_object(p, NULL);
	print_u64(p, "index", "%-4llu  ", link->index);
	print_u64(p, "device_a", NULL, a);
	print_u64(p, "port_a", NULL, link->port_a);
	print_string(p, NULL, "%-11s  ", end_a);
	print_u64(p, "device_b", NULL, b);
	print_u64(p, "port_b", NULL, link->port_b);
	print_string(p, NULL, "%-11s  ", end_b);
	print_string(p, "state", NULL, link->up ? "up" : "down");
	print_string(p, NULL, "%-5s  ", link->up ? "up" : "DOWN");
	print_bytes(p, "bytes_a_to_b", "%12s  ", link->bytes_a_to_b);
	print_bytes(p, "bytes_b_to_a", "%12s  ", link->bytes_b_to_a);
	print_u64(p, "packets_a_to_b", NULL, link->packets_a_to_b);
	print_u64(p, "packets_b_to_a", NULL, link->packets_b_to_a);
	print_u64(p, "errors", "%6llu\n", link->errors);
	print_u64(p, "bandwidth_bytes_per_second", NULL, link->bandwidth);
	print_u64(p, "latency_ns", NULL, link->latency_ns);
	print_object_end(p);
}

/* The drawing (text only), then every link. */
static void topo_print(const struct inspect_options *opts,
		       const struct snapshot *snap)
{
	struct print p;
	char shape[80];

	topo_shape(snap, shape, sizeof(shape));
	print_begin(&p, opts, snap);
	if (!p.json)
		topo_draw(stdout, snap);
	print_string(&p, "topology", NULL, shape);
	print_string(&p, "driver_topology", NULL, snap->topology);
	print_u64(&p, "torus_rows", NULL, snap->torus_rows);
	print_u64(&p, "torus_cols", NULL, snap->torus_cols);
	print_array(&p, "devices");
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		print_object(&p, NULL);
		print_u64(&p, "index", NULL, dev->index);
		print_u64(&p, "fabric_id", NULL, dev->fabric_id);
		print_u64(&p, "ports", NULL, dev->port_count);
		print_u64(&p, "links_up", NULL, dev->links_up);
		print_object_end(&p);
	}
	print_array_end(&p);
	if (snap->link_count)
		print_text(&p, "\n%-4s  %-11s  %-11s  %-5s  %12s  %12s  %6s\n",
			   "LINK", "DEVICE/PORT", "PEER/PORT", "STATE",
			   "BYTES A->B", "B->A", "ERRORS");
	print_array(&p, "links");
	for (int i = 0; i < snap->link_count; i++)
		topo_print_link(&p, snap, &snap->links[i]);
	print_array_end(&p);
	print_end(&p);
}

static int topo_run(int argc, char **argv, struct inspect_options *opts)
{
	struct snapshot snap;
	int ret;

	ret = inspect_parse_args("topo", argc, argv, opts, NULL, topo_usage);
	if (ret != INSPECT_RUN)
		return ret;
	ret = inspect_snapshot("topo", &snap);
	if (ret)
		return ret;
	topo_print(opts, &snap);
	snapshot_free(&snap);
	return 0;
}

const struct inspect_command inspect_topo_command = {
	.name = "topo",
	.summary = "the fabric: a drawing and a link table",
	.usage = topo_usage,
	.run = topo_run,
};
