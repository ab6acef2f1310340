// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Tern fabric model: building topologies, routing over up links and
 * counting the traffic of each transfer on the links it crosses.
 *
 * Port numbering, so that every topology is the same on every device:
 *  - ring: port 0 goes to the next device (id + 1), port 1 to the previous
 *    one; a ring of 2 has two parallel links, as two cabled chips would;
 *  - torus: the ports of enum tern_torus_port; a dimension of size 2 has
 *    two parallel links between the pair (EAST and WEST, or SOUTH and
 *    NORTH), so every chip keeps 4 links; a dimension of size 1 has none;
 *  - full: port p of device d goes to device p when p < d, else p + 1;
 *  - custom: each device numbers its ports in the order its links appear;
 *  - trn2-ultra: each instance's chips as torus:4x4, then ports 4 (to the
 *    same chip of the next instance) and 5 (of the previous one).
 */
#include "tern_fabric.h"
#include "../../uapi/drm/tern_accel.h"

/* Longest decimal number a spec may hold; more is garbage, not a count. */
#define TERN_SPEC_NUMBER_MAX	100000u

static bool tern_spec_number(const char **s, u32 *value)
{
	const char *p = *s;
	u32 v = 0;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (u32)(*p - '0');
		if (v > TERN_SPEC_NUMBER_MAX)
			return false;
		p++;
	}
	*s = p;
	*value = v;
	return true;
}

/* Appends @text to the normalized spec; false when it does not fit. */
static bool tern_spec_append(struct tern_fabric *fabric, const char *text)
{
	size_t used = strlen(fabric->spec), len = strlen(text);

	if (used + len >= sizeof(fabric->spec))
		return false;
	memcpy(fabric->spec + used, text, len + 1);
	return true;
}

static bool tern_spec_append_u32(struct tern_fabric *fabric, u32 value)
{
	char digits[12];
	int at = sizeof(digits) - 1;

	digits[at] = '\0';
	do {
		digits[--at] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	return tern_spec_append(fabric, digits + at);
}

static bool tern_spec_is(const char *spec, const char *word)
{
	return strcmp(spec, word) == 0;
}

static bool tern_spec_prefix(const char **spec, const char *prefix)
{
	size_t len = strlen(prefix);

	if (strncmp(*spec, prefix, len))
		return false;
	*spec += len;
	return true;
}

/* Joins the next free port of @a to the next free port of @b. */
static int tern_fabric_join(struct tern_fabric *fabric, u32 a, u32 b)
{
	struct tern_fabric_link *link;
	u32 index = fabric->link_count;

	if (a == b || a >= fabric->device_count || b >= fabric->device_count)
		return -EINVAL;
	if (fabric->port_count[a] >= TERN_FABRIC_MAX_PORTS ||
	    fabric->port_count[b] >= TERN_FABRIC_MAX_PORTS ||
	    index >= TERN_FABRIC_MAX_LINKS)
		return -EINVAL;
	link = &fabric->links[index];
	link->end[0].device = (u16)a;
	link->end[0].port = fabric->port_count[a];
	link->end[1].device = (u16)b;
	link->end[1].port = fabric->port_count[b];
	link->bandwidth = TERN_FABRIC_LINK_BANDWIDTH;
	link->latency_ns = TERN_FABRIC_LINK_LATENCY_NS;
	tern_store_u32(&link->up, 1);
	fabric->port_link[a][fabric->port_count[a]++] = (s16)index;
	fabric->port_link[b][fabric->port_count[b]++] = (s16)index;
	fabric->link_count++;
	return 0;
}

/* Joins @a's port @pa to @b's port @pb, both already counted. */
static struct tern_fabric_link *
tern_fabric_join_ports(struct tern_fabric *fabric, u32 a, u32 pa, u32 b,
		       u32 pb)
{
	u32 index = fabric->link_count++;
	struct tern_fabric_link *link = &fabric->links[index];

	link->end[0].device = (u16)a;
	link->end[0].port = (u16)pa;
	link->end[1].device = (u16)b;
	link->end[1].port = (u16)pb;
	link->bandwidth = TERN_FABRIC_LINK_BANDWIDTH;
	link->latency_ns = TERN_FABRIC_LINK_LATENCY_NS;
	tern_store_u32(&link->up, 1);
	fabric->port_link[a][pa] = (s16)index;
	fabric->port_link[b][pb] = (s16)index;
	return link;
}

static int tern_fabric_ring(struct tern_fabric *fabric)
{
	u32 n = fabric->device_count, d;

	for (d = 0; d < n; d++)
		fabric->port_count[d] = 2;
	if (n < 2)
		return 0;
	for (d = 0; d < n; d++)
		tern_fabric_join_ports(fabric, d, 0, (d + 1) % n, 1);
	return 0;
}

/* An RxC torus of devices @first .. @first + R * C - 1, on ports 0-3. */
static void tern_fabric_torus_at(struct tern_fabric *fabric, u32 first,
				 u32 rows, u32 cols)
{
	u32 r, c;

	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			fabric->port_count[first + r * cols + c] = 4;
	for (r = 0; r < rows; r++) {
		for (c = 0; c < cols; c++) {
			u32 d = first + r * cols + c;

			if (cols > 1)
				tern_fabric_join_ports(fabric, d, TERN_TORUS_EAST,
						       first + r * cols + (c + 1) % cols,
						       TERN_TORUS_WEST);
			if (rows > 1)
				tern_fabric_join_ports(fabric, d, TERN_TORUS_SOUTH,
						       first + ((r + 1) % rows) * cols + c,
						       TERN_TORUS_NORTH);
		}
	}
}

static int tern_fabric_torus(struct tern_fabric *fabric, u32 rows, u32 cols)
{
	if ((u64)rows * cols != fabric->device_count)
		return -EINVAL;
	fabric->rows = rows;
	fabric->cols = cols;
	tern_fabric_torus_at(fabric, 0, rows, cols);
	return 0;
}

/*
 * A 64-chip UltraServer: four trn2 instances, and each chip joined in a
 * ring to the chips at its coordinates in the other three.
 */
static int tern_fabric_ultra(struct tern_fabric *fabric)
{
	u32 i, c;

	if (fabric->device_count != TERN_ULTRA_INSTANCES * TERN_ULTRA_CHIPS)
		return -EINVAL;
	fabric->rows = 4;
	fabric->cols = 4;
	for (i = 0; i < TERN_ULTRA_INSTANCES; i++)
		tern_fabric_torus_at(fabric, i * TERN_ULTRA_CHIPS, 4, 4);
	for (i = 0; i < TERN_ULTRA_INSTANCES; i++)
		for (c = 0; c < TERN_ULTRA_CHIPS; c++)
			fabric->port_count[i * TERN_ULTRA_CHIPS + c] = 6;
	for (i = 0; i < TERN_ULTRA_INSTANCES; i++) {
		for (c = 0; c < TERN_ULTRA_CHIPS; c++) {
			u32 next = (i + 1) % TERN_ULTRA_INSTANCES;
			struct tern_fabric_link *link;

			link = tern_fabric_join_ports(fabric,
						      i * TERN_ULTRA_CHIPS + c,
						      TERN_ULTRA_UP,
						      next * TERN_ULTRA_CHIPS + c,
						      TERN_ULTRA_DOWN);
			link->bandwidth = TERN_FABRIC_NODE_BANDWIDTH;
			link->latency_ns = TERN_FABRIC_NODE_LATENCY_NS;
		}
	}
	return 0;
}

static int tern_fabric_full(struct tern_fabric *fabric)
{
	u32 n = fabric->device_count, a, b;
	int ret;

	if (n > TERN_FABRIC_MAX_PORTS + 1)
		return -EINVAL;
	/*
	 * Joining pairs in this order gives device d's port p to device p
	 * (p < d) or p + 1: each device meets its peers in id order.
	 */
	for (a = 0; a < n; a++) {
		for (b = a + 1; b < n; b++) {
			ret = tern_fabric_join(fabric, a, b);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * A custom link's own figures, "@GBPS" or "@GBPS/NSns" after "A-B", each
 * from 1 to its bound; written back to the spec only when given.
 */
static int tern_fabric_link_figures(struct tern_fabric *fabric,
				    const char **list,
				    struct tern_fabric_link *link)
{
	u32 gbps, ns = link->latency_ns;

	if (**list != '@')
		return 0;
	(*list)++;
	if (!tern_spec_number(list, &gbps) || gbps < 1 ||
	    gbps > TERN_FABRIC_MAX_GBPS)
		return -EINVAL;
	if (**list == '/') {
		(*list)++;
		if (!tern_spec_number(list, &ns) || ns < 1 ||
		    ns > TERN_FABRIC_MAX_LATENCY_NS || !tern_spec_prefix(list, "ns"))
			return -EINVAL;
	}
	link->bandwidth = (u64)gbps * 1000 * 1000 * 1000;
	link->latency_ns = ns;
	if (!tern_spec_append(fabric, "@") ||
	    !tern_spec_append_u32(fabric, gbps) ||
	    !tern_spec_append(fabric, "/") ||
	    !tern_spec_append_u32(fabric, ns) ||
	    !tern_spec_append(fabric, "ns"))
		return -EINVAL;
	return 0;
}

static int tern_fabric_custom(struct tern_fabric *fabric, const char *list)
{
	u32 a, b;
	int ret;

	do {
		if (!tern_spec_number(&list, &a) || *list++ != '-' ||
		    !tern_spec_number(&list, &b))
			return -EINVAL;
		ret = tern_fabric_join(fabric, a, b);
		if (ret)
			return ret;
		if (fabric->link_count > 1 && !tern_spec_append(fabric, ","))
			return -EINVAL;
		if (!tern_spec_append_u32(fabric, a) ||
		    !tern_spec_append(fabric, "-") ||
		    !tern_spec_append_u32(fabric, b))
			return -EINVAL;
		ret = tern_fabric_link_figures(fabric, &list,
					       &fabric->links[fabric->link_count - 1]);
		if (ret)
			return ret;
	} while (*list++ == ',');
	return list[-1] == '\0' ? 0 : -EINVAL;
}

static int tern_fabric_build(struct tern_fabric *fabric, const char *spec)
{
	u32 n = fabric->device_count, rows, cols, k;

	if (!spec || tern_spec_is(spec, "") || tern_spec_is(spec, "auto")) {
		for (k = 2; k * k <= n; k++)
			if (k * k == n)
				break;
		if (k * k == n) {
			spec = "torus:";
			if (!tern_spec_append(fabric, spec) ||
			    !tern_spec_append_u32(fabric, k) ||
			    !tern_spec_append(fabric, "x") ||
			    !tern_spec_append_u32(fabric, k))
				return -EINVAL;
			return tern_fabric_torus(fabric, k, k);
		}
		spec = n == 1 ? "none" : "ring";
	}
	if (tern_spec_is(spec, "none")) {
		tern_spec_append(fabric, spec);
		return 0;
	}
	if (tern_spec_is(spec, "ring")) {
		tern_spec_append(fabric, spec);
		return tern_fabric_ring(fabric);
	}
	if (tern_spec_is(spec, "full")) {
		tern_spec_append(fabric, spec);
		return tern_fabric_full(fabric);
	}
	if (tern_spec_is(spec, "trn2")) {
		tern_spec_append(fabric, spec);
		return tern_fabric_torus(fabric, 4, 4);
	}
	if (tern_spec_is(spec, "trn2-ultra")) {
		tern_spec_append(fabric, spec);
		return tern_fabric_ultra(fabric);
	}
	if (tern_spec_prefix(&spec, "torus:")) {
		if (!tern_spec_number(&spec, &rows) || *spec++ != 'x' ||
		    !tern_spec_number(&spec, &cols) || *spec)
			return -EINVAL;
		if (!tern_spec_append(fabric, "torus:") ||
		    !tern_spec_append_u32(fabric, rows) ||
		    !tern_spec_append(fabric, "x") ||
		    !tern_spec_append_u32(fabric, cols))
			return -EINVAL;
		return tern_fabric_torus(fabric, rows, cols);
	}
	if (tern_spec_prefix(&spec, "custom:")) {
		tern_spec_append(fabric, "custom:");
		return tern_fabric_custom(fabric, spec);
	}
	return -EINVAL;
}

u32 tern_fabric_preset_devices(const char *spec)
{
	if (spec && tern_spec_is(spec, "trn2"))
		return TERN_ULTRA_CHIPS;
	if (spec && tern_spec_is(spec, "trn2-ultra"))
		return TERN_ULTRA_INSTANCES * TERN_ULTRA_CHIPS;
	return 0;
}

int tern_fabric_init(struct tern_fabric *fabric, u32 devices, const char *spec)
{
	int ret;

	memset(fabric, 0, sizeof(*fabric));
	memset(fabric->port_link, 0xff, sizeof(fabric->port_link));
	if (devices < 1 || devices > TERN_FABRIC_MAX_DEVICES)
		return -EINVAL;
	fabric->device_count = devices;
	ret = tern_fabric_build(fabric, spec);
	if (ret) {
		memset(fabric, 0, sizeof(*fabric));
		memset(fabric->port_link, 0xff, sizeof(fabric->port_link));
	}
	return ret;
}

/* The direction of @link when it is left from @device. */
static u8 tern_link_dir_from(const struct tern_fabric_link *link, u32 device)
{
	return link->end[0].device == device ? 0 : 1;
}

int tern_fabric_route(const struct tern_fabric *fabric, u32 from, u32 to,
		      struct tern_fabric_hop *hops)
{
	/* how each device was first reached: the hop that arrived there */
	struct tern_fabric_hop arrival[TERN_FABRIC_MAX_DEVICES];
	u8 queue[TERN_FABRIC_MAX_DEVICES];
	bool seen[TERN_FABRIC_MAX_DEVICES] = { false };
	u32 head = 0, tail = 0, d, p;
	int count = 0;

	if (from >= fabric->device_count || to >= fabric->device_count)
		return -EINVAL;
	if (from == to)
		return 0;
	/* Breadth first, ports in index order: shortest, and always the same. */
	seen[from] = true;
	queue[tail++] = (u8)from;
	while (head < tail && !seen[to]) {
		d = queue[head++];
		for (p = 0; p < fabric->port_count[d]; p++) {
			const struct tern_fabric_link *link;
			s16 index = fabric->port_link[d][p];
			u8 dir;
			u32 peer;

			if (index < 0)
				continue;
			link = &fabric->links[index];
			if (!tern_load_u32(&link->up))
				continue;
			dir = tern_link_dir_from(link, d);
			peer = link->end[dir ^ 1].device;
			if (seen[peer])
				continue;
			seen[peer] = true;
			arrival[peer].link = (u16)index;
			arrival[peer].dir = dir;
			queue[tail++] = (u8)peer;
		}
	}
	if (!seen[to])
		return -ENOLINK;
	for (d = to; d != from;
	     d = fabric->links[arrival[d].link].end[arrival[d].dir].device)
		count++;
	for (d = to, p = count; d != from;
	     d = fabric->links[arrival[d].link].end[arrival[d].dir].device)
		hops[--p] = arrival[d];
	return count;
}

void tern_fabric_count(struct tern_fabric *fabric,
		       const struct tern_fabric_hop *hops, int hop_count,
		       bool reverse, u64 bytes)
{
	int i;

	for (i = 0; i < hop_count; i++) {
		struct tern_fabric_link *link = &fabric->links[hops[i].link];
		u8 dir = hops[i].dir ^ (reverse ? 1 : 0);

		tern_counter_add(&link->bytes[dir], bytes);
		tern_counter_add(&link->packets[dir], 1);
	}
}

static struct tern_fabric_link *tern_port_link(const struct tern_fabric *fabric,
					       u32 device, u32 port)
{
	s16 index;

	if (device >= fabric->device_count || port >= fabric->port_count[device])
		return NULL;
	index = fabric->port_link[device][port];
	if (index < 0)
		return NULL;
	return (struct tern_fabric_link *)&fabric->links[index];
}

int tern_fabric_set_link(struct tern_fabric *fabric, u32 device, u32 port,
			 bool up)
{
	struct tern_fabric_link *link = tern_port_link(fabric, device, port);

	if (!link)
		return -EINVAL;
	/*
	 * Callers serialize state changes (fault injection is one writer at
	 * a time); engines only read the state while they route.
	 */
	if (!!tern_load_u32(&link->up) == up)
		return 0;
	tern_store_u32(&link->up, up ? 1 : 0);
	return 1;
}

int tern_fabric_link_error(struct tern_fabric *fabric, u32 device, u32 port)
{
	struct tern_fabric_link *link = tern_port_link(fabric, device, port);

	if (!link)
		return -EINVAL;
	tern_counter_add(&link->errors, 1);
	return 0;
}

int tern_fabric_port_view(const struct tern_fabric *fabric, u32 device,
			  u32 port, struct tern_fabric_port_view *view)
{
	const struct tern_fabric_link *link;
	u8 tx;

	if (device >= fabric->device_count || port >= fabric->port_count[device])
		return -EINVAL;
	memset(view, 0, sizeof(*view));
	link = tern_port_link(fabric, device, port);
	if (!link) {
		view->state = DRM_TERN_PORT_UNCONNECTED;
		return 0;
	}
	tx = link->end[0].device == device && link->end[0].port == port ? 0 : 1;
	view->state = tern_load_u32(&link->up) ? DRM_TERN_PORT_UP : DRM_TERN_PORT_DOWN;
	view->peer_device = link->end[tx ^ 1].device;
	view->peer_port = link->end[tx ^ 1].port;
	view->bandwidth = link->bandwidth;
	view->latency_ns = link->latency_ns;
	view->tx_bytes = tern_counter_read(&link->bytes[tx]);
	view->rx_bytes = tern_counter_read(&link->bytes[tx ^ 1]);
	view->tx_packets = tern_counter_read(&link->packets[tx]);
	view->rx_packets = tern_counter_read(&link->packets[tx ^ 1]);
	view->errors = tern_counter_read(&link->errors);
	return 0;
}
