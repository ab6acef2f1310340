// SPDX-License-Identifier: MIT
/*
 * What counts against a device's health, and clearing it.
 *
 * A job stalled on a semaphore that never passes times out and resets its
 * engine, but the engine was not hung: counted as a timeout and a reset,
 * no reason to be unhealthy. Root acknowledges the lasting reasons (link
 * errors, a reset after a hang, an uncorrectable memory error) through
 * sysfs tern/health_clear: they end, the counters stay, and only new
 * errors bring them back; a link down stays a reason while it is down.
 *
 * Runs after the fault tests, which left the last device failed and the
 * one before it reset after a hang; the stalled job runs on the device
 * before those, which no test makes unhealthy on a ring of eight.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "fabric.h"

#define EVENT_BOUND_MS		2000
#define NO_EVENT_BOUND_MS	200
/* The job timeout is job_timeout_ms, at most a few seconds in the VM. */
#define RESET_BOUND_MS		30000

#define LASTING_REASONS	(DRM_TERN_HEALTH_REASON_LINK_ERRORS | \
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET | \
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED)

static struct nl_sock *sock, *events;
static int family;

static int health_setup(void **state)
{
	(void)state;
	sock = netlink_open(&family);
	events = netlink_events_open();
	return 0;
}

static int health_teardown(void **state)
{
	(void)state;
	nl_socket_free(events);
	nl_socket_free(sock);
	return 0;
}

static void clear_path(uint32_t device, char *out, size_t size)
{
	snprintf(out, size, "/sys/bus/platform/devices/tern.%u/tern/health_clear",
		 device);
}

/* Writes @value to @device's health_clear: 0 or the write's errno. */
static int health_clear(uint32_t device, const char *value)
{
	char path[96];
	ssize_t written;
	int fd, err;

	clear_path(device, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("%s: %s", path, strerror(errno));
	written = write(fd, value, strlen(value));
	err = written < 0 ? errno : 0;
	close(fd);
	if (!err && written != (ssize_t)strlen(value))
		fail_msg("short write of \"%s\" to %s", value, path);
	return err;
}

/* Errors counted by the links on @device's ports. */
static uint64_t port_errors(uint32_t device)
{
	return sysfs_number(device, "port0_errors") +
	       sysfs_number(device, "port1_errors");
}

static void assert_counters_kept(const struct nl_reply *before,
				 const struct nl_reply *after)
{
	static const int counters[] = {
		DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
		DRM_TERN_A_DEV_JOBS_COMPLETED, DRM_TERN_A_DEV_JOBS_FAILED,
		DRM_TERN_A_DEV_JOB_TIMEOUTS, DRM_TERN_A_DEV_ENGINE_RESETS,
		DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
	};

	for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
		assert_int_equal(after->attr[counters[i]], before->attr[counters[i]]);
}

/* ---- a job stalled on its own semaphore ---- */

/*
 * File A's job waits on a semaphore no one signals: the job timeout fails
 * it with -ETIMEDOUT and resets the engine; B's job behind it runs. The
 * engine never stopped, so it is a timeout and a reset but no hang reset,
 * and the device's health does not change.
 */
static void test_stalled_job_times_out_health_kept(void **state)
{
	uint32_t d = fabric.devices - 3, engine = 0;
	struct uapi_stream stalled = { .size = 0 }, fill = { .size = 0 };
	struct nl_reply before, after, event;
	uint32_t queue, out_a, out_b;
	struct uapi_bo bo;
	uint64_t id;
	int fd;

	(void)state;
	netlink_device(sock, family, d, &before);
	assert_true(before.engines > engine);
	fd = netlink_open_client(sock, family, d, &id);
	queue = uapi_queue_create(fd, engine);
	out_a = uapi_syncobj_create(fd);
	out_b = uapi_syncobj_create(fd);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	/* the semaphore is the buffer's first word, 0; it waits for 1 */
	uapi_emit_sem(&stalled, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 1);
	uapi_emit_fill(&fill, bo.va + 8, 8, 0x5a5a5a5a);
	assert_ioctl_ok(uapi_submit(fd, queue, &stalled, out_a));
	assert_ioctl_ok(uapi_submit(fd, queue, &fill, out_b));
	assert_int_equal(uapi_fence_status(fd, out_a), -ETIMEDOUT);
	assert_int_equal(uapi_fence_status(fd, out_b), 1);
	assert_int_equal(bo.cpu[8], 0x5a);

	event = netlink_event_about(events, d, DRM_TERN_CMD_ENGINE_RESET_NTF,
				    RESET_BOUND_MS);
	netlink_assert_guilty(&event, id);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_INDEX], engine);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_RESETS],
			 before.engine[engine].attr[DRM_TERN_A_ENGINE_RESETS] + 1);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_HANG_RESETS],
			 before.engine[engine].attr[DRM_TERN_A_ENGINE_HANG_RESETS]);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 before.attr[DRM_TERN_A_DEV_HEALTH_REASONS]);
	netlink_assert_no_event(events, d, DRM_TERN_CMD_HEALTH_NTF, NO_EVENT_BOUND_MS);

	netlink_device(sock, family, d, &after);
#define MOVED(a) (after.attr[a] - before.attr[a])
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOB_TIMEOUTS), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_ENGINE_RESETS), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_ENGINE_HANG_RESETS), 0);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOBS_FAILED), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOBS_COMPLETED), 1);
#undef MOVED
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 before.attr[DRM_TERN_A_DEV_HEALTH_REASONS]);
	assert_false(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
		     DRM_TERN_HEALTH_REASON_ENGINE_RESET);
	/* on the ring of eight nothing else touches this device */
	if (fabric.devices >= 8) {
		assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
		assert_int_equal(sysfs_number(d, "health_reasons"), 0);
	}
	assert_int_equal(sysfs_number(d, "job_timeouts"),
			 after.attr[DRM_TERN_A_DEV_JOB_TIMEOUTS]);
	assert_int_equal(sysfs_number(d, "engine_hang_resets"),
			 after.attr[DRM_TERN_A_DEV_ENGINE_HANG_RESETS]);
	uapi_bo_close(fd, &bo);
	close(fd);
}

/* ---- health_clear ---- */

static void test_health_clear_bad_writes(void **state)
{
	uint32_t d = fabric.devices - 1;
	const char *const bad[] = {
		"0", "2", "11", "1 1", "yes", "true", "-1", "0x1", "\n", " 1x",
	};
	struct nl_reply before, after;

	(void)state;
	netlink_device(sock, family, d, &before);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = health_clear(d, bad[i]);

		if (err != EINVAL)
			fail_msg("writing \"%s\" gave %s, want EINVAL", bad[i],
				 err ? strerrorname_np(err) : "success");
	}
	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 before.attr[DRM_TERN_A_DEV_HEALTH_REASONS]);
	netlink_assert_no_event(events, d, DRM_TERN_CMD_HEALTH_NTF, NO_EVENT_BOUND_MS);
}

/* Write-only, for root alone: another user cannot open it to write. */
static void test_health_clear_root_only(void **state)
{
	uint32_t d = fabric.devices - 1;
	char path[96];
	struct stat st;
	pid_t child;
	int status;

	(void)state;
	clear_path(d, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0200);
	assert_int_equal(st.st_uid, 0);

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		_exit(fd < 0 ? errno : 0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), EACCES);
}

/*
 * The last device: failed by the fault tests' memory errors; a link error
 * on its port 0 too. Clearing ends both reasons and announces it; the
 * counters stay; a new error brings its reason back, alone.
 */
static void test_health_clear_ends_lasting_reasons(void **state)
{
	uint32_t d = fabric.devices - 1;
	struct nl_reply before, after, event;
	uint64_t errors;
	char health[32];

	(void)state;
	assert_int_equal(link_write(d, "0 error"), 0);
	netlink_device(sock, family, d, &before);
	assert_int_equal(before.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_FAILED);
	assert_int_equal(before.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED |
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS);
	errors = port_errors(d);
	assert_true(errors > 0);
	/* drain what the error announced */
	while (netlink_next(events, NO_EVENT_BOUND_MS, &event))
		;

	assert_int_equal(health_clear(d, "1\n"), 0);
	event = netlink_event_about(events, d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);

	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
	assert_counters_kept(&before, &after);
	assert_int_equal(port_errors(d), errors);
	sysfs_string(d, "health", health, sizeof(health));
	assert_string_equal(health, "ok");
	assert_int_equal(sysfs_number(d, "health_reasons"), 0);

	/* nothing new to clear: no event */
	assert_int_equal(health_clear(d, "1"), 0);
	netlink_assert_no_event(events, d, DRM_TERN_CMD_HEALTH_NTF, NO_EVENT_BOUND_MS);

	/* an error after the clear counts again, and only that one */
	assert_int_equal(debugfs_write(d, "mem_error", "uncorrectable"), 0);
	event = netlink_event_about(events, d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_FAILED);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED);
	assert_int_equal(health_clear(d, "1"), 0);
	event = netlink_event_about(events, d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
}

/* The device before the last: reset after the fault tests' hang. */
static void test_health_clear_ends_engine_reset(void **state)
{
	uint32_t d = fabric.devices - 2;
	struct nl_reply before, after, event;

	(void)state;
	netlink_device(sock, family, d, &before);
	assert_int_equal(before.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET);
	assert_true(before.attr[DRM_TERN_A_DEV_ENGINE_HANG_RESETS] > 0);

	assert_int_equal(health_clear(d, "1"), 0);
	event = netlink_event_about(events, d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_counters_kept(&before, &after);
	assert_int_equal(sysfs_number(d, "engine_resets"),
			 before.attr[DRM_TERN_A_DEV_ENGINE_RESETS]);
}

/*
 * Device 0 with its port 0 link down and errors on it: a clear ends the
 * errors' reason, not the link's; bringing it up makes the device ok.
 */
static void test_health_clear_keeps_link_down(void **state)
{
	struct nl_reply before, after, event;

	(void)state;
	assert_int_equal(link_write(0, "0 error"), 0);
	assert_int_equal(link_write(0, "0 down"), 0);
	netlink_device(sock, family, 0, &before);
	assert_true(before.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
		    DRM_TERN_HEALTH_REASON_LINK_DOWN);
	assert_true(before.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
		    DRM_TERN_HEALTH_REASON_LINK_ERRORS);
	while (netlink_next(events, NO_EVENT_BOUND_MS, &event))
		;

	assert_int_equal(health_clear(0, "1"), 0);
	event = netlink_event_about(events, 0, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_DEGRADED);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_LINK_DOWN);
	netlink_device(sock, family, 0, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_LINK_DOWN);
	assert_false(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS] & LASTING_REASONS);
	assert_counters_kept(&before, &after);

	assert_int_equal(link_write(0, "0 up"), 0);
	event = netlink_event_about(events, 0, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
}

int health_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stalled_job_times_out_health_kept),
		cmocka_unit_test(test_health_clear_bad_writes),
		cmocka_unit_test(test_health_clear_root_only),
		cmocka_unit_test(test_health_clear_ends_lasting_reasons),
		cmocka_unit_test(test_health_clear_ends_engine_reset),
		cmocka_unit_test(test_health_clear_keeps_link_down),
	};

	return cmocka_run_group_tests_name("fabric_health", tests, health_setup,
					   health_teardown);
}
