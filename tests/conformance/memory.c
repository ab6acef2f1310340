// SPDX-License-Identifier: MIT
/*
 * Memory: running out of it, getting it back, many buffers at once, and a
 * process killed with work in flight giving everything back.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"

#define MANY_BUFFERS	4096
#define MANY_BYTES	100
/* Longer than any job timeout the suites run with; a bound, not a timing. */
#define RELEASE_BOUND_SECONDS	60

static void test_out_of_memory(void **state)
{
	enum { MAX_CHUNKS = 16 };
	const uint64_t total = conf.props.memory_bytes;
	const uint64_t base = conf_used_memory();
	const size_t chunk = (size_t)(total / 8);
	tern_buffer_t bufs[MAX_CHUNKS], buf;
	tern_status_t status = TERN_SUCCESS;
	int count = 0;

	(void)state;
	assert_true(total > 0);
	assert_status(tern_buffer_alloc(conf.dev, TERN_MEMORY_DEVICE,
					(size_t)total + 1, &buf),
		      TERN_ERROR_OUT_OF_MEMORY);
	while (count < MAX_CHUNKS) {
		status = tern_buffer_alloc(conf.dev, TERN_MEMORY_DEVICE, chunk,
					   &bufs[count]);
		if (status != TERN_SUCCESS)
			break;
		count++;
	}
	assert_status(status, TERN_ERROR_OUT_OF_MEMORY);
	assert_true(count >= 1 && count <= 8);
	assert_true(conf_used_memory() >= base + (uint64_t)count * chunk);

	for (int i = 0; i < count; i++)
		assert_ok(tern_buffer_free(bufs[i]));
	assert_true(conf_used_memory() == base);

	/* What was freed can be allocated again. */
	for (int i = 0; i < count; i++)
		assert_ok(tern_buffer_alloc(conf.dev, TERN_MEMORY_DEVICE, chunk,
					    &bufs[i]));
	for (int i = 0; i < count; i++)
		assert_ok(tern_buffer_free(bufs[i]));
	assert_true(conf_used_memory() == base);
}

static void test_host_memory_is_not_device_memory(void **state)
{
	const uint64_t base = conf_used_memory();
	tern_buffer_t host = conf_alloc(TERN_MEMORY_HOST, 4u << 20, NULL);
	tern_buffer_t dev;

	(void)state;
	assert_true(conf_used_memory() == base);
	dev = conf_alloc(TERN_MEMORY_DEVICE, 4u << 20, NULL);
	assert_true(conf_used_memory() >= base + (4u << 20));
	assert_ok(tern_buffer_free(dev));
	assert_ok(tern_buffer_free(host));
	assert_true(conf_used_memory() == base);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t many_pattern(int i)
{
	return 0x9e3779b9u * (uint32_t)(i + 1);
}

static void test_many_buffers(void **state)
{
	const uint64_t base = conf_used_memory();
	tern_buffer_t *bufs = calloc(MANY_BUFFERS, sizeof(*bufs));
	uint64_t *vas = calloc(MANY_BUFFERS, sizeof(*vas));
	tern_stream_t stream;

	(void)state;
	assert_non_null(bufs);
	assert_non_null(vas);
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (int i = 0; i < MANY_BUFFERS; i++) {
		assert_ok(tern_buffer_alloc(conf.dev, TERN_MEMORY_DEVICE,
					    MANY_BYTES, &bufs[i]));
		assert_ok(tern_buffer_device_address(bufs[i], &vas[i]));
		assert_ok(tern_memset32_async(bufs[i], 0, many_pattern(i),
					      MANY_BYTES, stream));
	}
	assert_ok(tern_stream_synchronize(stream));

	for (int i = 0; i < MANY_BUFFERS; i++) {
		uint32_t pattern = many_pattern(i);
		uint8_t *cpu;
		void *ptr;

		assert_ok(tern_buffer_map(bufs[i], &ptr));
		cpu = ptr;
		for (int b = 0; b < MANY_BYTES; b++)
			if (cpu[b] != (uint8_t)(pattern >> (8 * (b % 4))))
				fail_msg("buffer %d byte %d is wrong", i, b);
	}
	qsort(vas, MANY_BUFFERS, sizeof(*vas), compare_u64);
	assert_true(vas[0] != 0);
	for (int i = 1; i < MANY_BUFFERS; i++)
		if (vas[i - 1] + MANY_BYTES > vas[i])
			fail_msg("buffers at 0x%llx and 0x%llx overlap",
				 (unsigned long long)vas[i - 1],
				 (unsigned long long)vas[i]);

	for (int i = 0; i < MANY_BUFFERS; i++)
		assert_ok(tern_buffer_free(bufs[i]));
	assert_ok(tern_stream_destroy(stream));
	assert_true(conf_used_memory() == base);
	free(bufs);
	free(vas);
}

/*
 * The child of test_killed_process_releases_memory: holds half the device
 * memory with a stream full of copies, says so, and waits to be killed.
 */
int conformance_hold_memory_child(int ready_fd)
{
	tern_device_properties_t props;
	tern_buffer_t a, b;
	tern_stream_t stream;
	tern_device_t dev;
	const char *env = getenv("TERN_TEST_DEVICE");
	size_t bytes;
	char msg[64];
	int len;

	if (tern_device_open(env ? atoi(env) : 0, &dev) ||
	    tern_device_get_properties(dev, &props))
		return 1;
	bytes = (size_t)(props.memory_bytes / 4);
	if (tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, bytes, &a) ||
	    tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, bytes, &b) ||
	    tern_stream_create(dev, &stream) ||
	    tern_memset_async(a, 0, 0x5a, bytes, stream))
		return 1;
	for (int i = 0; i < 32; i++)
		if (tern_memcpy_async(b, 0, a, 0, bytes, stream) ||
		    tern_memcpy_async(a, 0, b, 0, bytes, stream))
			return 1;
	len = snprintf(msg, sizeof(msg), "%zu\n", 2 * bytes);
	if (write(ready_fd, msg, (size_t)len) != len)
		return 1;
	for (;;)
		pause();
}

static void test_killed_process_releases_memory(void **state)
{
	const uint64_t base = conf_used_memory();
	char fd_arg[16], msg[64] = "";
	unsigned long long held = 0;
	double deadline;
	int ready[2], status;
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	snprintf(fd_arg, sizeof(fd_arg), "%d", ready[1]);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		execl("/proc/self/exe", "test_conformance", "--hold-memory",
		      fd_arg, (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	if (n <= 0 || sscanf(msg, "%llu", &held) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("the child failed before holding memory (status 0x%x)",
			 status);
	}
	assert_true(conf_used_memory() >= base + held);

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	deadline = now_s() + RELEASE_BOUND_SECONDS;
	while (conf_used_memory() != base && now_s() < deadline)
		usleep(10000);
	if (conf_used_memory() != base)
		fail_msg("device memory used is %llu, %llu before the child ran",
			 (unsigned long long)conf_used_memory(),
			 (unsigned long long)base);
}

int conformance_memory_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_host_memory_is_not_device_memory),
		cmocka_unit_test(test_many_buffers),
		cmocka_unit_test(test_killed_process_releases_memory),
	};

	return cmocka_run_group_tests_name("conformance_memory", tests,
					   conformance_open, conformance_close);
}
