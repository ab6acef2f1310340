// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fabric model: the topologies tern_fabric_init() builds,
 * shortest routes over up links, traffic counters, link state and errors.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tern_fabric.h"
#include "tern_accel.h"

static struct tern_fabric fabric;
static struct tern_fabric_hop hops[TERN_FABRIC_MAX_HOPS];

static void build(u32 devices, const char *spec, const char *normalized)
{
	assert_int_equal(tern_fabric_init(&fabric, devices, spec), 0);
	assert_int_equal(fabric.device_count, devices);
	assert_string_equal(fabric.spec, normalized);
}

static struct tern_fabric_port_view view(u32 device, u32 port)
{
	struct tern_fabric_port_view v;

	assert_int_equal(tern_fabric_port_view(&fabric, device, port, &v), 0);
	return v;
}

/* @device's @port leads, over an up link, to @peer's @peer_port. */
static void assert_port(u32 device, u32 port, u32 peer, u32 peer_port)
{
	struct tern_fabric_port_view v = view(device, port);

	if (v.state != DRM_TERN_PORT_UP || v.peer_device != peer ||
	    v.peer_port != peer_port)
		fail_msg("device %u port %u: state %u peer %u port %u, want up %u port %u",
			 device, port, v.state, v.peer_device, v.peer_port,
			 peer, peer_port);
	/* and the other end sees it the other way round */
	v = view(peer, peer_port);
	assert_int_equal(v.peer_device, device);
	assert_int_equal(v.peer_port, port);
}

static void assert_unconnected(u32 device, u32 port)
{
	assert_int_equal(view(device, port).state, DRM_TERN_PORT_UNCONNECTED);
	assert_int_equal(tern_fabric_set_link(&fabric, device, port, false),
			 -EINVAL);
}

/* Every link is joined to the ports that name it, and all start up and idle. */
static void assert_consistent(void)
{
	u32 used = 0;

	for (u32 d = 0; d < fabric.device_count; d++) {
		for (u32 p = 0; p < fabric.port_count[d]; p++) {
			s16 l = fabric.port_link[d][p];
			const struct tern_fabric_link *link;

			if (l < 0)
				continue;
			used++;
			assert_true((u32)l < fabric.link_count);
			link = &fabric.links[l];
			assert_true((link->end[0].device == d && link->end[0].port == p) ||
				    (link->end[1].device == d && link->end[1].port == p));
			assert_int_equal(link->up, 1);
			assert_int_equal(view(d, p).tx_bytes, 0);
			assert_int_equal(view(d, p).rx_packets, 0);
		}
	}
	assert_int_equal(used, 2 * fabric.link_count);
}

/* ---- topologies ---- */

static void test_ring_of_5(void **state)
{
	(void)state;
	build(5, "ring", "ring");
	assert_int_equal(fabric.link_count, 5);
	assert_consistent();
	for (u32 d = 0; d < 5; d++) {
		assert_int_equal(fabric.port_count[d], 2);
		assert_port(d, 0, (d + 1) % 5, 1);
		assert_port(d, 1, (d + 4) % 5, 0);
	}
}

static void test_ring_of_2_has_two_links(void **state)
{
	(void)state;
	build(2, "ring", "ring");
	assert_int_equal(fabric.link_count, 2);
	assert_consistent();
	assert_port(0, 0, 1, 1);
	assert_port(0, 1, 1, 0);
	assert_true(fabric.port_link[0][0] != fabric.port_link[0][1]);
}

static void test_torus_4x4(void **state)
{
	(void)state;
	build(16, "torus:4x4", "torus:4x4");
	assert_int_equal(fabric.rows, 4);
	assert_int_equal(fabric.cols, 4);
	assert_int_equal(fabric.link_count, 32);
	assert_consistent();
	for (u32 r = 0; r < 4; r++) {
		for (u32 c = 0; c < 4; c++) {
			u32 d = r * 4 + c;

			assert_int_equal(fabric.port_count[d], 4);
			for (u32 p = 0; p < 4; p++)
				assert_int_equal(view(d, p).peer_port, p ^ 1);
			assert_port(d, TERN_TORUS_EAST, r * 4 + (c + 1) % 4,
				    TERN_TORUS_WEST);
			assert_port(d, TERN_TORUS_WEST, r * 4 + (c + 3) % 4,
				    TERN_TORUS_EAST);
			assert_port(d, TERN_TORUS_SOUTH, ((r + 1) % 4) * 4 + c,
				    TERN_TORUS_NORTH);
			assert_port(d, TERN_TORUS_NORTH, ((r + 3) % 4) * 4 + c,
				    TERN_TORUS_SOUTH);
		}
	}
}

static void test_torus_2x2_parallel_links(void **state)
{
	(void)state;
	build(4, "torus:2x2", "torus:2x2");
	assert_int_equal(fabric.link_count, 8);
	assert_consistent();
	/* device 0 (row 0, col 0): both x ports reach 1, both y ports 2 */
	assert_port(0, TERN_TORUS_EAST, 1, TERN_TORUS_WEST);
	assert_port(0, TERN_TORUS_WEST, 1, TERN_TORUS_EAST);
	assert_port(0, TERN_TORUS_SOUTH, 2, TERN_TORUS_NORTH);
	assert_port(0, TERN_TORUS_NORTH, 2, TERN_TORUS_SOUTH);
	assert_port(3, TERN_TORUS_EAST, 2, TERN_TORUS_WEST);
	assert_port(3, TERN_TORUS_SOUTH, 1, TERN_TORUS_NORTH);
	for (u32 p = 0; p < 4; p++)
		for (u32 q = p + 1; q < 4; q++)
			assert_true(fabric.port_link[0][p] != fabric.port_link[0][q]);
}

static void test_torus_one_row_or_column(void **state)
{
	(void)state;
	build(5, "torus:1x5", "torus:1x5");
	assert_int_equal(fabric.link_count, 5);
	assert_consistent();
	for (u32 d = 0; d < 5; d++) {
		assert_int_equal(fabric.port_count[d], 4);
		assert_port(d, TERN_TORUS_EAST, (d + 1) % 5, TERN_TORUS_WEST);
		assert_unconnected(d, TERN_TORUS_SOUTH);
		assert_unconnected(d, TERN_TORUS_NORTH);
	}
	build(3, "torus:3x1", "torus:3x1");
	assert_int_equal(fabric.link_count, 3);
	assert_port(2, TERN_TORUS_SOUTH, 0, TERN_TORUS_NORTH);
	assert_unconnected(1, TERN_TORUS_EAST);
	assert_unconnected(1, TERN_TORUS_WEST);
}

static void test_full_5(void **state)
{
	(void)state;
	build(5, "full", "full");
	assert_int_equal(fabric.link_count, 10);
	assert_consistent();
	for (u32 d = 0; d < 5; d++) {
		assert_int_equal(fabric.port_count[d], 4);
		for (u32 p = 0; p < 4; p++) {
			u32 peer = p < d ? p : p + 1;

			assert_port(d, p, peer, d < peer ? d : d - 1);
		}
	}
	/* the largest full fabric: every device uses every port */
	build(TERN_FABRIC_MAX_PORTS + 1, "full", "full");
	assert_int_equal(fabric.port_count[0], TERN_FABRIC_MAX_PORTS);
}

static void test_custom(void **state)
{
	(void)state;
	build(4, "custom:0-1,1-2,002-0,0-1", "custom:0-1,1-2,2-0,0-1");
	assert_int_equal(fabric.link_count, 4);
	assert_consistent();
	assert_int_equal(fabric.port_count[0], 3);
	assert_int_equal(fabric.port_count[1], 3);
	assert_int_equal(fabric.port_count[2], 2);
	assert_int_equal(fabric.port_count[3], 0);
	/* ports numbered in order of appearance */
	assert_port(0, 0, 1, 0);
	assert_port(1, 1, 2, 0);
	assert_port(2, 1, 0, 1);
	assert_port(0, 2, 1, 2);
	assert_int_equal(tern_fabric_route(&fabric, 0, 3, hops), -ENOLINK);
}

/* Links may carry their own figures; the others keep the nominal ones. */
static void test_custom_figures(void **state)
{
	(void)state;
	build(3, "custom:0-1@128/2500ns,1-2,2-0@64",
	      "custom:0-1@128/2500ns,1-2,2-0@64/1500ns");
	assert_consistent();
	assert_int_equal(view(0, 0).bandwidth, 128000000000ull);
	assert_int_equal(view(1, 0).latency_ns, 2500);
	assert_int_equal(view(1, 1).bandwidth, TERN_FABRIC_LINK_BANDWIDTH);
	assert_int_equal(view(2, 0).latency_ns, TERN_FABRIC_LINK_LATENCY_NS);
	assert_int_equal(view(2, 1).bandwidth, 64000000000ull);
	assert_int_equal(view(0, 1).latency_ns, TERN_FABRIC_LINK_LATENCY_NS);
}

static void test_trn2(void **state)
{
	(void)state;
	build(16, "trn2", "trn2");
	assert_int_equal(fabric.link_count, 32);
	assert_consistent();
	for (u32 d = 0; d < 16; d++)
		for (u32 p = 0; p < 4; p++) {
			assert_int_equal(view(d, p).bandwidth, 256000000000ull);
			assert_int_equal(view(d, p).latency_ns, 1500);
		}
	assert_port(0, TERN_TORUS_EAST, 1, TERN_TORUS_WEST);
	assert_port(0, TERN_TORUS_NORTH, 12, TERN_TORUS_SOUTH);
	assert_int_equal(tern_fabric_preset_devices("trn2"), 16);
	assert_int_equal(tern_fabric_init(&fabric, 15, "trn2"), -EINVAL);
}

/* Four trn2 tori; each chip also joined to its twin in the next and last. */
static void test_trn2_ultra(void **state)
{
	(void)state;
	build(64, "trn2-ultra", "trn2-ultra");
	assert_int_equal(fabric.link_count, 4 * 32 + 64);
	assert_consistent();
	for (u32 i = 0; i < 4; i++) {
		for (u32 c = 0; c < 16; c++) {
			u32 d = i * 16 + c, r = c / 4, col = c % 4;

			assert_int_equal(fabric.port_count[d], 6);
			assert_port(d, TERN_TORUS_EAST, i * 16 + r * 4 + (col + 1) % 4,
				    TERN_TORUS_WEST);
			assert_port(d, TERN_TORUS_SOUTH, i * 16 + ((r + 1) % 4) * 4 + col,
				    TERN_TORUS_NORTH);
			assert_port(d, TERN_ULTRA_UP, ((i + 1) % 4) * 16 + c,
				    TERN_ULTRA_DOWN);
			assert_int_equal(view(d, TERN_TORUS_EAST).bandwidth,
					 TERN_FABRIC_LINK_BANDWIDTH);
			assert_int_equal(view(d, TERN_ULTRA_UP).bandwidth,
					 TERN_FABRIC_NODE_BANDWIDTH);
			assert_int_equal(view(d, TERN_ULTRA_DOWN).latency_ns,
					 TERN_FABRIC_NODE_LATENCY_NS);
		}
	}
	/* 256 GB/s between instances per chip, over its two node links */
	assert_int_equal(2 * TERN_FABRIC_NODE_BANDWIDTH, 256000000000ull);
	/* twins two instances apart are two node hops away */
	assert_int_equal(tern_fabric_route(&fabric, 5, 37, hops), 2);
	assert_int_equal(tern_fabric_preset_devices("trn2-ultra"), 64);
	assert_int_equal(tern_fabric_preset_devices("torus:4x4"), 0);
	assert_int_equal(tern_fabric_preset_devices(NULL), 0);
	assert_int_equal(tern_fabric_init(&fabric, 16, "trn2-ultra"), -EINVAL);
}

static void test_auto(void **state)
{
	(void)state;
	build(16, NULL, "torus:4x4");
	assert_int_equal(fabric.link_count, 32);
	build(16, "", "torus:4x4");
	build(16, "auto", "torus:4x4");
	build(9, "auto", "torus:3x3");
	build(4, NULL, "torus:2x2");
	build(6, NULL, "ring");
	assert_int_equal(fabric.link_count, 6);
	build(2, "auto", "ring");
	build(1, NULL, "none");
	assert_int_equal(fabric.link_count, 0);
	assert_int_equal(fabric.port_count[0], 0);
}

static void test_none(void **state)
{
	(void)state;
	build(3, "none", "none");
	assert_int_equal(fabric.link_count, 0);
	for (u32 d = 0; d < 3; d++)
		assert_int_equal(fabric.port_count[d], 0);
	assert_int_equal(tern_fabric_route(&fabric, 0, 1, hops), -ENOLINK);
	assert_int_equal(tern_fabric_route(&fabric, 1, 1, hops), 0);
}

static void test_bad_specs(void **state)
{
	static const struct {
		u32 devices;
		const char *spec;
	} bad[] = {
		{ 16, "torus:3x3" }, { 16, "torus:4x4x" }, { 16, "torus:" },
		{ 16, "torus:4" }, { 16, "torus:0x16" }, { 16, "torus:-4x-4" },
		{ 16, "torus:4x4 " }, { 16, "Torus:4x4" },
		{ TERN_FABRIC_MAX_PORTS + 2, "full" },
		{ 4, "custom:0-4" }, { 4, "custom:1-1" }, { 4, "custom:" },
		{ 4, "custom:0-1," }, { 4, "custom:0-1;1-2" }, { 4, "custom:0" },
		{ 4, "custom:0--1" }, { 4, "custom:99999999999-1" },
		{ 4, "custom:0-1@" }, { 4, "custom:0-1@0" },
		{ 4, "custom:0-1@100001" }, { 4, "custom:0-1@10/" },
		{ 4, "custom:0-1@10/5" }, { 4, "custom:0-1@10/0ns" },
		{ 4, "custom:0-1@10/100001ns" }, { 4, "custom:0-1@10/5us" },
		{ 4, "custom:0-1@-3" }, { 4, "custom:0-1@10ns" },
		{ 16, "trn2 " }, { 64, "trn2-Ultra" }, { 16, "trn3" },
		{ 4, "garbage" }, { 4, "ring " }, { 4, "rings" }, { 4, "nones" },
		{ 0, "ring" }, { TERN_FABRIC_MAX_DEVICES + 1, "ring" },
		{ 0, NULL },
	};
	char many[TERN_FABRIC_SPEC_MAX];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (tern_fabric_init(&fabric, bad[i].devices, bad[i].spec) !=
		    -EINVAL)
			fail_msg("\"%s\" for %u devices accepted", bad[i].spec,
				 bad[i].devices);
		assert_int_equal(fabric.link_count, 0);
	}
	/* one more link than device 0 has ports */
	strcpy(many, "custom:");
	for (int i = 0; i <= TERN_FABRIC_MAX_PORTS; i++)
		strcat(many, i ? ",0-1" : "0-1");
	assert_int_equal(tern_fabric_init(&fabric, 2, many), -EINVAL);
	many[strlen(many) - 4] = '\0';
	build(2, many, many);
	assert_int_equal(fabric.port_count[0], TERN_FABRIC_MAX_PORTS);
}

/* ---- routes ---- */

/* The route is a chain of links from @from to @to. */
static void assert_chain(u32 from, u32 to, int count)
{
	u32 at = from;

	for (int i = 0; i < count; i++) {
		const struct tern_fabric_link *link = &fabric.links[hops[i].link];

		assert_true(hops[i].link < fabric.link_count);
		assert_true(hops[i].dir <= 1);
		assert_int_equal(link->end[hops[i].dir].device, at);
		assert_int_equal(link->up, 1);
		at = link->end[hops[i].dir ^ 1].device;
	}
	assert_int_equal(at, to);
}

static u32 ring_distance(u32 a, u32 b, u32 n)
{
	u32 d = (a + n - b) % n;

	return d < n - d ? d : n - d;
}

static void test_route_torus_4x4(void **state)
{
	int longest = 0;

	(void)state;
	build(16, "torus:4x4", "torus:4x4");
	for (u32 a = 0; a < 16; a++) {
		for (u32 b = 0; b < 16; b++) {
			int n = tern_fabric_route(&fabric, a, b, hops);
			u32 want = ring_distance(a / 4, b / 4, 4) +
				   ring_distance(a % 4, b % 4, 4);

			assert_int_equal(n, want);
			assert_chain(a, b, n);
			if (n > longest)
				longest = n;
		}
	}
	assert_int_equal(longest, 4);
}

static void test_route_ring_8(void **state)
{
	int longest = 0;

	(void)state;
	build(8, "ring", "ring");
	for (u32 a = 0; a < 8; a++) {
		for (u32 b = 0; b < 8; b++) {
			int n = tern_fabric_route(&fabric, a, b, hops);

			assert_int_equal(n, ring_distance(a, b, 8));
			assert_chain(a, b, n);
			if (n > longest)
				longest = n;
		}
	}
	assert_int_equal(longest, 4);
}

static void test_route_full_is_direct(void **state)
{
	(void)state;
	build(7, "full", "full");
	for (u32 a = 0; a < 7; a++)
		for (u32 b = 0; b < 7; b++) {
			assert_int_equal(tern_fabric_route(&fabric, a, b, hops),
					 a != b);
			assert_chain(a, b, a != b);
		}
}

static void test_route_is_deterministic(void **state)
{
	struct tern_fabric_hop first[TERN_FABRIC_MAX_HOPS];
	int n;

	(void)state;
	build(16, "torus:4x4", "torus:4x4");
	/* 0 -> 10 has several shortest routes; the same one comes back */
	n = tern_fabric_route(&fabric, 0, 10, first);
	assert_int_equal(n, 4);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tern_fabric_route(&fabric, 0, 10, hops), n);
		for (int h = 0; h < n; h++) {
			assert_int_equal(hops[h].link, first[h].link);
			assert_int_equal(hops[h].dir, first[h].dir);
		}
	}
}

static void test_route_around_down_link(void **state)
{
	s16 down;
	int n;

	(void)state;
	build(16, "torus:4x4", "torus:4x4");
	assert_int_equal(tern_fabric_route(&fabric, 0, 1, hops), 1);
	down = fabric.port_link[0][TERN_TORUS_EAST];
	assert_int_equal(tern_fabric_set_link(&fabric, 0, TERN_TORUS_EAST, false), 1);
	n = tern_fabric_route(&fabric, 0, 1, hops);
	assert_int_equal(n, 3);
	assert_chain(0, 1, n);
	for (int i = 0; i < n; i++)
		assert_int_not_equal(hops[i].link, down);
	/* from the other end too */
	n = tern_fabric_route(&fabric, 1, 0, hops);
	assert_int_equal(n, 3);
	assert_chain(1, 0, n);
	/* back up, back to one hop */
	assert_int_equal(tern_fabric_set_link(&fabric, 1, TERN_TORUS_WEST, true), 1);
	assert_int_equal(tern_fabric_route(&fabric, 0, 1, hops), 1);

	build(5, "ring", "ring");
	assert_int_equal(tern_fabric_set_link(&fabric, 0, 0, false), 1);
	n = tern_fabric_route(&fabric, 0, 1, hops);
	assert_int_equal(n, 4);
	assert_chain(0, 1, n);
}

static void test_route_no_link(void **state)
{
	(void)state;
	build(4, "ring", "ring");
	assert_int_equal(tern_fabric_set_link(&fabric, 0, 0, false), 1);
	assert_int_equal(tern_fabric_set_link(&fabric, 0, 1, false), 1);
	assert_int_equal(tern_fabric_route(&fabric, 0, 2, hops), -ENOLINK);
	assert_int_equal(tern_fabric_route(&fabric, 3, 0, hops), -ENOLINK);
	assert_int_equal(tern_fabric_route(&fabric, 1, 3, hops), 2);
	assert_int_equal(tern_fabric_route(&fabric, 0, 0, hops), 0);
	/* a ring cut once still joins everyone */
	assert_int_equal(tern_fabric_set_link(&fabric, 0, 1, true), 1);
	assert_int_equal(tern_fabric_route(&fabric, 0, 1, hops), 3);
	assert_int_equal(tern_fabric_route(&fabric, 0, 4, hops), -EINVAL);
	assert_int_equal(tern_fabric_route(&fabric, 4, 0, hops), -EINVAL);
}

/* ---- counters and state ---- */

static void test_count_direction(void **state)
{
	struct tern_fabric_port_view v;
	int n;

	(void)state;
	build(5, "ring", "ring");
	n = tern_fabric_route(&fabric, 0, 2, hops);	/* 0 -> 1 -> 2 */
	assert_int_equal(n, 2);
	tern_fabric_count(&fabric, hops, n, false, 100);
	v = view(0, 0);
	assert_int_equal(v.tx_bytes, 100);
	assert_int_equal(v.tx_packets, 1);
	assert_int_equal(v.rx_bytes, 0);
	assert_int_equal(v.rx_packets, 0);
	v = view(1, 1);
	assert_int_equal(v.rx_bytes, 100);
	assert_int_equal(v.rx_packets, 1);
	assert_int_equal(view(1, 0).tx_bytes, 100);
	assert_int_equal(view(2, 1).rx_bytes, 100);
	/* the links away from the route saw nothing */
	assert_int_equal(view(0, 1).tx_bytes + view(0, 1).rx_bytes, 0);
	assert_int_equal(view(2, 0).tx_bytes + view(2, 0).rx_bytes, 0);

	/* reverse: the bytes come from 2 back to 0 on the same links */
	tern_fabric_count(&fabric, hops, n, true, 7);
	v = view(0, 0);
	assert_int_equal(v.tx_bytes, 100);
	assert_int_equal(v.rx_bytes, 7);
	assert_int_equal(v.rx_packets, 1);
	assert_int_equal(view(2, 1).tx_bytes, 7);
	assert_int_equal(view(2, 1).tx_packets, 1);

	/* a route leaving through port 1 counts on the other side */
	n = tern_fabric_route(&fabric, 0, 4, hops);
	assert_int_equal(n, 1);
	tern_fabric_count(&fabric, hops, n, false, 5);
	assert_int_equal(view(0, 1).tx_bytes, 5);
	assert_int_equal(view(4, 0).rx_bytes, 5);
	assert_int_equal(view(4, 0).tx_bytes, 0);
}

static void test_set_link(void **state)
{
	(void)state;
	build(16, "torus:4x4", "torus:4x4");
	assert_int_equal(tern_fabric_set_link(&fabric, 5, TERN_TORUS_SOUTH, true), 0);
	assert_int_equal(tern_fabric_set_link(&fabric, 5, TERN_TORUS_SOUTH, false), 1);
	assert_int_equal(tern_fabric_set_link(&fabric, 5, TERN_TORUS_SOUTH, false), 0);
	/* the same link seen from its other end */
	assert_int_equal(tern_fabric_set_link(&fabric, 9, TERN_TORUS_NORTH, false), 0);
	assert_int_equal(view(5, TERN_TORUS_SOUTH).state, DRM_TERN_PORT_DOWN);
	assert_int_equal(view(9, TERN_TORUS_NORTH).state, DRM_TERN_PORT_DOWN);
	assert_int_equal(view(5, TERN_TORUS_NORTH).state, DRM_TERN_PORT_UP);
	assert_int_equal(tern_fabric_set_link(&fabric, 9, TERN_TORUS_NORTH, true), 1);
	assert_int_equal(view(5, TERN_TORUS_SOUTH).state, DRM_TERN_PORT_UP);
	/* no such port or device */
	assert_int_equal(tern_fabric_set_link(&fabric, 5, 4, false), -EINVAL);
	assert_int_equal(tern_fabric_set_link(&fabric, 16, 0, false), -EINVAL);
	assert_int_equal(tern_fabric_link_error(&fabric, 5, 4), -EINVAL);
	assert_int_equal(tern_fabric_link_error(&fabric, 16, 0), -EINVAL);
}

static void test_port_view(void **state)
{
	struct tern_fabric_port_view v;

	(void)state;
	build(4, "ring", "ring");
	assert_int_equal(tern_fabric_link_error(&fabric, 1, 0), 0);
	assert_int_equal(tern_fabric_link_error(&fabric, 2, 1), 0);
	assert_int_equal(view(1, 0).errors, 2);
	assert_int_equal(view(2, 1).errors, 2);
	assert_int_equal(view(1, 1).errors, 0);
	v = view(3, 0);
	assert_int_equal(v.state, DRM_TERN_PORT_UP);
	assert_int_equal(v.peer_device, 0);
	assert_int_equal(v.peer_port, 1);
	assert_int_equal(tern_fabric_port_view(&fabric, 3, 2, &v), -EINVAL);
	assert_int_equal(tern_fabric_port_view(&fabric, 4, 0, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_of_5),
		cmocka_unit_test(test_ring_of_2_has_two_links),
		cmocka_unit_test(test_torus_4x4),
		cmocka_unit_test(test_torus_2x2_parallel_links),
		cmocka_unit_test(test_torus_one_row_or_column),
		cmocka_unit_test(test_full_5),
		cmocka_unit_test(test_custom),
		cmocka_unit_test(test_custom_figures),
		cmocka_unit_test(test_trn2),
		cmocka_unit_test(test_trn2_ultra),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_route_torus_4x4),
		cmocka_unit_test(test_route_ring_8),
		cmocka_unit_test(test_route_full_is_direct),
		cmocka_unit_test(test_route_is_deterministic),
		cmocka_unit_test(test_route_around_down_link),
		cmocka_unit_test(test_route_no_link),
		cmocka_unit_test(test_count_direction),
		cmocka_unit_test(test_set_link),
		cmocka_unit_test(test_port_view),
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
