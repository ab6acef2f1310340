// SPDX-License-Identifier: MIT
/*
 * What the fabric tests share: the devices and their fabric_link files,
 * the buffers of each test, link commands, counters, copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "fabric.h"

struct fabric fabric;
struct fixture fx;

/*
 * The device's DRM debugfs directory: dri/<render minor> on 6.1,
 * accel/<bus name> (tern.<index>) where the node is an accel node.
 */
static int link_file_of(uint32_t device)
{
	char fd_link[64];
	ssize_t len;
	unsigned int minor;

	snprintf(fd_link, sizeof(fd_link), "/proc/self/fd/%d", fabric.fd[device]);
	len = readlink(fd_link, fabric.node[device], sizeof(fabric.node[device]) - 1);
	if (len <= 0)
		return -1;
	fabric.node[device][len] = '\0';
	if (sscanf(fabric.node[device], "/dev/dri/renderD%u", &minor) == 1)
		snprintf(fabric.link_file[device], sizeof(fabric.link_file[device]),
			 "/sys/kernel/debug/dri/%u/fabric_link", minor);
	else
		snprintf(fabric.link_file[device], sizeof(fabric.link_file[device]),
			 "/sys/kernel/debug/accel/tern.%u/fabric_link", device);
	return 0;
}

/* Ports of @device; 0 unless it is on a ring of fabric.devices. */
static int on_ring(uint32_t device)
{
	struct drm_tern_port_info ports[RING_PORTS + 1];
	struct drm_tern_topology args = {
		.port_count = RING_PORTS + 1,
		.ports = (uintptr_t)ports,
	};
	uint32_t n = fabric.devices;

	if (drmIoctl(fabric.fd[device], DRM_IOCTL_TERN_TOPOLOGY, &args) ||
	    args.fabric_id != device || args.port_count != RING_PORTS)
		return 0;
	return ports[RING_NEXT].peer_fabric_id == (device + 1) % n &&
	       ports[RING_NEXT].peer_port == RING_PREV &&
	       ports[RING_PREV].peer_fabric_id == (device + n - 1) % n &&
	       ports[RING_PREV].peer_port == RING_NEXT;
}

const char *fabric_open(void)
{
	if (geteuid() != 0)
		return "needs root (debugfs)";
	fabric.devices = uapi_device_count();
	if (fabric.devices < 3 || fabric.devices > FABRIC_MAX_DEVICES)
		return "needs 3 or more Tern devices";
	for (uint32_t d = 0; d < fabric.devices; d++) {
		fabric.fd[d] = uapi_open_device(d);
		if (fabric.fd[d] < 0)
			return "device indexes are not 0..N-1";
		if (!on_ring(d))
			return "the devices are not a ring (mock_topology=ring)";
		if (link_file_of(d) || access(fabric.link_file[d], W_OK))
			return "no fabric_link file in debugfs";
	}
	/* uapi.h's helpers read the node of the first device */
	snprintf(uapi.node, sizeof(uapi.node), "%s", fabric.node[0]);
	uapi.info = uapi_get_info(fabric.fd[0]);
	uapi.page_size = sysconf(_SC_PAGESIZE);
	return NULL;
}

int link_write(uint32_t device, const char *command)
{
	int fd = open(fabric.link_file[device], O_WRONLY | O_CLOEXEC);
	ssize_t written;
	int err;

	if (fd < 0)
		fail_msg("%s: %s", fabric.link_file[device], strerror(errno));
	written = write(fd, command, strlen(command));
	err = written < 0 ? errno : 0;
	close(fd);
	if (!err && written != (ssize_t)strlen(command))
		fail_msg("short write of \"%s\"", command);
	return err;
}

void links_all_up(void)
{
	for (uint32_t d = 0; d < fabric.devices; d++) {
		assert_int_equal(link_write(d, "0 up"), 0);
		assert_int_equal(link_write(d, "1 up"), 0);
	}
}

void ports_read(struct ports *ports)
{
	for (uint32_t d = 0; d < fabric.devices; d++)
		assert_int_equal(uapi_topology(fabric.fd[d], ports->port[d],
					       RING_PORTS), RING_PORTS);
}

int fixture_setup(void **state)
{
	struct drm_tern_bo_info info;
	int dma_buf = -1;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	fx.queue = uapi_queue_create(fabric.fd[0], 0);
	uapi_bo_create(fabric.fd[0], DRM_TERN_PLACEMENT_DEVICE, 64 * 1024, &fx.local);
	uapi_bo_create(fabric.fd[1], DRM_TERN_PLACEMENT_DEVICE, 64 * 1024, &fx.remote);
	assert_int_equal(drmPrimeHandleToFD(fabric.fd[1], fx.remote.handle,
					    DRM_CLOEXEC | DRM_RDWR, &dma_buf), 0);
	assert_int_equal(drmPrimeFDToHandle(fabric.fd[0], dma_buf, &fx.import), 0);
	close(dma_buf);
	info = (struct drm_tern_bo_info){ .handle = fx.import };
	assert_ioctl_ok(uapi_ioctl(fabric.fd[0], DRM_IOCTL_TERN_BO_INFO, &info));
	fx.import_va = info.device_va;
	return 0;
}

int fixture_teardown(void **state)
{
	struct drm_gem_close close_import = { .handle = fx.import };
	struct drm_tern_queue_destroy destroy = { .queue_id = fx.queue };

	(void)state;
	links_all_up();
	if (fx.import)
		uapi_ioctl(fabric.fd[0], DRM_IOCTL_GEM_CLOSE, &close_import);
	if (fx.local.cpu)
		uapi_bo_close(fabric.fd[0], &fx.local);
	if (fx.remote.cpu)
		uapi_bo_close(fabric.fd[1], &fx.remote);
	if (fx.queue)
		uapi_ioctl(fabric.fd[0], DRM_IOCTL_TERN_QUEUE_DESTROY, &destroy);
	memset(&fx, 0, sizeof(fx));
	return 0;
}

int copy_on_device0(uint64_t src, uint64_t dst, uint64_t bytes)
{
	struct uapi_stream s = { .size = 0 };

	uapi_emit_copy(&s, src, dst, bytes);
	return uapi_run(fabric.fd[0], fx.queue, &s);
}

static void pattern(uint8_t *bytes, uint8_t seed)
{
	for (uint32_t i = 0; i < FABRIC_COPY_BYTES; i++)
		bytes[i] = (uint8_t)(seed + i * 13);
}

int copy_to_device1(uint8_t seed)
{
	pattern(fx.local.cpu, seed);
	memset(fx.remote.cpu, 0, FABRIC_COPY_BYTES);
	return copy_on_device0(fx.local.va, fx.import_va, FABRIC_COPY_BYTES);
}

void assert_device1_got(uint8_t seed)
{
	uint8_t want[FABRIC_COPY_BYTES];

	pattern(want, seed);
	assert_memory_equal(fx.remote.cpu, want, FABRIC_COPY_BYTES);
}
