// SPDX-License-Identifier: MIT
/*
 * Hot unplug of a mock device with a process still holding it: the tern
 * platform driver is unbound from tern.N while the file is open, a job
 * waits on a semaphore that never passes and buffers are mapped. Its
 * ioctls must then fail with ENODEV, the job end with -ENODEV, the
 * mappings keep working (host memory as it was, device memory a zeroed
 * page of each mapping's own) and, the file closed, binding the driver again must bring the
 * device back as new. The VM's harness then unloads tern.ko and fails on
 * any kernel warning.
 *
 * Needs root and tern.ko with two or more mock devices; unplugs the last
 * one. Run it after the suites that use every device (tests/vm-suite.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "../uapi/uapi.h"

#define DRIVER_DIR	"/sys/bus/platform/drivers/tern"
/* How long a job of an unplugged device may take to end: a bound only. */
#define END_BOUND_MS	30000

static uint32_t victim;		/* index of the device unplugged */

static int write_sysfs(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -errno;
	close(fd);
	return ret;
}

/* Binds (@bind) or unbinds the tern driver and device tern.<victim>. */
static int set_bound(int bind)
{
	char name[32];

	snprintf(name, sizeof(name), "tern.%u", victim);
	return write_sysfs(bind ? DRIVER_DIR "/bind" : DRIVER_DIR "/unbind",
			   name);
}

static int is_bound(void)
{
	char path[96];

	snprintf(path, sizeof(path), DRIVER_DIR "/tern.%u", victim);
	return access(path, F_OK) == 0;
}

static int group_setup(void **state)
{
	int fd;

	(void)state;
	uapi.page_size = sysconf(_SC_PAGESIZE);
	if (access(DRIVER_DIR, F_OK) || uapi_device_count() < 2) {
		print_message("needs tern.ko bound to two or more mock devices\n");
		return -1;
	}
	victim = uapi_device_count() - 1;
	fd = uapi_open_device(victim);
	if (fd < 0)
		return -1;
	uapi.info = uapi_get_info(fd);
	close(fd);
	return 0;
}

/* The status of @sync_fd's fence, waiting at most END_BOUND_MS for it. */
static int sync_file_status(int sync_fd)
{
	struct pollfd p = { .fd = sync_fd, .events = POLLIN };
	struct sync_file_info info = { 0 };

	if (poll(&p, 1, END_BOUND_MS) != 1)
		fail_msg("the job of the unplugged device did not end");
	assert_int_equal(ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info), 0);
	return info.status;
}

static void test_unplug_with_file_open(void **state)
{
	struct uapi_stream stall = { .size = 0 }, nop = { .size = 0 };
	struct uapi_bo host, dev;
	uint32_t queue, out;
	int fd, sync_fd = -1, dmabuf = -1;

	(void)state;
	fd = uapi_open_device(victim);
	assert_true(fd >= 0);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 4096, &host);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &dev);
	memset(host.cpu, 0x5a, 4096);
	memset(dev.cpu, 0xa5, 4096);
	assert_int_equal(drmPrimeHandleToFD(fd, dev.handle,
					    DRM_CLOEXEC | DRM_RDWR, &dmabuf),
			 0);
	queue = uapi_queue_create(fd, 0);
	out = uapi_syncobj_create(fd);
	uapi_emit_sem(&stall, DRM_TERN_OP_SEM_WAIT, 0, host.va + 64, UINT64_MAX);
	assert_ioctl_ok(uapi_submit(fd, queue, &stall, out));
	assert_int_equal(drmSyncobjExportSyncFile(fd, out, &sync_fd), 0);

	assert_int_equal(set_bound(0), 0);
	assert_false(is_bound());

	/* Every ioctl of the file now fails, DRM's own as well as Tern's. */
	uapi_emit_nop(&nop, 1);
	assert_errno(uapi_submit(fd, queue, &nop, 0), ENODEV);
	{
		struct drm_tern_info info = { 0 };

		assert_errno(uapi_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, &info),
			     ENODEV);
	}
	/* The job waited on a semaphore: it ends, with the unplug's error. */
	assert_int_equal(sync_file_status(sync_fd), -ENODEV);
	close(sync_fd);

	/* Host memory is as it was; the device's memory is gone. */
	assert_int_equal(host.cpu[100], 0x5a);
	assert_int_equal(dev.cpu[100], 0);
	dev.cpu[100] = 1;	/* lost, but no crash */
	/* No new mapping of the memory that went: each would hold a page. */
	errno = 0;
	assert_true(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			 dmabuf, 0) == MAP_FAILED);
	assert_int_equal(errno, ENODEV);
	close(dmabuf);
	munmap(host.cpu, host.size);
	munmap(dev.cpu, dev.size);
	close(fd);

	/* Bound again, it is a new device: memory free, jobs run. */
	assert_int_equal(set_bound(1), 0);
	assert_true(is_bound());
	fd = uapi_open_device(victim);
	assert_true(fd >= 0);
	assert_int_equal(uapi_get_info(fd).device_memory_used, 0);
	queue = uapi_queue_create(fd, 0);
	assert_int_equal(uapi_run(fd, queue, &nop), 1);
	close(fd);
}

/*
 * Two processes, each with its own file and device buffer mapped, the
 * device unplugged: what one writes through its mapping the other never
 * reads through its own, which reads zeros. The driver that gave every
 * mapping of every process one dummy page let them pass data this way.
 */
static void test_unplug_mappings_not_shared(void **state)
{
	int to_child[2], to_parent[2], fd, status, seen = 0, other = 0;
	struct uapi_bo mine;
	char byte = 0;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		struct uapi_bo theirs;
		int cfd = uapi_open_device(victim), bad = 0;

		if (cfd < 0)
			_exit(2);
		uapi_bo_create(cfd, DRM_TERN_PLACEMENT_DEVICE, 4096, &theirs);
		memset(theirs.cpu, 0x11, 4096);
		/* mapped: the parent may unplug */
		if (write(to_parent[1], &byte, 1) != 1 ||
		    read(to_child[0], &byte, 1) != 1)
			_exit(2);
		/* unplugged: a pattern the parent must not see */
		for (int i = 0; i < 4096; i++)
			if (theirs.cpu[i])
				bad = 1;
		memset(theirs.cpu, 0x77, 4096);
		if (write(to_parent[1], &byte, 1) != 1 ||
		    read(to_child[0], &byte, 1) != 1)
			_exit(2);
		munmap(theirs.cpu, theirs.size);
		close(cfd);
		_exit(bad ? 3 : 0);
	}
	fd = uapi_open_device(victim);
	assert_true(fd >= 0);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &mine);
	memset(mine.cpu, 0x22, 4096);
	assert_int_equal(read(to_parent[0], &byte, 1), 1);
	assert_int_equal(set_bound(0), 0);
	/* both map their buffers again after the unplug: the child first */
	assert_int_equal(write(to_child[1], &byte, 1), 1);
	assert_int_equal(read(to_parent[0], &byte, 1), 1);
	for (int i = 0; i < 4096; i++) {
		if (mine.cpu[i] == 0x77)
			seen++;
		else if (mine.cpu[i])
			other++;
	}
	mine.cpu[0] = 0x33;
	/* the child ends, and the device comes back, whatever was seen */
	assert_int_equal(write(to_child[1], &byte, 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	munmap(mine.cpu, mine.size);
	close(fd);
	assert_int_equal(set_bound(1), 0);
	assert_true(is_bound());
	if (seen)
		fail_msg("%d of 4096 bytes of the other process's write show "
			 "through this one's mapping", seen);
	assert_int_equal(other, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Unbinding twice, binding a bound device or naming one that is not there
 * says so, and changes nothing.
 */
static void test_unplug_errors(void **state)
{
	(void)state;
	assert_true(is_bound());
	assert_int_equal(write_sysfs(DRIVER_DIR "/bind", "tern.999"), -ENODEV);
	assert_int_equal(write_sysfs(DRIVER_DIR "/unbind", "nonsense"), -ENODEV);
	assert_true(is_bound());
	assert_int_equal(set_bound(1), -EBUSY);
	assert_int_equal(set_bound(0), 0);
	assert_int_equal(set_bound(0), -ENODEV);
	assert_int_equal(set_bound(1), 0);
	assert_true(is_bound());
}

/*
 * Unplug after unplug, each with a file open and jobs in flight: nothing
 * piles up. The harness's rmmod and kernel-log check see any leak.
 */
static void test_unplug_repeated(void **state)
{
	(void)state;
	for (int round = 0; round < 5; round++) {
		struct uapi_stream s = { .size = 0 };
		struct uapi_bo bo;
		int fd = uapi_open_device(victim);
		uint32_t queue;

		assert_true(fd >= 0);
		uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 1 << 20, &bo);
		queue = uapi_queue_create(fd, 0);
		uapi_emit_fill(&s, bo.va, bo.size, 0x01010101);
		uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, UINT64_MAX);
		for (int i = 0; i < 8; i++)
			assert_ioctl_ok(uapi_submit(fd, queue, &s, 0));
		assert_int_equal(set_bound(0), 0);
		munmap(bo.cpu, bo.size);
		close(fd);
		assert_int_equal(set_bound(1), 0);
	}
	assert_true(is_bound());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unplug_with_file_open),
		cmocka_unit_test(test_unplug_mappings_not_shared),
		cmocka_unit_test(test_unplug_errors),
		cmocka_unit_test(test_unplug_repeated),
	};

	return cmocka_run_group_tests_name("unplug", tests, group_setup, NULL);
}
