// SPDX-License-Identifier: MIT
/*
 * tern.ko's module parameters out of range: the load fails with EINVAL,
 * says which parameter in the kernel log, and leaves nothing loaded; and
 * at the ends of their ranges, the module loads: with the most engines,
 * netlink reports them all. The module file is the one the VM loaded
 * (TERN_VM_MODULE, from tests/vm/guest.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test.h"
#include "unload.h"

/* finit_module(@params): 0 or its errno. */
static int load_tern(const char *params)
{
	const char *path = getenv("TERN_VM_MODULE");
	int fd, err = 0;

	assert_non_null(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	if (syscall(__NR_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

static void test_bad_parameters_fail_the_load(void **state)
{
	static const char *const bad[] = {
		"mock_devices=65",
		"mock_mem_mb=0",
		"mock_mem_mb=65537",
		"mock_engines=0",
		"mock_engines=17",
		"job_timeout_ms=0",
		"job_timeout_ms=600001",
		"queue_ban_timeouts=0",
		"queue_ban_timeouts=1001",
		"ring_mem_kb=259",
		"ring_mem_kb=4194305",
		"mock_cores=65",
		"mock_sbuf_kb=0",
		"mock_sbuf_kb=1025",
		"mock_psum_kb=0",
		"mock_psum_kb=3",
		"mock_psum_kb=1025",
		"mock_psum_kb=1026",
		"mock_devices=4 mock_topology=torus:3x3",
		"mock_devices=4 mock_topology=nonsense",
	};

	(void)state;
	if (!getenv("TERN_VM_MODULE")) {
		print_message("TERN_VM_MODULE unset: run in the test VM\n");
		skip();
	}
	/* The fence test unloaded it. */
	assert_int_equal(access("/sys/module/tern", F_OK), -1);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = load_tern(bad[i]);

		if (err != EINVAL)
			fail_msg("tern.ko %s: errno %d, want EINVAL", bad[i], err);
		assert_int_equal(access("/sys/module/tern", F_OK), -1);
	}
	/* In range at both ends, it loads and unloads. */
	assert_int_equal(load_tern("mock_devices=1 mock_engines=16 queue_ban_timeouts=1000"),
			 0);
	assert_int_equal(unload_tern(), 0);
	assert_int_equal(load_tern("mock_devices=1 mock_cores=64 mock_sbuf_kb=1024 mock_psum_kb=1024"),
			 0);
	assert_int_equal(unload_tern(), 0);
	assert_int_equal(load_tern("mock_devices=1 mock_cores=1 mock_sbuf_kb=1 mock_psum_kb=2"),
			 0);
	assert_int_equal(unload_tern(), 0);
}

/*
 * The most engines a device may have, 16 DMA engines and 64 cores of 3:
 * sysfs counts them, and netlink reports the device whole, each engine in
 * its message (which outgrows the dump's usual buffer: the device was
 * once left out of the dump).
 */
static void test_most_engines(void **state)
{
	const uint32_t want = 16 + 64 * 3;
	uint32_t engines[1] = { 0 };
	long long sysfs;
	FILE *f;

	(void)state;
	if (!getenv("TERN_VM_MODULE")) {
		print_message("TERN_VM_MODULE unset: run in the test VM\n");
		skip();
	}
	assert_int_equal(load_tern("mock_devices=1 mock_engines=16 mock_cores=64 mock_sbuf_kb=1 mock_psum_kb=2"),
			 0);
	f = fopen("/sys/bus/platform/devices/tern.0/tern/engines", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lld", &sysfs), 1);
	fclose(f);
	assert_int_equal(sysfs, want);
	assert_int_equal(unload_netlink_engines(engines, 1), 1);
	assert_int_equal(engines[0], want);
	assert_int_equal(unload_tern(), 0);
}

int unload_param_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_parameters_fail_the_load),
		cmocka_unit_test(test_most_engines),
	};

	return cmocka_run_group_tests_name("module_params", tests, NULL, NULL);
}
