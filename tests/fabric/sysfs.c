// SPDX-License-Identifier: MIT
/*
 * The devices' sysfs directories (/sys/bus/platform/devices/tern.N/tern):
 * one value per file, the same values netlink and TOPOLOGY report, found
 * from the device node too, and following buffers as they come and go.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "fabric.h"

static void read_file(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	if (!fgets(out, (int)size, f))
		fail_msg("%s: empty", path);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

void sysfs_string(uint32_t device, const char *file, char *out, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/tern.%u/tern/%s",
		 device, file);
	read_file(path, out, size);
}

uint64_t sysfs_number(uint32_t device, const char *file)
{
	char value[64], *end;
	uint64_t number;

	sysfs_string(device, file, value, sizeof(value));
	errno = 0;
	number = strtoull(value, &end, 0);
	if (errno || *end || end == value)
		fail_msg("tern.%u/tern/%s: \"%s\" is not a number", device, file,
			 value);
	return number;
}

static const char *const health_names[] = {
	[DRM_TERN_HEALTH_OK] = "ok",
	[DRM_TERN_HEALTH_DEGRADED] = "degraded",
	[DRM_TERN_HEALTH_FAILED] = "failed",
};

/* Each file and the DEVICE_GET attribute it must equal. */
static const struct {
	const char *file;
	int attr;
} device_files[] = {
	{ "index", DRM_TERN_A_DEV_INDEX },
	{ "fabric_id", DRM_TERN_A_DEV_FABRIC_ID },
	{ "health_reasons", DRM_TERN_A_DEV_HEALTH_REASONS },
	{ "mem_total_bytes", DRM_TERN_A_DEV_MEM_SIZE },
	{ "mem_used_bytes", DRM_TERN_A_DEV_MEM_USED },
	{ "mem_host_used_bytes", DRM_TERN_A_DEV_MEM_HOST_USED },
	{ "buffers", DRM_TERN_A_DEV_BUFFER_COUNT },
	{ "engines", DRM_TERN_A_DEV_ENGINE_COUNT },
	{ "engines_busy", DRM_TERN_A_DEV_ENGINES_BUSY },
	{ "clients", DRM_TERN_A_DEV_CLIENT_COUNT },
	{ "jobs_completed", DRM_TERN_A_DEV_JOBS_COMPLETED },
	{ "jobs_failed", DRM_TERN_A_DEV_JOBS_FAILED },
	{ "job_timeouts", DRM_TERN_A_DEV_JOB_TIMEOUTS },
	{ "engine_resets", DRM_TERN_A_DEV_ENGINE_RESETS },
	{ "engine_hang_resets", DRM_TERN_A_DEV_ENGINE_HANG_RESETS },
	{ "mem_errors_corrected", DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED },
	{ "mem_errors_uncorrected", DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED },
};

static const char *const port_states[] = {
	[DRM_TERN_PORT_UNCONNECTED] = "unconnected",
	[DRM_TERN_PORT_UP] = "up",
	[DRM_TERN_PORT_DOWN] = "down",
};

static void assert_port_files(uint32_t d, uint32_t p,
			      const struct drm_tern_port_info *port)
{
	char file[64], state[32];

	snprintf(file, sizeof(file), "port%u_state", p);
	sysfs_string(d, file, state, sizeof(state));
	assert_string_equal(state, port_states[port->state]);
#define PORT_NUMBER(name, want) do { \
		snprintf(file, sizeof(file), "port%u_" name, p); \
		assert_int_equal(sysfs_number(d, file), (want)); \
	} while (0)
	PORT_NUMBER("peer_device", port->peer_fabric_id);
	PORT_NUMBER("peer_port", port->peer_port);
	PORT_NUMBER("tx_bytes", port->tx_bytes);
	PORT_NUMBER("rx_bytes", port->rx_bytes);
	PORT_NUMBER("tx_packets", port->tx_packets);
	PORT_NUMBER("rx_packets", port->rx_packets);
	PORT_NUMBER("errors", port->errors);
#undef PORT_NUMBER
}

static void test_sysfs_matches_netlink(void **state)
{
	struct ports ports;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	ports_read(&ports);
	for (uint32_t d = 0; d < fabric.devices; d++) {
		struct nl_reply dev;
		char health[32];

		netlink_device(sock, family, d, &dev);
		for (size_t i = 0; i < ARRAY_SIZE(device_files); i++) {
			uint64_t value = sysfs_number(d, device_files[i].file);

			if (value != dev.attr[device_files[i].attr])
				fail_msg("tern.%u/tern/%s is %llu, netlink says %llu",
					 d, device_files[i].file,
					 (unsigned long long)value,
					 (unsigned long long)dev.attr[device_files[i].attr]);
		}
		sysfs_string(d, "health", health, sizeof(health));
		assert_true(dev.attr[DRM_TERN_A_DEV_HEALTH] <= DRM_TERN_HEALTH_FAILED);
		assert_string_equal(health, health_names[dev.attr[DRM_TERN_A_DEV_HEALTH]]);
		for (uint32_t p = 0; p < RING_PORTS; p++)
			assert_port_files(d, p, &ports.port[d][p]);
		/* A port the device does not have has no files. */
		{
			char path[96];

			snprintf(path, sizeof(path),
				 "/sys/bus/platform/devices/tern.%u/tern/port%u_state",
				 d, RING_PORTS);
			assert_int_equal(access(path, F_OK), -1);
		}
	}
	nl_socket_free(sock);
}

/* From the node: /sys/class/{accel/accelN,drm/renderDN}/device/tern. */
static void test_sysfs_found_from_node(void **state)
{
	(void)state;
	for (uint32_t d = 0; d < fabric.devices; d++) {
		const char *node = strrchr(fabric.node[d], '/') + 1;
		char path[128], index[16];

		snprintf(path, sizeof(path), "/sys/class/%s/%s/device/tern/index",
			 strncmp(node, "accel", 5) ? "drm" : "accel", node);
		read_file(path, index, sizeof(index));
		assert_int_equal(strtoul(index, NULL, 10), d);
	}
}

static void test_sysfs_follows_buffers(void **state)
{
	uint32_t d = fabric.devices - 1;
	uint64_t buffers = sysfs_number(d, "buffers");
	uint64_t used = sysfs_number(d, "mem_used_bytes");
	uint64_t host_used = sysfs_number(d, "mem_host_used_bytes");
	struct uapi_bo device_bo, host_bo;

	(void)state;
	uapi_bo_create(fabric.fd[d], DRM_TERN_PLACEMENT_DEVICE, 40960, &device_bo);
	uapi_bo_create(fabric.fd[d], DRM_TERN_PLACEMENT_HOST, 20480, &host_bo);
	assert_int_equal(sysfs_number(d, "buffers"), buffers + 2);
	assert_int_equal(sysfs_number(d, "mem_used_bytes"), used + device_bo.size);
	assert_int_equal(sysfs_number(d, "mem_host_used_bytes"),
			 host_used + host_bo.size);
	uapi_bo_close(fabric.fd[d], &device_bo);
	uapi_bo_close(fabric.fd[d], &host_bo);
	assert_int_equal(sysfs_number(d, "buffers"), buffers);
	assert_int_equal(sysfs_number(d, "mem_used_bytes"), used);
	assert_int_equal(sysfs_number(d, "mem_host_used_bytes"), host_used);
}

int sysfs_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_matches_netlink),
		cmocka_unit_test(test_sysfs_found_from_node),
		cmocka_unit_test(test_sysfs_follows_buffers),
	};

	return cmocka_run_group_tests_name("fabric_sysfs", tests, NULL, NULL);
}
