// SPDX-License-Identifier: MIT
/*
 * A job's fence, exported as a sync_file and kept open while its device
 * file closes and tern.ko is unloaded: the fence keeps the module loaded
 * ("in use") until the sync_file closes, and stays readable meanwhile.
 * The old driver let the module go, and SYNC_IOC_FILE_INFO then copied
 * freed memory to userspace.
 *
 * Part of test_unload (tests/unload/main.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/sync_file.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "../uapi/uapi.h"
#include "unload.h"

/* How long the last fence's RCU-deferred free may take; a bound only. */
#define UNLOAD_BOUND_S	30

int unload_tern(void)
{
	return syscall(__NR_delete_module, "tern", O_NONBLOCK) ? errno : 0;
}

static int open_tern_node(void)
{
	glob_t g;
	int fd = -1;

	if (glob("/dev/accel/accel*", 0, NULL, &g) &&
	    glob("/dev/dri/renderD*", 0, NULL, &g))
		return -1;
	for (size_t i = 0; i < g.gl_pathc && fd < 0; i++) {
		drmVersionPtr version;

		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		version = drmGetVersion(fd);
		if (!version || strcmp(version->name, "tern")) {
			close(fd);
			fd = -1;
		}
		drmFreeVersion(version);
		if (fd >= 0)
			snprintf(uapi.node, sizeof(uapi.node), "%s", g.gl_pathv[i]);
	}
	globfree(&g);
	return fd;
}

static void test_sync_file_outlives_unload(void **state)
{
	struct uapi_stream s = { .size = 0 };
	struct sync_fence_info fence_info;
	struct sync_file_info info;
	char timeline[32];
	int fd = open_tern_node(), sync_fd = -1, err = 0;
	uint32_t queue, out;

	(void)state;
	if (fd < 0) {
		print_message("no Tern node: load tern.ko\n");
		skip();
	}
	uapi.fd = fd;
	uapi.info = uapi_get_info(fd);
	queue = uapi_queue_create(fd, 0);
	out = uapi_syncobj_create(fd);
	uapi_emit_nop(&s, 1);
	assert_ioctl_ok(uapi_submit(fd, queue, &s, out));
	assert_int_equal(uapi_fence_status(fd, out), 1);
	assert_int_equal(drmSyncobjExportSyncFile(fd, out, &sync_fd), 0);
	close(fd);

	/* Only the sync_file is left: it keeps the module. */
	assert_int_equal(unload_tern(), EWOULDBLOCK);
	memset(&info, 0, sizeof(info));
	memset(&fence_info, 0, sizeof(fence_info));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fence_info;
	assert_int_equal(ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info), 0);
	assert_int_equal(info.status, 1);
	assert_string_equal(fence_info.driver_name, "tern");
	snprintf(timeline, sizeof(timeline), "tern%u-e0",
		 uapi.info.device_index);
	assert_string_equal(fence_info.obj_name, timeline);
	close(sync_fd);

	for (int i = 0; i < UNLOAD_BOUND_S * 10; i++) {
		err = unload_tern();
		if (err != EWOULDBLOCK)
			break;
		usleep(100000);
	}
	assert_int_equal(err, 0);
}

int unload_fence_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_file_outlives_unload),
	};

	return cmocka_run_group_tests_name("fence_unload", tests, NULL, NULL);
}
