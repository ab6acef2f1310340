// SPDX-License-Identifier: MIT
/*
 * Snapshots: choosing the source, lookups, and the shape of the fabric
 * (torus, ring) worked out from the links.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/errno.h>

#include "cli.h"
#include "family.h"
#include "snapshot.h"
#include "tern_accel.h"

#define SNAPSHOT_STRING_OF(x) #x
#define SNAPSHOT_STRING(x) SNAPSHOT_STRING_OF(x)

int snapshot_take(const char *prog, struct snapshot *snap)
{
	tern_backend_reason_t reason;
	tern_backend_t backend;
	int ret;

	memset(snap, 0, sizeof(*snap));
	if (tern_get_backend_reason(&backend, &reason))
		return cli_get_backend(prog, &backend);	/* explains, usage */
	/* tern.ko's family, if it is there, unless TERN_BACKEND=sim. */
	if (backend == TERN_BACKEND_KERNEL ||
	    reason != TERN_BACKEND_REASON_SETTING) {
		ret = snapshot_kernel_take(prog, NULL, NULL, snap);
		if (ret != SNAPSHOT_NO_DRIVER)
			return ret;
		if (reason == TERN_BACKEND_REASON_SETTING) {
			snap->backend = TERN_BACKEND_KERNEL;
			fprintf(stderr,
				"%s: tern.ko is not loaded (no \"%s\" netlink family): "
				"load it with 'sudo modprobe tern mock_devices=4' or "
				"'sudo tern-inspect module load --mock-devices 4', or "
				"unset TERN_BACKEND to use the simulator\n",
				prog, DRM_TERN_GENL_NAME);
			return 1;
		}
	}
	return snapshot_sim_take(prog, snap);
}

int snapshot_refresh(const char *prog, struct snapshot_session *session,
		     const struct snapshot *old, struct snapshot *snap)
{
	int ret;

	memset(snap, 0, sizeof(*snap));
	if (old->source == SNAPSHOT_SOURCE_SIM)
		return snapshot_sim_take(prog, snap);
	if (!session->netlink) {
		session->netlink = calloc(1, sizeof(*session->netlink));
		if (!session->netlink) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
	}
	ret = snapshot_kernel_take(prog, old, session->netlink, snap);
	if (ret == SNAPSHOT_NO_DRIVER) {
		fprintf(stderr, "%s: tern.ko was unloaded\n", prog);
		return 1;
	}
	return ret;
}

void snapshot_session_end(struct snapshot_session *session)
{
	if (session->netlink)
		family_close(session->netlink);
	free(session->netlink);
	session->netlink = NULL;
}

int snapshot_device_alloc_engines(struct snapshot_device *dev)
{
	dev->engines = NULL;
	if (!dev->engine_count)
		return 0;
	dev->engines = calloc(dev->engine_count, sizeof(*dev->engines));
	if (!dev->engines)
		return -1;
	for (uint32_t e = 0; e < dev->engine_count; e++) {
		dev->engines[e].index = e;
		/* An older sender says neither: not known, not DMA of core 0. */
		dev->engines[e].type = SNAPSHOT_ENGINE_TYPE_UNKNOWN;
		dev->engines[e].core = DRM_TERN_ENGINE_NO_CORE;
	}
	return 0;
}

void snapshot_device_free(struct snapshot_device *dev)
{
	free(dev->engines);
	dev->engines = NULL;
}

void snapshot_engine_types(const struct snapshot_device *dev,
			   struct snapshot_engine_type types[SNAPSHOT_ENGINE_TYPES])
{
	memset(types, 0, SNAPSHOT_ENGINE_TYPES * sizeof(*types));
	for (uint32_t e = 0; e < dev->engine_count; e++) {
		const struct tern_state_engine *engine = &dev->engines[e];

		if (engine->type >= SNAPSHOT_ENGINE_TYPES)
			continue;
		types[engine->type].engines++;
		types[engine->type].busy += engine->busy != 0;
		types[engine->type].busy_ns += engine->busy_ns;
	}
}

const char *snapshot_error(int err)
{
	if (err == SNAPSHOT_TOO_MANY_ENGINES)
		return "a device reports more engines than tern-inspect takes "
		       "(" SNAPSHOT_STRING(SNAPSHOT_MAX_ENGINES) ")";
	return nl_geterror(err);
}

void snapshot_free(struct snapshot *snap)
{
	for (int i = 0; i < snap->device_count; i++)
		snapshot_device_free(&snap->devices[i]);
	free(snap->devices);
	free(snap->links);
	free(snap->clients);
	memset(snap, 0, sizeof(*snap));
}

const struct snapshot_device *snapshot_find_device(const struct snapshot *snap,
						   const char *which)
{
	long index;

	if (cli_parse_long(which, 0, 1L << 30, &index)) {
		for (int i = 0; i < snap->device_count; i++)
			if (snap->devices[i].index == (uint32_t)index)
				return &snap->devices[i];
		return NULL;
	}
	for (int i = 0; i < snap->device_count; i++) {
		const struct snapshot_device *dev = &snap->devices[i];

		if (strcmp(dev->node, which) == 0 ||
		    (dev->bus_id[0] && strcmp(dev->bus_id, which) == 0))
			return dev;
	}
	return NULL;
}

const struct snapshot_device *snapshot_device_by_fabric_id(
	const struct snapshot *snap, uint32_t fabric_id)
{
	for (int i = 0; i < snap->device_count; i++)
		if (snap->devices[i].fabric_id == fabric_id)
			return &snap->devices[i];
	return NULL;
}

void snapshot_health_reasons(uint32_t reasons, char *buf, int len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
#define TERN_HEALTH_REASON(bit, name, help) { bit, name },
#include "tern_state_list.h"
	};
	int used = 0;

	if (len <= 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(reasons & names[i].bit))
			continue;
		used += snprintf(buf + used, used < len ? (size_t)(len - used) : 0,
				 "%s%s", used ? "," : "", names[i].name);
		if (used >= len)
			return;
	}
}

void snapshot_derive_link_health(const struct snapshot *snap,
				 struct snapshot_device *dev)
{
	struct tern_health_input in = { 0 };

	for (int i = 0; i < snap->link_count; i++) {
		const struct snapshot_link *link = &snap->links[i];

		if (link->device_a != dev->fabric_id &&
		    link->device_b != dev->fabric_id)
			continue;
		in.links_down += !link->up;
		in.link_errors += link->errors;
	}
	dev->health_reasons = tern_health_reasons(&in, NULL);
	dev->health = tern_health_of(dev->health_reasons);
}

const struct snapshot_link *snapshot_link_between(const struct snapshot *snap,
						  uint32_t a, uint32_t b,
						  int nth)
{
	for (int i = 0; i < snap->link_count; i++) {
		const struct snapshot_link *link = &snap->links[i];

		if ((link->device_a == a && link->device_b == b) ||
		    (link->device_a == b && link->device_b == a))
			if (nth-- == 0)
				return link;
	}
	return NULL;
}

/* Links joining each pair of fabric ids, @n x @n; NULL if an id is >= @n. */
static int *snapshot_pair_counts(const struct snapshot *snap, uint32_t n)
{
	int *counts = calloc((size_t)n * n, sizeof(*counts));

	if (!counts)
		return NULL;
	for (int i = 0; i < snap->link_count; i++) {
		const struct snapshot_link *link = &snap->links[i];

		if (link->device_a >= n || link->device_b >= n) {
			free(counts);
			return NULL;
		}
		counts[link->device_a * n + link->device_b]++;
		if (link->device_a != link->device_b)
			counts[link->device_b * n + link->device_a]++;
	}
	return counts;
}

/* Fabric ids must be exactly 0..device_count-1 for a shape to apply. */
static bool snapshot_ids_dense(const struct snapshot *snap)
{
	for (uint32_t id = 0; id < (uint32_t)snap->device_count; id++)
		if (!snapshot_device_by_fabric_id(snap, id))
			return false;
	return true;
}

static bool snapshot_is_torus(const int *counts, uint32_t rows, uint32_t cols)
{
	uint32_t n = rows * cols;
	int *want = calloc((size_t)n * n, sizeof(*want));
	bool same;

	if (!want)
		return false;
	for (uint32_t r = 0; r < rows; r++) {
		for (uint32_t c = 0; c < cols; c++) {
			uint32_t id = r * cols + c;
			uint32_t east = r * cols + (c + 1) % cols;
			uint32_t south = ((r + 1) % rows) * cols + c;

			want[id * n + east]++;
			want[east * n + id]++;
			want[id * n + south]++;
			want[south * n + id]++;
		}
	}
	same = memcmp(want, counts, (size_t)n * n * sizeof(*want)) == 0;
	free(want);
	return same;
}

bool snapshot_find_torus(const struct snapshot *snap, uint32_t *rows,
			 uint32_t *cols)
{
	uint32_t n = (uint32_t)snap->device_count;
	unsigned int r = 0, c = 0;
	bool found = false;
	int *counts;

	if (n < 4 || !snapshot_ids_dense(snap))
		return false;
	counts = snapshot_pair_counts(snap, n);
	if (!counts)
		return false;
	if (sscanf(snap->topology, "torus:%ux%u", &r, &c) == 2 && r >= 2 &&
	    c >= 2 && r * c == n) {
		found = snapshot_is_torus(counts, r, c);
	} else {
		for (r = 2; r <= n / 2 && !found; r++) {
			c = n / r;
			if (n % r == 0 && c >= 2)
				found = snapshot_is_torus(counts, r, c);
			if (found)
				break;
		}
	}
	free(counts);
	if (found) {
		*rows = r;
		*cols = c;
	}
	return found;
}

bool snapshot_find_ring(const struct snapshot *snap, int *order)
{
	uint32_t n = (uint32_t)snap->device_count;
	uint32_t prev, cur;
	int *counts;
	bool ok = true;

	if (n < 2 || !snapshot_ids_dense(snap) ||
	    snap->link_count != (int)n)
		return false;
	counts = snapshot_pair_counts(snap, n);
	if (!counts)
		return false;
	/* Every device has exactly two links, none to itself. */
	for (uint32_t d = 0; d < n && ok; d++) {
		int degree = 0;

		for (uint32_t e = 0; e < n; e++)
			degree += counts[d * n + e];
		ok = degree == 2 && counts[d * n + d] == 0;
	}
	/* Walk from device 0: a single cycle visits all n before returning. */
	prev = n;
	cur = 0;
	for (uint32_t step = 0; step < n && ok; step++) {
		uint32_t next = n;

		order[step] = (int)snapshot_device_by_fabric_id(snap, cur)->index;
		for (uint32_t e = 0; e < n && next == n; e++)
			if (counts[cur * n + e] && (e != prev || counts[cur * n + e] == 2))
				next = e;
		if (next == n || (next == 0 && step + 1 < n)) {
			ok = false;
			break;
		}
		prev = cur;
		cur = next;
	}
	ok = ok && cur == 0;
	free(counts);
	return ok;
}

static int snapshot_device_cmp(const void *a, const void *b)
{
	const struct snapshot_device *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static int snapshot_link_cmp(const void *a, const void *b)
{
	const struct snapshot_link *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static int snapshot_client_cmp(const void *a, const void *b)
{
	const struct snapshot_client *x = a, *y = b;

	if (x->device != y->device)
		return (x->device > y->device) - (x->device < y->device);
	return (x->id > y->id) - (x->id < y->id);
}

void snapshot_finish(struct snapshot *snap)
{
	if (snap->device_count)
		qsort(snap->devices, (size_t)snap->device_count,
		      sizeof(*snap->devices), snapshot_device_cmp);
	if (snap->link_count)
		qsort(snap->links, (size_t)snap->link_count,
		      sizeof(*snap->links), snapshot_link_cmp);
	if (snap->client_count)
		qsort(snap->clients, (size_t)snap->client_count,
		      sizeof(*snap->clients), snapshot_client_cmp);
	for (int i = 0; i < snap->device_count; i++) {
		struct snapshot_device *dev = &snap->devices[i];

		uint32_t clients = 0;

		for (int c = 0; c < snap->client_count; c++)
			clients += snap->clients[c].device == dev->index;
		if (clients > dev->client_count)
			dev->client_count = clients;
		dev->links_up = 0;
		for (int l = 0; l < snap->link_count; l++) {
			const struct snapshot_link *link = &snap->links[l];

			if (link->up && (link->device_a == dev->fabric_id ||
					 link->device_b == dev->fabric_id))
				dev->links_up++;
		}
	}
	snap->torus_rows = snap->torus_cols = 0;
	snapshot_find_torus(snap, &snap->torus_rows, &snap->torus_cols);
}

void snapshot_count_hidden(struct snapshot *snap, bool sees_all)
{
	for (int i = 0; i < snap->device_count; i++) {
		struct snapshot_device *dev = &snap->devices[i];
		uint32_t listed = 0;

		for (int c = 0; c < snap->client_count; c++)
			listed += snap->clients[c].device == dev->index;
		/* snapshot_finish() made client_count at least listed */
		dev->clients_hidden = sees_all ? 0 : dev->client_count - listed;
	}
}
