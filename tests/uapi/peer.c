// SPDX-License-Identifier: MIT
/*
 * Peer memory: a buffer of one device exported as a dma-buf and imported
 * on its fabric neighbour (PRIME), reached by the neighbour's packets over
 * the link and counted on it. Device 0 is the importer ("near"), the
 * device on its port 0 the exporter ("far"). Needs two devices; skipped
 * with one.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "uapi.h"

#define PEER_BUFFER_BYTES	(64u * 1024)
/* Not a multiple of anything the driver might round to. */
#define PEER_COPY_BYTES		3000u

struct peer {
	int near, far;			/* files on the two devices */
	uint32_t far_id;		/* fabric id (== index) of far */
	uint64_t near_used, far_used;	/* device memory before the buffer */
	struct uapi_bo exported;	/* far's buffer, mapped on far */
	int dma_buf;			/* its dma-buf, or -1 once closed */
	uint32_t import;		/* handle on near, 0 once closed */
	uint64_t import_va;
	struct uapi_bo local;		/* near's own buffer */
	uint32_t queue;			/* on near */
};

static struct peer peer;

static int peer_setup(void **state)
{
	struct drm_tern_port_info port0;
	struct drm_tern_bo_info info;

	memset(&peer, 0, sizeof(peer));
	peer.near = peer.far = peer.dma_buf = -1;
	*state = NULL;
	if (uapi_device_count() < 2)
		return 0;	/* the test skips itself */

	peer.near = uapi_open_device(0);
	assert_true(peer.near >= 0);
	assert_true(uapi_topology(peer.near, &port0, 1) >= 1);
	assert_int_equal(port0.state, DRM_TERN_PORT_UP);
	peer.far_id = port0.peer_fabric_id;
	peer.far = uapi_open_device(peer.far_id);
	assert_true(peer.far >= 0);

	peer.near_used = uapi_get_info(peer.near).device_memory_used;
	peer.far_used = uapi_get_info(peer.far).device_memory_used;
	uapi_bo_create(peer.far, DRM_TERN_PLACEMENT_DEVICE, PEER_BUFFER_BYTES,
		       &peer.exported);
	assert_int_equal(drmPrimeHandleToFD(peer.far, peer.exported.handle,
					    DRM_CLOEXEC | DRM_RDWR, &peer.dma_buf), 0);
	assert_int_equal(drmPrimeFDToHandle(peer.near, peer.dma_buf,
					    &peer.import), 0);
	info = (struct drm_tern_bo_info){ .handle = peer.import };
	assert_ioctl_ok(uapi_ioctl(peer.near, DRM_IOCTL_TERN_BO_INFO, &info));
	peer.import_va = info.device_va;

	uapi_bo_create(peer.near, DRM_TERN_PLACEMENT_HOST, PEER_BUFFER_BYTES,
		       &peer.local);
	peer.queue = uapi_queue_create(peer.near, 0);
	*state = &peer;
	return 0;
}

static int peer_teardown(void **state)
{
	(void)state;
	if (peer.exported.cpu)
		munmap(peer.exported.cpu, peer.exported.size);
	if (peer.local.cpu)
		munmap(peer.local.cpu, peer.local.size);
	if (peer.dma_buf >= 0)
		close(peer.dma_buf);
	if (peer.near >= 0)
		close(peer.near);
	if (peer.far >= 0)
		close(peer.far);
	return 0;
}

#define NEED_PEER(state) \
	do { if (!*(state)) skip(); } while (0)

static void fill_pattern(uint8_t *bytes, size_t size, uint8_t seed)
{
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(seed + i * 7);
}

static int copy_on_near(uint64_t src, uint64_t dst, uint64_t bytes)
{
	struct uapi_stream s = { .size = 0 };

	uapi_emit_copy(&s, src, dst, bytes);
	return uapi_run(peer.near, peer.queue, &s);
}

static void close_import(void)
{
	struct drm_gem_close args = { .handle = peer.import };

	assert_ioctl_ok(uapi_ioctl(peer.near, DRM_IOCTL_GEM_CLOSE, &args));
	peer.import = 0;
}

/* ---- PRIME ---- */

static void test_prime_same_device_same_handle(void **state)
{
	struct uapi_bo bo;
	uint32_t handle = 0;
	int fd = -1;

	NEED_PEER(state);
	uapi_bo_create(peer.near, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	assert_int_equal(drmPrimeHandleToFD(peer.near, bo.handle, DRM_CLOEXEC,
					    &fd), 0);
	assert_int_equal(drmPrimeFDToHandle(peer.near, fd, &handle), 0);
	close(fd);
	assert_int_equal(handle, bo.handle);
	uapi_bo_close(peer.near, &bo);
}

static void test_peer_import_info_and_memory(void **state)
{
	struct drm_tern_bo_info info = { .handle = peer.import };

	NEED_PEER(state);
	assert_ioctl_ok(uapi_ioctl(peer.near, DRM_IOCTL_TERN_BO_INFO, &info));
	assert_true(info.device_va != 0);
	assert_int_equal(info.size, peer.exported.size);
	/* the memory is the exporter's: only its use grew */
	assert_int_equal(uapi_get_info(peer.near).device_memory_used,
			 peer.near_used);
	assert_int_equal(uapi_get_info(peer.far).device_memory_used,
			 peer.far_used + peer.exported.size);
}

static void assert_traffic_grew(struct uapi_traffic before,
				struct uapi_traffic after, uint64_t tx_bytes,
				uint64_t rx_bytes)
{
	assert_int_equal(after.tx_bytes - before.tx_bytes, tx_bytes);
	assert_int_equal(after.rx_bytes - before.rx_bytes, rx_bytes);
	assert_int_equal(after.tx_packets - before.tx_packets, tx_bytes ? 1 : 0);
	assert_int_equal(after.rx_packets - before.rx_packets, rx_bytes ? 1 : 0);
	assert_int_equal(after.errors, before.errors);
}

static void test_peer_write_counts_on_link(void **state)
{
	struct uapi_traffic near0, far0;

	NEED_PEER(state);
	fill_pattern(peer.local.cpu, PEER_COPY_BYTES, 1);
	memset(peer.exported.cpu, 0, peer.exported.size);
	near0 = uapi_traffic_toward(peer.near, peer.far_id);
	far0 = uapi_traffic_toward(peer.far, 0);

	assert_int_equal(copy_on_near(peer.local.va, peer.import_va,
				      PEER_COPY_BYTES), 1);
	assert_memory_equal(peer.exported.cpu, peer.local.cpu, PEER_COPY_BYTES);
	assert_int_equal(peer.exported.cpu[PEER_COPY_BYTES], 0);
	/* a write flows from the executing device to the owner */
	assert_traffic_grew(near0, uapi_traffic_toward(peer.near, peer.far_id),
			    PEER_COPY_BYTES, 0);
	assert_traffic_grew(far0, uapi_traffic_toward(peer.far, 0),
			    0, PEER_COPY_BYTES);
}

static void test_peer_read_counts_on_link(void **state)
{
	struct uapi_traffic near0, far0;

	NEED_PEER(state);
	fill_pattern(peer.exported.cpu, PEER_COPY_BYTES, 2);
	memset(peer.local.cpu, 0, peer.local.size);
	near0 = uapi_traffic_toward(peer.near, peer.far_id);
	far0 = uapi_traffic_toward(peer.far, 0);

	assert_int_equal(copy_on_near(peer.import_va, peer.local.va,
				      PEER_COPY_BYTES), 1);
	assert_memory_equal(peer.local.cpu, peer.exported.cpu, PEER_COPY_BYTES);
	/* a read flows from the owner to the executing device */
	assert_traffic_grew(near0, uapi_traffic_toward(peer.near, peer.far_id),
			    0, PEER_COPY_BYTES);
	assert_traffic_grew(far0, uapi_traffic_toward(peer.far, 0),
			    PEER_COPY_BYTES, 0);
}

static void test_peer_import_mmap(void **state)
{
	struct drm_tern_bo_info info = { .handle = peer.import };
	uint8_t *cpu;

	NEED_PEER(state);
	assert_ioctl_ok(uapi_ioctl(peer.near, DRM_IOCTL_TERN_BO_INFO, &info));
	cpu = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   peer.near, (off_t)info.mmap_offset);
	assert_true(cpu != MAP_FAILED);
	fill_pattern(peer.exported.cpu, peer.exported.size, 3);
	assert_memory_equal(cpu, peer.exported.cpu, peer.exported.size);
	/* and the other way */
	cpu[peer.exported.size - 1] ^= 0xff;
	assert_int_equal(peer.exported.cpu[peer.exported.size - 1],
			 cpu[peer.exported.size - 1]);
	munmap(cpu, info.size);
}

static void test_peer_import_outlives_exporter(void **state)
{
	struct drm_gem_close args = { .handle = peer.exported.handle };

	NEED_PEER(state);
	munmap(peer.exported.cpu, peer.exported.size);
	peer.exported.cpu = NULL;
	assert_ioctl_ok(uapi_ioctl(peer.far, DRM_IOCTL_GEM_CLOSE, &args));
	close(peer.dma_buf);
	peer.dma_buf = -1;

	fill_pattern(peer.local.cpu, PEER_COPY_BYTES, 4);
	assert_int_equal(copy_on_near(peer.local.va, peer.import_va,
				      PEER_COPY_BYTES), 1);
	memset(peer.local.cpu, 0, PEER_COPY_BYTES);
	assert_int_equal(copy_on_near(peer.import_va,
				      peer.local.va + PEER_COPY_BYTES,
				      PEER_COPY_BYTES), 1);
	fill_pattern(peer.local.cpu, PEER_COPY_BYTES, 4);
	assert_memory_equal(peer.local.cpu + PEER_COPY_BYTES, peer.local.cpu,
			    PEER_COPY_BYTES);
	assert_int_equal(uapi_get_info(peer.far).device_memory_used,
			 peer.far_used + peer.exported.size);

	/* the import held the last reference */
	close_import();
	assert_int_equal(uapi_get_info(peer.far).device_memory_used,
			 peer.far_used);
}

static void test_peer_closed_import_faults(void **state)
{
	NEED_PEER(state);
	close_import();
	assert_int_equal(copy_on_near(peer.local.va, peer.import_va,
				      PEER_COPY_BYTES), -EFAULT);
}

/*
 * A user ring lives in the device's own memory, and so do its fence
 * words: an import is refused as a ring's buffer (-EINVAL), and a fence
 * word in one stops the ring (-EFAULT) once the job has run.
 */
static void test_peer_import_not_for_rings(void **state)
{
	const uint32_t size = DRM_TERN_RING_MIN_SIZE;
	struct drm_tern_ring_create create = { .size = size };
	struct drm_tern_ring_kick kick = { 0 };
	struct drm_tern_ring_record rec = { 0 };
	struct drm_tern_ring_ctl *ctl;
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo far_ring, ring;
	uint32_t import;
	int fd;

	NEED_PEER(state);
	memset(peer.exported.cpu, 0, 8);
	uapi_bo_create(peer.far, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + size, &far_ring);
	assert_int_equal(drmPrimeHandleToFD(peer.far, far_ring.handle,
					    DRM_CLOEXEC | DRM_RDWR, &fd), 0);
	assert_int_equal(drmPrimeFDToHandle(peer.near, fd, &import), 0);
	close(fd);
	create.handle = import;
	assert_errno(uapi_ioctl(peer.near, DRM_IOCTL_TERN_RING_CREATE,
				&create), EINVAL);

	uapi_bo_create(peer.near, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + size, &ring);
	create.handle = ring.handle;
	assert_ioctl_ok(uapi_ioctl(peer.near, DRM_IOCTL_TERN_RING_CREATE,
				   &create));
	ctl = (struct drm_tern_ring_ctl *)ring.cpu;
	uapi_emit_fill(&s, peer.local.va, 8, 5);
	rec.size = s.size;
	rec.fence_va = peer.import_va;
	rec.fence_value = 0x10000;
	memcpy(ring.cpu + DRM_TERN_RING_DATA_OFFSET, &rec, sizeof(rec));
	memcpy(ring.cpu + DRM_TERN_RING_DATA_OFFSET + sizeof(rec), s.words, s.size);
	__atomic_store_n(&ctl->tail, sizeof(rec) + s.size, __ATOMIC_SEQ_CST);
	kick.ring_id = create.ring_id;
	for (int i = 0; i < 1000 && !__atomic_load_n(&ctl->error,
						     __ATOMIC_SEQ_CST); i++) {
		uapi_ioctl(peer.near, DRM_IOCTL_TERN_RING_KICK, &kick);
		usleep(1000);
	}
	assert_int_equal(ctl->error, -EFAULT);
	assert_int_equal(*(uint64_t *)peer.local.cpu, 0x0000000500000005ull);
	assert_int_equal(*(uint64_t *)peer.exported.cpu, 0);
	uapi_bo_close(peer.near, &ring);
	uapi_bo_close(peer.far, &far_ring);
}

#define T(f) cmocka_unit_test_setup_teardown(f, peer_setup, peer_teardown)

int uapi_peer_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_prime_same_device_same_handle),
		T(test_peer_import_info_and_memory),
		T(test_peer_write_counts_on_link),
		T(test_peer_read_counts_on_link),
		T(test_peer_import_mmap),
		T(test_peer_import_outlives_exporter),
		T(test_peer_closed_import_faults),
		T(test_peer_import_not_for_rings),
	};

	return cmocka_run_group_tests_name("uapi_peer", tests, NULL, NULL);
}
