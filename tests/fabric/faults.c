// SPDX-License-Identifier: MIT
/*
 * Fault injection on devices and engines through debugfs (mem_error,
 * engine_hang) and what it does: counters, health, events.
 *
 * Health only recovers when cleared (health.c, after these), so each
 * group works on a device no other test makes unhealthy: memory errors on
 * the last device, the engine hang on the one before it. These run after
 * every test that expects those devices healthy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "fabric.h"

/* Generous: events are queued before the write returns. */
#define EVENT_BOUND_MS		2000
#define NO_EVENT_BOUND_MS	200
/* The job timeout is job_timeout_ms, at most a few seconds in the VM. */
#define RESET_BOUND_MS		30000

static struct nl_sock *sock, *events;
static int family;

static int faults_setup(void **state)
{
	(void)state;
	sock = netlink_open(&family);
	events = netlink_events_open();
	return 0;
}

static int faults_teardown(void **state)
{
	(void)state;
	nl_socket_free(events);
	nl_socket_free(sock);
	return 0;
}

static void debugfs_path(uint32_t device, const char *file, char *out,
			 size_t size)
{
	const char *dir = fabric.link_file[device];

	/* fabric_link's directory */
	snprintf(out, size, "%.*s%s", (int)(strrchr(dir, '/') + 1 - dir), dir,
		 file);
}

int debugfs_write(uint32_t device, const char *file, const char *command)
{
	char path[128];
	ssize_t written;
	int fd, err;

	debugfs_path(device, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("%s: %s", path, strerror(errno));
	written = write(fd, command, strlen(command));
	err = written < 0 ? errno : 0;
	close(fd);
	if (!err && written != (ssize_t)strlen(command))
		fail_msg("short write of \"%s\" to %s", command, path);
	return err;
}

static void debugfs_read(uint32_t device, const char *file, char *out,
			 size_t size)
{
	char path[128];
	ssize_t len;
	int fd;

	debugfs_path(device, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("%s: %s", path, strerror(errno));
	len = read(fd, out, size - 1);
	close(fd);
	assert_true(len >= 0);
	out[len] = '\0';
}

static struct nl_reply event_about(uint32_t device, uint8_t cmd, int bound_ms)
{
	return netlink_event_about(events, device, cmd, bound_ms);
}

static void assert_no_event_about(uint32_t device, uint8_t cmd)
{
	netlink_assert_no_event(events, device, cmd, NO_EVENT_BOUND_MS);
}

/* ---- memory errors, on the last device ---- */

static void test_mem_error_correctable(void **state)
{
	uint32_t d = fabric.devices - 1;
	struct nl_reply before, after, event;

	(void)state;
	netlink_device(sock, family, d, &before);
	assert_int_equal(debugfs_write(d, "mem_error", "correctable 4096\n"), 0);
	event = event_about(d, DRM_TERN_CMD_MEM_ERROR_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERROR_KIND], DRM_TERN_MEM_ERROR_CORRECTED);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERROR_ADDR], 4096);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED] + 1);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED]);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], before.attr[DRM_TERN_A_DEV_HEALTH]);

	/* counted, but no reason to be unhealthy */
	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED] + 1);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
	assert_int_equal(sysfs_number(d, "mem_errors_corrected"),
			 after.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED]);
	assert_no_event_about(d, DRM_TERN_CMD_HEALTH_NTF);
}

static void test_mem_error_uncorrectable_fails_device(void **state)
{
	uint32_t d = fabric.devices - 1;
	struct nl_reply before, after, event;
	char health[32];

	(void)state;
	netlink_device(sock, family, d, &before);
	/* the offset is optional; hex is fine */
	assert_int_equal(debugfs_write(d, "mem_error", "uncorrectable 0x2000"), 0);
	event = event_about(d, DRM_TERN_CMD_MEM_ERROR_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERROR_KIND],
			 DRM_TERN_MEM_ERROR_UNCORRECTED);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERROR_ADDR], 0x2000);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED] + 1);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_FAILED);

	event = event_about(d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_FAILED);
	assert_true(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
		    DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED);

	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_FAILED);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED);
	sysfs_string(d, "health", health, sizeof(health));
	assert_string_equal(health, "failed");
	assert_int_equal(sysfs_number(d, "health_reasons"),
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED);

	/* another one changes no health: no health event */
	assert_int_equal(debugfs_write(d, "mem_error", "uncorrectable"), 0);
	event = event_about(d, DRM_TERN_CMD_MEM_ERROR_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_MEM_ERROR_ADDR], 0);
	assert_no_event_about(d, DRM_TERN_CMD_HEALTH_NTF);
}

static void test_mem_error_bad_writes(void **state)
{
	uint32_t d = fabric.devices - 1;
	char too_far[64];
	struct nl_reply before, after;

	(void)state;
	netlink_device(sock, family, d, &before);
	snprintf(too_far, sizeof(too_far), "correctable %llu",
		 (unsigned long long)before.attr[DRM_TERN_A_DEV_MEM_SIZE]);
	const char *const bad[] = {
		"", "\n", "sideways", "correctable -1", "correctable 12abc",
		"uncorrectable 1 2", too_far, "Correctable",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = debugfs_write(d, "mem_error", bad[i]);

		if (err != EINVAL)
			fail_msg("writing \"%s\" gave %s, want EINVAL", bad[i],
				 err ? strerrorname_np(err) : "success");
	}
	netlink_device(sock, family, d, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED]);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED],
			 before.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED]);
	assert_no_event_about(d, DRM_TERN_CMD_MEM_ERROR_NTF);
}

/* ---- an engine hang, on the device before the last ---- */

static void test_engine_hang_bad_writes(void **state)
{
	uint32_t d = fabric.devices - 2;
	char count[16], hung[64];
	const char *const bad[] = { count, "x", "-1", "", "1 2" };

	(void)state;
	snprintf(count, sizeof(count), "%u", uapi_get_info(fabric.fd[d]).engine_count);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = debugfs_write(d, "engine_hang", bad[i]);

		if (err != EINVAL)
			fail_msg("writing \"%s\" gave %s, want EINVAL", bad[i],
				 err ? strerrorname_np(err) : "success");
	}
	debugfs_read(d, "engine_hang", hung, sizeof(hung));
	assert_string_equal(hung, "");
}

/* A file's job on @engine of @device, on a queue of its own. */
struct hang_job {
	int fd;
	uint64_t client_id;
	uint32_t queue, out;
	struct uapi_bo bo;
};

static void hang_job_submit(struct hang_job *job, uint32_t device,
			    uint32_t engine, uint32_t pattern)
{
	struct uapi_stream s = { .size = 0 };

	job->fd = netlink_open_client(sock, family, device, &job->client_id);
	job->queue = uapi_queue_create(job->fd, engine);
	job->out = uapi_syncobj_create(job->fd);
	uapi_bo_create(job->fd, DRM_TERN_PLACEMENT_HOST, 4096, &job->bo);
	uapi_emit_fill(&s, job->bo.va, 4096, pattern);
	assert_ioctl_ok(uapi_submit(job->fd, job->queue, &s, job->out));
}

static void hang_job_close(struct hang_job *job)
{
	uapi_bo_close(job->fd, &job->bo);
	close(job->fd);
}

static void assert_filled_with(const struct uapi_bo *bo, uint8_t byte)
{
	for (uint32_t i = 0; i < 4096; i++)
		if (bo->cpu[i] != byte)
			fail_msg("byte %u is 0x%02x, want 0x%02x", i, bo->cpu[i], byte);
}

/*
 * File A's job on a hung engine stays unfinished until the job timeout:
 * it fails with -ETIMEDOUT, the engine is reset, and file B's job queued
 * behind it on the same engine runs. Counted, announced, and the device
 * is degraded by the reset.
 */
static void test_engine_hang_timeout_reset(void **state)
{
	uint32_t d = fabric.devices - 2, engine = 1;
	struct nl_reply before, after, event;
	struct hang_job a, b;
	char hung[64];

	(void)state;
	netlink_device(sock, family, d, &before);
	assert_true(before.engines > engine);
	assert_int_equal(debugfs_write(d, "engine_hang", "1\n"), 0);
	debugfs_read(d, "engine_hang", hung, sizeof(hung));
	assert_string_equal(hung, "1\n");
	event = event_about(d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_true(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS] & DRM_TERN_HEALTH_REASON_ENGINE_HUNG);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_DEGRADED);

	hang_job_submit(&a, d, engine, 0xaaaaaaaa);
	hang_job_submit(&b, d, engine, 0xbbbbbbbb);
	assert_int_equal(uapi_fence_status(a.fd, a.out), -ETIMEDOUT);
	assert_int_equal(uapi_fence_status(b.fd, b.out), 1);
	assert_filled_with(&a.bo, 0);
	assert_filled_with(&b.bo, 0xbb);

	event = event_about(d, DRM_TERN_CMD_ENGINE_RESET_NTF, RESET_BOUND_MS);
	netlink_assert_guilty(&event, a.client_id);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_INDEX], engine);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_HUNG], 0);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_RESETS],
			 before.engine[engine].attr[DRM_TERN_A_ENGINE_RESETS] + 1);
	/* the engine was hung: a hang reset too */
	assert_true(event.engine[0].has[DRM_TERN_A_ENGINE_HANG_RESETS]);
	assert_int_equal(event.engine[0].attr[DRM_TERN_A_ENGINE_HANG_RESETS],
			 before.engine[engine].attr[DRM_TERN_A_ENGINE_HANG_RESETS] + 1);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_DEGRADED);
	event = event_about(d, DRM_TERN_CMD_HEALTH_NTF, EVENT_BOUND_MS);
	assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET);

	netlink_device(sock, family, d, &after);
#define MOVED(a) (after.attr[a] - before.attr[a])
#define ENGINE_MOVED(a) \
	(after.engine[engine].attr[a] - before.engine[engine].attr[a])
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOB_TIMEOUTS), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_ENGINE_RESETS), 1);
	assert_true(after.has[DRM_TERN_A_DEV_ENGINE_HANG_RESETS]);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_ENGINE_HANG_RESETS), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOBS_FAILED), 1);
	assert_int_equal(MOVED(DRM_TERN_A_DEV_JOBS_COMPLETED), 1);
	assert_int_equal(ENGINE_MOVED(DRM_TERN_A_ENGINE_TIMEOUTS), 1);
	assert_int_equal(ENGINE_MOVED(DRM_TERN_A_ENGINE_RESETS), 1);
	assert_int_equal(ENGINE_MOVED(DRM_TERN_A_ENGINE_HANG_RESETS), 1);
	assert_int_equal(after.engine[engine].attr[DRM_TERN_A_ENGINE_HUNG], 0);
#undef MOVED
#undef ENGINE_MOVED
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_DEGRADED);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_HEALTH_REASONS],
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET);
	debugfs_read(d, "engine_hang", hung, sizeof(hung));
	assert_string_equal(hung, "");

	/* the engine works again, for anyone */
	hang_job_close(&a);
	hang_job_submit(&a, d, engine, 0xcccccccc);
	assert_int_equal(uapi_fence_status(a.fd, a.out), 1);
	assert_filled_with(&a.bo, 0xcc);
	hang_job_close(&a);
	hang_job_close(&b);
}

int fault_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_error_correctable),
		cmocka_unit_test(test_mem_error_uncorrectable_fails_device),
		cmocka_unit_test(test_mem_error_bad_writes),
		cmocka_unit_test(test_engine_hang_bad_writes),
		cmocka_unit_test(test_engine_hang_timeout_reset),
	};

	return cmocka_run_group_tests_name("fabric_faults", tests, faults_setup,
					   faults_teardown);
}
