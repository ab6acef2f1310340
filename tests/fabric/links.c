// SPDX-License-Identifier: MIT
/*
 * Fault injection through debugfs: a link taken down reroutes traffic the
 * long way round the ring, a device cut off fails its peer jobs with
 * -ENOLINK, bad commands are refused, errors are counted at both ends.
 */
#include <errno.h>
#include <string.h>

#include "fabric.h"

/* Expected change of one port's counters. */
struct delta {
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets, errors;
};

/* Asserts that every port of every device moved by exactly @want. */
static void assert_ports_moved(const struct ports *before,
			       const struct ports *after,
			       struct delta want[][RING_PORTS])
{
	for (uint32_t d = 0; d < fabric.devices; d++) {
		for (uint32_t p = 0; p < RING_PORTS; p++) {
			const struct drm_tern_port_info *b = &before->port[d][p];
			const struct drm_tern_port_info *a = &after->port[d][p];
			const struct delta *w = &want[d][p];

			if (a->tx_bytes - b->tx_bytes != w->tx_bytes ||
			    a->rx_bytes - b->rx_bytes != w->rx_bytes ||
			    a->tx_packets - b->tx_packets != w->tx_packets ||
			    a->rx_packets - b->rx_packets != w->rx_packets ||
			    a->errors - b->errors != w->errors)
				fail_msg("device %u port %u moved by tx %llu/%llu rx %llu/%llu errors %llu, want tx %llu/%llu rx %llu/%llu errors %llu",
					 d, p,
					 (unsigned long long)(a->tx_bytes - b->tx_bytes),
					 (unsigned long long)(a->tx_packets - b->tx_packets),
					 (unsigned long long)(a->rx_bytes - b->rx_bytes),
					 (unsigned long long)(a->rx_packets - b->rx_packets),
					 (unsigned long long)(a->errors - b->errors),
					 (unsigned long long)w->tx_bytes,
					 (unsigned long long)w->tx_packets,
					 (unsigned long long)w->rx_bytes,
					 (unsigned long long)w->rx_packets,
					 (unsigned long long)w->errors);
		}
	}
}

static void assert_port_state(uint32_t device, uint32_t port, uint32_t state)
{
	struct drm_tern_port_info ports[RING_PORTS];

	assert_int_equal(uapi_topology(fabric.fd[device], ports, RING_PORTS),
			 RING_PORTS);
	if (ports[port].state != state)
		fail_msg("device %u port %u is in state %u, want %u", device,
			 port, ports[port].state, state);
}

static void test_link_down_reroutes(void **state)
{
	struct delta want[FABRIC_MAX_DEVICES][RING_PORTS];
	struct ports before, after;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	/* both ends of the link 0->1 see it */
	assert_port_state(0, RING_NEXT, DRM_TERN_PORT_DOWN);
	assert_port_state(1, RING_PREV, DRM_TERN_PORT_DOWN);

	ports_read(&before);
	assert_int_equal(copy_to_device1(1), 1);
	assert_device1_got(1);
	ports_read(&after);

	/* 0 -> N-1 -> ... -> 2 -> 1: each hop leaves on port 1, arrives on 0 */
	memset(want, 0, sizeof(want));
	for (uint32_t d = 0; d != 1; d = (d + fabric.devices - 1) % fabric.devices) {
		uint32_t next = (d + fabric.devices - 1) % fabric.devices;

		want[d][RING_PREV].tx_bytes = FABRIC_COPY_BYTES;
		want[d][RING_PREV].tx_packets = 1;
		want[next][RING_NEXT].rx_bytes = FABRIC_COPY_BYTES;
		want[next][RING_NEXT].rx_packets = 1;
	}
	assert_ports_moved(&before, &after, want);
}

static void test_link_up_again_goes_direct(void **state)
{
	struct delta want[FABRIC_MAX_DEVICES][RING_PORTS];
	struct ports before, after;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	/* either end may bring it back */
	assert_int_equal(link_write(1, "1 up"), 0);
	assert_port_state(0, RING_NEXT, DRM_TERN_PORT_UP);
	assert_port_state(1, RING_PREV, DRM_TERN_PORT_UP);

	ports_read(&before);
	assert_int_equal(copy_to_device1(2), 1);
	assert_device1_got(2);
	ports_read(&after);
	memset(want, 0, sizeof(want));
	want[0][RING_NEXT].tx_bytes = FABRIC_COPY_BYTES;
	want[0][RING_NEXT].tx_packets = 1;
	want[1][RING_PREV].rx_bytes = FABRIC_COPY_BYTES;
	want[1][RING_PREV].rx_packets = 1;
	assert_ports_moved(&before, &after, want);
}

static void test_device_cut_off_fails_with_enolink(void **state)
{
	struct delta want[FABRIC_MAX_DEVICES][RING_PORTS];
	struct ports before, after;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	assert_int_equal(link_write(0, "1 down"), 0);

	ports_read(&before);
	assert_int_equal(copy_to_device1(3), -ENOLINK);
	ports_read(&after);
	memset(want, 0, sizeof(want));
	assert_ports_moved(&before, &after, want);

	/* the device's own memory needs no link */
	memset(fx.local.cpu + 8192, 0, FABRIC_COPY_BYTES);
	assert_int_equal(copy_on_device0(fx.local.va, fx.local.va + 8192,
					 FABRIC_COPY_BYTES), 1);
	assert_memory_equal(fx.local.cpu + 8192, fx.local.cpu, FABRIC_COPY_BYTES);

	assert_int_equal(link_write(0, "1 up"), 0);
	assert_int_equal(copy_to_device1(4), 1);
	assert_device1_got(4);
}

static void test_link_bad_commands(void **state)
{
	static const char *const bad[] = {
		"7 down", "2 down", "0 sideways", "junk",
	};
	struct delta want[FABRIC_MAX_DEVICES][RING_PORTS];
	struct ports before, after;

	(void)state;
	ports_read(&before);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = link_write(0, bad[i]);

		if (err != EINVAL)
			fail_msg("writing \"%s\" gave %s, want EINVAL", bad[i],
				 err ? strerrorname_np(err) : "success");
	}
	ports_read(&after);
	memset(want, 0, sizeof(want));
	assert_ports_moved(&before, &after, want);
	for (uint32_t p = 0; p < RING_PORTS; p++)
		assert_port_state(0, p, DRM_TERN_PORT_UP);
}

static void test_link_error_counts_at_both_ends(void **state)
{
	struct delta want[FABRIC_MAX_DEVICES][RING_PORTS];
	struct ports before, after;

	(void)state;
	ports_read(&before);
	assert_int_equal(link_write(0, "0 error"), 0);
	ports_read(&after);
	memset(want, 0, sizeof(want));
	want[0][RING_NEXT].errors = 1;
	want[1][RING_PREV].errors = 1;
	assert_ports_moved(&before, &after, want);
	/* an error does not take the link down */
	assert_port_state(0, RING_NEXT, DRM_TERN_PORT_UP);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

int link_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_link_down_reroutes),
		T(test_link_up_again_goes_direct),
		T(test_device_cut_off_fails_with_enolink),
		T(test_link_bad_commands),
		T(test_link_error_counts_at_both_ends),
	};

	return cmocka_run_group_tests_name("fabric_links", tests, NULL, NULL);
}
