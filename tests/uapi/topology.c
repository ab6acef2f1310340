// SPDX-License-Identifier: MIT
/*
 * TOPOLOGY: a device's fabric id and ports, what each port reports, that
 * both ends of a link agree, and the ioctl's errors. Also how the tests
 * reach the other Tern devices of the machine. Every case needs a fabric,
 * so at least two devices; with one it is skipped.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "nodes.h"
#include "uapi.h"

#define MAX_PORTS	16
#define MAX_DEVICES	64
#define PORT_BANDWIDTH	256000000000ull
#define PORT_LATENCY_NS	1500u

static int count_file(int fd, const char *path, void *ctx)
{
	(void)path;
	(*(uint32_t *)ctx)++;
	close(fd);
	return 0;
}

uint32_t uapi_device_count(void)
{
	uint32_t count = 0;

	tern_nodes_each(count_file, &count);
	return count;
}

struct device_search {
	uint32_t index;
	int fd;
};

static int match_file(int fd, const char *path, void *ctx)
{
	struct device_search *search = ctx;
	struct drm_tern_info info = { 0 };

	(void)path;
	if (!drmIoctl(fd, DRM_IOCTL_TERN_GET_INFO, &info) &&
	    info.device_index == search->index) {
		search->fd = fd;
		return 1;
	}
	close(fd);
	return 0;
}

int uapi_open_device(uint32_t index)
{
	struct device_search search = { .index = index, .fd = -1 };

	tern_nodes_each(match_file, &search);
	return search.fd;
}

uint32_t uapi_topology(int fd, struct drm_tern_port_info *ports, uint32_t max)
{
	struct drm_tern_topology args = {
		.port_count = max,
		.ports = (uintptr_t)ports,
	};

	assert_ioctl_ok(uapi_ioctl(fd, DRM_IOCTL_TERN_TOPOLOGY, &args));
	return args.port_count;
}

struct uapi_traffic uapi_traffic_toward(int fd, uint32_t peer)
{
	struct drm_tern_port_info ports[MAX_PORTS];
	struct uapi_traffic t = { 0 };
	uint32_t count = uapi_topology(fd, ports, MAX_PORTS);

	assert_true(count <= MAX_PORTS);
	for (uint32_t i = 0; i < count; i++) {
		if (ports[i].state == DRM_TERN_PORT_UNCONNECTED ||
		    ports[i].peer_fabric_id != peer)
			continue;
		t.tx_bytes += ports[i].tx_bytes;
		t.rx_bytes += ports[i].rx_bytes;
		t.tx_packets += ports[i].tx_packets;
		t.rx_packets += ports[i].rx_packets;
		t.errors += ports[i].errors;
	}
	return t;
}

static int topology_setup(void **state)
{
	/* skipped, not failed, where there is no second device */
	*state = uapi_device_count() >= 2 ? (void *)1 : NULL;
	return uapi_setup(state);
}

#define NEED_FABRIC(state) \
	do { if (!*(state)) skip(); } while (0)

/* ---- TOPOLOGY ---- */

static void test_topology_count_query(void **state)
{
	struct drm_tern_topology args = { 0 };
	struct drm_tern_info info = uapi_get_info(uapi.fd);

	NEED_FABRIC(state);
	args.fabric_id = 0xdead;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_TOPOLOGY, &args));
	assert_int_equal(args.port_count, info.fabric_port_count);
	assert_true(args.port_count > 0);
	assert_int_equal(args.fabric_id, info.device_index);
}

static void test_topology_fill(void **state)
{
	struct drm_tern_port_info ports[MAX_PORTS + 1], sentinel;
	uint32_t count, up = 0;

	NEED_FABRIC(state);
	count = uapi_get_info(uapi.fd).fabric_port_count;
	assert_true(count > 0 && count <= MAX_PORTS);
	memset(ports, 0xa5, sizeof(ports));
	memset(&sentinel, 0xa5, sizeof(sentinel));

	assert_int_equal(uapi_topology(uapi.fd, ports, count), count);
	for (uint32_t i = 0; i < count; i++) {
		const struct drm_tern_port_info *port = &ports[i];

		assert_int_equal(port->port, i);
		assert_int_equal(port->pad, 0);
		if (port->state == DRM_TERN_PORT_UNCONNECTED) {
			assert_int_equal(port->bandwidth, 0);
			assert_int_equal(port->tx_bytes + port->rx_bytes, 0);
			continue;
		}
		assert_int_equal(port->state, DRM_TERN_PORT_UP);
		assert_int_equal(port->bandwidth, PORT_BANDWIDTH);
		assert_int_equal(port->latency_ns, PORT_LATENCY_NS);
		up++;
	}
	assert_true(up > 0);
	/* the entry past the count was not written */
	assert_memory_equal(&ports[count], &sentinel, sizeof(sentinel));
}

static void test_topology_fewer_entries(void **state)
{
	struct drm_tern_port_info ports[2], sentinel;
	uint32_t count;

	NEED_FABRIC(state);
	count = uapi_get_info(uapi.fd).fabric_port_count;
	memset(ports, 0xa5, sizeof(ports));
	memset(&sentinel, 0xa5, sizeof(sentinel));
	/* room for one entry: one written, the count is still the whole */
	assert_int_equal(uapi_topology(uapi.fd, ports, 1), count);
	assert_int_equal(ports[0].port, 0);
	assert_memory_equal(&ports[1], &sentinel, sizeof(sentinel));
}

static void test_topology_links_are_symmetric(void **state)
{
	struct drm_tern_port_info ports[MAX_DEVICES][MAX_PORTS];
	uint32_t counts[MAX_DEVICES], devices = uapi_device_count(), links = 0;

	NEED_FABRIC(state);
	assert_true(devices <= MAX_DEVICES);
	/* mock devices: fabric id == device index */
	for (uint32_t d = 0; d < devices; d++) {
		struct drm_tern_topology args = {
			.port_count = MAX_PORTS,
			.ports = (uintptr_t)ports[d],
		};
		int fd = uapi_open_device(d);

		assert_true(fd >= 0);
		assert_ioctl_ok(uapi_ioctl(fd, DRM_IOCTL_TERN_TOPOLOGY, &args));
		close(fd);
		assert_int_equal(args.fabric_id, d);
		assert_true(args.port_count <= MAX_PORTS);
		counts[d] = args.port_count;
	}
	for (uint32_t d = 0; d < devices; d++) {
		for (uint32_t p = 0; p < counts[d]; p++) {
			const struct drm_tern_port_info *near = &ports[d][p], *far;

			if (near->state == DRM_TERN_PORT_UNCONNECTED)
				continue;
			assert_true(near->peer_fabric_id < devices);
			assert_true(near->peer_port < counts[near->peer_fabric_id]);
			far = &ports[near->peer_fabric_id][near->peer_port];
			assert_int_equal(far->state, near->state);
			assert_int_equal(far->peer_fabric_id, d);
			assert_int_equal(far->peer_port, p);
			links++;
		}
	}
	assert_true(links > 0);
}

static void test_topology_flags(void **state)
{
	struct drm_tern_topology args = { .flags = 1 };

	NEED_FABRIC(state);
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_TOPOLOGY, &args), EINVAL);
}

static void test_topology_pad(void **state)
{
	struct drm_tern_topology args = { .pad = 1 };

	NEED_FABRIC(state);
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_TOPOLOGY, &args), EINVAL);
}

static void test_topology_bad_pointer(void **state)
{
	struct drm_tern_topology args = {
		.port_count = 1,
		.ports = (uintptr_t)uapi_bad_pointer(),
	};

	NEED_FABRIC(state);
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_TOPOLOGY, &args), EFAULT);
}

static void test_topology_bad_pointer_no_entries(void **state)
{
	struct drm_tern_topology args = {
		.ports = (uintptr_t)uapi_bad_pointer(),
	};

	NEED_FABRIC(state);
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_TOPOLOGY, &args));
	assert_int_equal(args.port_count, uapi_get_info(uapi.fd).fabric_port_count);
}

static void test_topology_capabilities(void **state)
{
	const uint64_t want = DRM_TERN_CAP_FABRIC | DRM_TERN_CAP_REDUCE |
			      DRM_TERN_CAP_PEER_MEMORY;

	NEED_FABRIC(state);
	assert_int_equal(uapi_get_info(uapi.fd).capabilities & want, want);
}

#define T(f) cmocka_unit_test_setup_teardown(f, topology_setup, uapi_teardown)

int uapi_topology_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_topology_count_query),
		T(test_topology_fill),
		T(test_topology_fewer_entries),
		T(test_topology_links_are_symmetric),
		T(test_topology_flags),
		T(test_topology_pad),
		T(test_topology_bad_pointer),
		T(test_topology_bad_pointer_no_entries),
		T(test_topology_capabilities),
	};

	return cmocka_run_group_tests_name("uapi_topology", tests, NULL, NULL);
}
