// SPDX-License-Identifier: MIT
/*
 * libtern argument checking on the simulator: every call given NULL, a
 * freed or mismatched handle, an out-of-range offset or an overflowing size
 * returns its documented status, enqueues nothing and does not crash.
 *
 * Backend selection happens once per process, so the environment cases run
 * this program again as a child ("--probe") with their own environment;
 * a refused one says why on stderr, once, unless TERN_DEBUG=0.
 *
 * Last, what the simulator's engines do with a job that a CPU store calls
 * off (SEM_WAIT_ABORT), through libtern's internal submission (submit.h).
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "status.h"
#include "submit.h"
#include "tern.h"
#include "tern_sim.h"
#include "tern_accel.h"

#define SIM_DEVICES	2
#define SIM_MEM_MB	16
#define BUF_BYTES	4097	/* not a page multiple: bounds are the requested size */

#define EINVAL_ TERN_ERROR_INVALID_ARGUMENT
#define ERANGE_ TERN_ERROR_OUT_OF_RANGE

/* Handles shared by the tests: two devices, each with a stream, event, buffer. */
static struct {
	tern_device_t dev[2];
	tern_stream_t stream[2];
	tern_event_t event[2];
	tern_buffer_t buf[2];
	tern_buffer_t host;	/* host memory on device 0 */
	uint8_t *cpu[2];
} g;

static int open_fixture(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		void *ptr;

		if (tern_device_open(i, &g.dev[i]) ||
		    tern_stream_create(g.dev[i], &g.stream[i]) ||
		    tern_event_create(g.dev[i], &g.event[i]) ||
		    tern_buffer_alloc(g.dev[i], TERN_MEMORY_DEVICE, BUF_BYTES,
				      &g.buf[i]) ||
		    tern_buffer_map(g.buf[i], &ptr))
			return -1;
		g.cpu[i] = ptr;
	}
	return tern_buffer_alloc(g.dev[0], TERN_MEMORY_HOST, BUF_BYTES,
				 &g.host) ? -1 : 0;
}

static int close_fixture(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		if (g.dev[i] && tern_device_close(g.dev[i]))
			return -1;
	return 0;
}

/* Gives both device buffers known contents before a test. */
static int fill_buffers(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		memset(g.cpu[i], 0x5a + i, BUF_BYTES);
	return 0;
}

/* Nothing the failed calls did may have reached the devices. */
static void assert_nothing_enqueued(void)
{
	for (int i = 0; i < 2; i++) {
		assert_ok(tern_stream_synchronize(g.stream[i]));
		for (size_t b = 0; b < BUF_BYTES; b++)
			if (g.cpu[i][b] != 0x5a + i)
				fail_msg("device %d buffer byte %zu changed", i, b);
	}
}

static uint64_t used_memory(tern_device_t dev)
{
	uint64_t used = 0, total = 0;

	assert_ok(tern_device_memory_usage(dev, &used, &total));
	return used;
}

/* ---- status codes and backend ---- */

static void test_status_names(void **state)
{
	static const char *const names[] = {
		"TERN_SUCCESS", "TERN_ERROR_INVALID_ARGUMENT",
		"TERN_ERROR_INVALID_DEVICE", "TERN_ERROR_NO_DEVICE",
		"TERN_ERROR_OUT_OF_MEMORY", "TERN_ERROR_NOT_READY",
		"TERN_ERROR_DEVICE_FAULT", "TERN_ERROR_TIMEOUT",
		"TERN_ERROR_CANCELLED", "TERN_ERROR_PERMISSION",
		"TERN_ERROR_NOT_SUPPORTED", "TERN_ERROR_BACKEND",
		"TERN_ERROR_OUT_OF_RANGE",
	};
	const int count = ARRAY_SIZE(names);
	static const int unknown[] = { 13, 100, -1, INT_MAX };

	(void)state;
	for (int i = 0; i < count; i++) {
		const char *text = tern_status_string((tern_status_t)i);

		assert_string_equal(tern_status_name((tern_status_t)i), names[i]);
		assert_non_null(text);
		assert_true(strlen(text) > 0);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(text,
				tern_status_string((tern_status_t)j));
	}
	for (size_t u = 0; u < ARRAY_SIZE(unknown); u++) {
		tern_status_t s = (tern_status_t)unknown[u];
		const char *name = tern_status_name(s);
		const char *text = tern_status_string(s);

		assert_non_null(name);
		assert_non_null(text);
		assert_true(strlen(text) > 0);
		for (int i = 0; i < count; i++) {
			assert_string_not_equal(name, names[i]);
			assert_string_not_equal(text,
				tern_status_string((tern_status_t)i));
		}
	}
}

/* Each element type's size and name, as torch and numpy spell it. */
static void test_dtype_names(void **state)
{
	static const struct {
		tern_dtype_t dtype;
		size_t size;
		const char *name;
	} types[] = {
		{ TERN_FLOAT32, 4, "float32" }, { TERN_FLOAT16, 2, "float16" },
		{ TERN_BFLOAT16, 2, "bfloat16" }, { TERN_INT32, 4, "int32" },
		{ TERN_UINT32, 4, "uint32" }, { TERN_INT8, 1, "int8" },
		{ TERN_UINT8, 1, "uint8" }, { TERN_INT64, 8, "int64" },
		{ TERN_UINT64, 8, "uint64" },
		{ TERN_FLOAT8_E4M3, 1, "float8_e4m3fn" },
		{ TERN_FLOAT8_E5M2, 1, "float8_e5m2" },
	};
	size_t size = 0;

	(void)state;
	assert_int_equal(sizeof(types) / sizeof(types[0]), TERN_DTYPE_COUNT);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_ok(tern_dtype_size(types[i].dtype, &size));
		assert_int_equal(size, types[i].size);
		assert_string_equal(tern_dtype_name(types[i].dtype),
				    types[i].name);
	}
	assert_status(tern_dtype_size(TERN_DTYPE_COUNT, &size), EINVAL_);
	assert_string_equal(tern_dtype_name(TERN_DTYPE_COUNT), "unknown");
	assert_string_equal(tern_dtype_name((tern_dtype_t)-1), "unknown");
}

static void test_backend_is_sim(void **state)
{
	tern_backend_t backend = 0;

	(void)state;
	assert_status(tern_get_backend(NULL), EINVAL_);
	assert_ok(tern_get_backend(&backend));
	assert_int_equal(backend, TERN_BACKEND_SIM);
	assert_string_equal(tern_backend_name(TERN_BACKEND_SIM), "sim");
	assert_string_equal(tern_backend_name(TERN_BACKEND_KERNEL), "kernel");
	assert_string_equal(tern_backend_name((tern_backend_t)0), "unknown");
	assert_string_equal(tern_backend_name((tern_backend_t)42), "unknown");
}

/*
 * Runs this program with @mode (--probe, --probe-reason) in @env; returns
 * what it printed on stdout. Checks what it printed on stderr: nothing
 * when @said is NULL, else libtern's one line, holding @said.
 */
static char *run_probe_mode(const char *mode, char *const env[],
			    const char *said)
{
	static char out[512];
	int out_pipe[2], err_pipe[2], status;
	char err[512];
	ssize_t n, e;
	pid_t pid;

	assert_int_equal(pipe(out_pipe), 0);
	assert_int_equal(pipe(err_pipe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Where the simulated machines of the suite are, kept. */
		static const char *const keep[] = {
			"TERN_SIM_DIR", "TERN_SIM_MACHINE", "TERN_SIM_DAEMON",
			"TERN_SIM_IDLE_MS",
		};
		char *argv[] = { "test_api", (char *)mode, NULL };
		char *full[32], kept[4][512];
		int n = 0;

		for (; env[n] && n < 24; n++)
			full[n] = env[n];
		for (size_t k = 0; k < 4; k++) {
			if (!getenv(keep[k]))
				continue;
			snprintf(kept[k], sizeof(kept[k]), "%s=%s", keep[k],
				 getenv(keep[k]));
			full[n++] = kept[k];
		}
		full[n] = NULL;
		dup2(out_pipe[1], STDOUT_FILENO);
		dup2(err_pipe[1], STDERR_FILENO);
		execve("/proc/self/exe", argv, full);
		_exit(127);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = read(out_pipe[0], out, sizeof(out) - 1);
	e = read(err_pipe[0], err, sizeof(err) - 1);
	close(out_pipe[0]);
	close(err_pipe[0]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(n > 0);
	out[n] = '\0';
	err[e > 0 ? e : 0] = '\0';
	if (!said && e > 0)
		fail_msg("the library wrote to stderr: %s", err);
	if (said && (strncmp(err, "libtern: ", 9) || !strstr(err, said) ||
		     strchr(err, '\n') != err + strlen(err) - 1))
		fail_msg("stderr is not one line of libtern's saying '%s': "
			 "'%s'", said, err);
	return out;
}

static char *run_probe(char *const env[], const char *said)
{
	return run_probe_mode("--probe", env, said);
}

static int probe_main(void)
{
	tern_backend_t backend = 0;
	tern_device_t dev = NULL;
	int count = -1;
	tern_status_t b = tern_get_backend(&backend);
	tern_status_t c = tern_device_count(&count);
	tern_status_t o = tern_device_open(0, &dev);

	printf("backend=%s:%s count=%s:%d open=%s\n", tern_status_name(b),
	       b ? "-" : tern_backend_name(backend), tern_status_name(c),
	       count, tern_status_name(o));
	if (o == TERN_SUCCESS)
		tern_device_close(dev);
	return 0;
}

/*
 * Which backend libtern would choose and why; then whether the machine
 * TERN_SIM_MACHINE names runs (asking must not have started it).
 */
static int probe_reason_main(void)
{
	tern_backend_reason_t reason = 0;
	tern_backend_t backend = 0;
	tern_sim_machine_t machines[64];
	tern_status_t r = tern_get_backend_reason(&backend, &reason);
	const char *name = getenv("TERN_SIM_MACHINE");
	uint32_t count = 0;
	int running = 0;

	if (tern_sim_machine_list(machines, 64, &count) == TERN_SUCCESS)
		for (uint32_t i = 0; i < count && i < 64; i++)
			running |= name && strcmp(machines[i].name, name) == 0;
	printf("reason=%s:%s:%s running=%d\n", tern_status_name(r),
	       r ? "-" : tern_backend_name(backend),
	       r ? "-" : tern_backend_reason_string(backend, reason), running);
	return 0;
}

/*
 * tern_get_backend_reason(): TERN_BACKEND's choice named as such, an
 * unknown one refused, and no simulated machine started by asking; with
 * none, a node decides.
 */
static void test_backend_reason(void **state)
{
	char *sim[] = { "TERN_BACKEND=sim", "TERN_SIM_MACHINE=reason-probe",
			NULL };
	char *kernel[] = { "TERN_BACKEND=kernel",
			   "TERN_SIM_MACHINE=reason-probe", NULL };
	char *bogus[] = { "TERN_BACKEND=bogus",
			  "TERN_SIM_MACHINE=reason-probe", NULL };
	char *unset[] = { "TERN_SIM_MACHINE=reason-probe", NULL };
	tern_backend_reason_t reason;
	tern_backend_t backend;
	const char *out;

	(void)state;
	assert_status(tern_get_backend_reason(NULL, &reason), EINVAL_);
	assert_status(tern_get_backend_reason(&backend, NULL), EINVAL_);
	assert_ok(tern_get_backend_reason(&backend, &reason));
	assert_int_equal(backend, TERN_BACKEND_SIM);
	assert_int_equal(reason, TERN_BACKEND_REASON_SETTING);
	assert_string_equal(tern_backend_reason_string(TERN_BACKEND_KERNEL, 0),
			    "unknown");
	assert_string_equal(run_probe_mode("--probe-reason", sim, NULL),
		"reason=TERN_SUCCESS:sim:TERN_BACKEND=sim running=0\n");
	assert_string_equal(run_probe_mode("--probe-reason", kernel, NULL),
		"reason=TERN_SUCCESS:kernel:TERN_BACKEND=kernel running=0\n");
	assert_string_equal(run_probe_mode("--probe-reason", bogus, NULL),
		"reason=TERN_ERROR_INVALID_ARGUMENT:-:- running=0\n");
	out = run_probe_mode("--probe-reason", unset, NULL);
	if (strcmp(out, "reason=TERN_SUCCESS:kernel:Tern device node found running=0\n"))
		assert_string_equal(out,
			"reason=TERN_SUCCESS:sim:no Tern device node found running=0\n");
}

static void test_backend_unknown_name(void **state)
{
	char *env[] = { "TERN_BACKEND=bogus", NULL };

	(void)state;
	assert_string_equal(run_probe(env, "TERN_BACKEND=\"bogus\""),
		"backend=TERN_ERROR_INVALID_ARGUMENT:- "
		"count=TERN_ERROR_INVALID_ARGUMENT:0 "
		"open=TERN_ERROR_INVALID_ARGUMENT\n");
}

/* TERN_DEBUG=0: a refusal is only told through tern_get_last_error(). */
static void test_backend_refusal_silenced(void **state)
{
	char *env[] = { "TERN_BACKEND=bogus", "TERN_DEBUG=0", NULL };

	(void)state;
	assert_string_equal(run_probe(env, NULL),
		"backend=TERN_ERROR_INVALID_ARGUMENT:- "
		"count=TERN_ERROR_INVALID_ARGUMENT:0 "
		"open=TERN_ERROR_INVALID_ARGUMENT\n");
}

/* No machine and no tern-simd to start: said, once, with what to do. */
static void test_backend_no_daemon(void **state)
{
	char machine[64];
	char *env[] = { "TERN_BACKEND=sim", machine,
			"TERN_SIM_DAEMON=/nonexistent/tern-simd", NULL };

	(void)state;
	snprintf(machine, sizeof(machine), "TERN_SIM_MACHINE=none-%d",
		 (int)getpid());
	assert_string_equal(run_probe(env, "TERN_SIM_DAEMON=/nonexistent/"
				      "tern-simd is not an executable file"),
		"backend=TERN_ERROR_NO_DEVICE:- "
		"count=TERN_ERROR_NO_DEVICE:0 "
		"open=TERN_ERROR_NO_DEVICE\n");
}

static void test_backend_sim_by_name(void **state)
{
	char *env[] = { "TERN_BACKEND=sim", "TERN_SIM_DEVICES=3", NULL };

	(void)state;
	assert_string_equal(run_probe(env, NULL),
		"backend=TERN_SUCCESS:sim count=TERN_SUCCESS:3 "
		"open=TERN_SUCCESS\n");
}

static void test_backend_sim_bad_config(void **state)
{
	char *devices[] = { "TERN_BACKEND=sim", "TERN_SIM_DEVICES=four", NULL };
	char *memory[] = { "TERN_BACKEND=sim", "TERN_SIM_MEM_MB=12x", NULL };
	const char *want = "backend=TERN_ERROR_INVALID_ARGUMENT:- "
		"count=TERN_ERROR_INVALID_ARGUMENT:0 "
		"open=TERN_ERROR_INVALID_ARGUMENT\n";

	(void)state;
	assert_string_equal(run_probe(devices, "TERN_SIM_DEVICES=\"four\""),
			    want);
	assert_string_equal(run_probe(memory, "TERN_SIM_MEM_MB=\"12x\""),
			    want);
}

/* ---- devices ---- */

static void test_sim_devices(void **state)
{
	tern_device_properties_t props;
	int count = 0;

	(void)state;
	assert_status(tern_device_count(NULL), EINVAL_);
	assert_ok(tern_device_count(&count));
	assert_int_equal(count, SIM_DEVICES);
	for (int i = 0; i < 2; i++) {
		char node[16];

		assert_ok(tern_device_get_properties(g.dev[i], &props));
		snprintf(node, sizeof(node), "sim:%d", i);
		assert_int_equal(props.index, i);
		assert_string_equal(props.node, node);
		assert_true(props.memory_bytes == (uint64_t)SIM_MEM_MB << 20);
		assert_true(props.engine_count >= 1);
		assert_true(props.clock_hz > 0);
	}
}

static void test_device_open_args(void **state)
{
	static const int bad[] = { -1, SIM_DEVICES, SIM_DEVICES + 1, INT_MAX, INT_MIN };
	tern_device_t dev;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_status(tern_device_open(bad[i], &dev),
			      TERN_ERROR_INVALID_DEVICE);
	assert_status(tern_device_open(0, NULL), EINVAL_);
}

static void test_device_close_args(void **state)
{
	tern_device_t dev;

	(void)state;
	assert_status(tern_device_close(NULL), EINVAL_);
	assert_status(tern_device_close((tern_device_t)(void *)g.stream[0]), EINVAL_);
	assert_status(tern_device_close((tern_device_t)(void *)g.buf[0]), EINVAL_);
	assert_ok(tern_device_open(1, &dev));
	assert_ok(tern_device_close(dev));
	assert_status(tern_device_close(dev), EINVAL_);
}

static void test_device_query_args(void **state)
{
	tern_device_properties_t props;
	tern_device_t wrong = (tern_device_t)(void *)g.event[0];
	uint64_t used, total;

	(void)state;
	assert_status(tern_device_get_properties(NULL, &props), EINVAL_);
	assert_status(tern_device_get_properties(wrong, &props), EINVAL_);
	assert_status(tern_device_get_properties(g.dev[0], NULL), EINVAL_);
	assert_status(tern_device_memory_usage(NULL, &used, &total), EINVAL_);
	assert_status(tern_device_memory_usage(wrong, &used, &total), EINVAL_);
	assert_status(tern_device_memory_usage(g.dev[0], NULL, &total), EINVAL_);
	assert_status(tern_device_memory_usage(g.dev[0], &used, NULL), EINVAL_);
	assert_ok(tern_device_memory_usage(g.dev[0], &used, &total));
	assert_true(total == (uint64_t)SIM_MEM_MB << 20);
	assert_true(used >= BUF_BYTES && used <= total);
}

static void test_device_close_frees_everything(void **state)
{
	uint64_t before = used_memory(g.dev[1]);
	tern_device_t dev;
	tern_buffer_t buf;
	tern_stream_t stream;
	tern_event_t event;
	size_t bytes;

	(void)state;
	assert_ok(tern_device_open(1, &dev));
	assert_ok(tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, 1 << 20, &buf));
	assert_ok(tern_stream_create(dev, &stream));
	assert_ok(tern_event_create(dev, &event));
	assert_ok(tern_memset_async(buf, 0, 1, 1 << 20, stream));
	assert_ok(tern_event_record(event, stream));
	assert_true(used_memory(g.dev[1]) >= before + (1 << 20));
	assert_ok(tern_device_close(dev));
	assert_true(used_memory(g.dev[1]) == before);
	assert_status(tern_buffer_size(buf, &bytes), EINVAL_);
	assert_status(tern_stream_query(stream), EINVAL_);
	assert_status(tern_event_query(event), EINVAL_);
	assert_status(tern_buffer_free(buf), EINVAL_);
}

/* ---- buffers ---- */

static void test_buffer_alloc_args(void **state)
{
	static const size_t too_big[] = {
		((size_t)SIM_MEM_MB << 20) + 1, SIZE_MAX, SIZE_MAX - 4095,
		(size_t)1 << 63,
	};
	uint64_t before = used_memory(g.dev[0]);
	tern_buffer_t buf = NULL;
	size_t bytes;

	(void)state;
	assert_status(tern_buffer_alloc(NULL, TERN_MEMORY_DEVICE, 64, &buf), EINVAL_);
	assert_status(tern_buffer_alloc((tern_device_t)(void *)g.stream[0],
					TERN_MEMORY_DEVICE, 64, &buf), EINVAL_);
	assert_status(tern_buffer_alloc(g.dev[0], TERN_MEMORY_DEVICE, 64, NULL), EINVAL_);
	assert_status(tern_buffer_alloc(g.dev[0], (tern_memory_kind_t)2, 64, &buf), EINVAL_);
	assert_status(tern_buffer_alloc(g.dev[0], (tern_memory_kind_t)-1, 64, &buf), EINVAL_);
	assert_status(tern_buffer_alloc(g.dev[0], TERN_MEMORY_DEVICE, 0, &buf), EINVAL_);
	for (size_t i = 0; i < ARRAY_SIZE(too_big); i++)
		assert_status(tern_buffer_alloc(g.dev[0], TERN_MEMORY_DEVICE,
						too_big[i], &buf),
			      TERN_ERROR_OUT_OF_MEMORY);
	assert_true(used_memory(g.dev[0]) == before);

	/* The size is the one asked for, not a rounded one. */
	assert_ok(tern_buffer_alloc(g.dev[1], TERN_MEMORY_DEVICE, BUF_BYTES, &buf));
	assert_ok(tern_buffer_size(buf, &bytes));
	assert_int_equal(bytes, BUF_BYTES);
	assert_ok(tern_buffer_free(buf));
}

static void test_buffer_free_args(void **state)
{
	tern_buffer_t buf;

	(void)state;
	assert_status(tern_buffer_free(NULL), EINVAL_);
	assert_status(tern_buffer_free((tern_buffer_t)(void *)g.dev[0]), EINVAL_);
	assert_status(tern_buffer_free((tern_buffer_t)(void *)g.event[0]), EINVAL_);
	assert_ok(tern_buffer_alloc(g.dev[0], TERN_MEMORY_HOST, 64, &buf));
	assert_ok(tern_buffer_free(buf));
	assert_status(tern_buffer_free(buf), EINVAL_);
}

static void test_buffer_query_args(void **state)
{
	tern_buffer_t wrong = (tern_buffer_t)(void *)g.stream[0];
	tern_buffer_t freed;
	uint64_t va;
	size_t bytes;
	void *ptr;

	(void)state;
	assert_ok(tern_buffer_alloc(g.dev[0], TERN_MEMORY_DEVICE, 64, &freed));
	assert_ok(tern_buffer_free(freed));
	assert_status(tern_buffer_map(NULL, &ptr), EINVAL_);
	assert_status(tern_buffer_map(wrong, &ptr), EINVAL_);
	assert_status(tern_buffer_map(freed, &ptr), EINVAL_);
	assert_status(tern_buffer_map(g.buf[0], NULL), EINVAL_);
	assert_status(tern_buffer_size(NULL, &bytes), EINVAL_);
	assert_status(tern_buffer_size(wrong, &bytes), EINVAL_);
	assert_status(tern_buffer_size(freed, &bytes), EINVAL_);
	assert_status(tern_buffer_size(g.buf[0], NULL), EINVAL_);
	assert_status(tern_buffer_device_address(NULL, &va), EINVAL_);
	assert_status(tern_buffer_device_address(wrong, &va), EINVAL_);
	assert_status(tern_buffer_device_address(freed, &va), EINVAL_);
	assert_status(tern_buffer_device_address(g.buf[0], NULL), EINVAL_);
}

/* ---- streams ---- */

static void test_stream_args(void **state)
{
	tern_stream_t wrong = (tern_stream_t)(void *)g.buf[0];
	tern_stream_t stream;

	(void)state;
	assert_status(tern_stream_create(NULL, &stream), EINVAL_);
	assert_status(tern_stream_create((tern_device_t)(void *)g.event[0],
					 &stream), EINVAL_);
	assert_status(tern_stream_create(g.dev[0], NULL), EINVAL_);
	assert_status(tern_stream_destroy(NULL), EINVAL_);
	assert_status(tern_stream_destroy(wrong), EINVAL_);
	assert_status(tern_stream_synchronize(NULL), EINVAL_);
	assert_status(tern_stream_synchronize(wrong), EINVAL_);
	assert_status(tern_stream_query(NULL), EINVAL_);
	assert_status(tern_stream_query(wrong), EINVAL_);

	assert_ok(tern_stream_create(g.dev[0], &stream));
	assert_ok(tern_stream_destroy(stream));
	assert_status(tern_stream_destroy(stream), EINVAL_);
	assert_status(tern_stream_synchronize(stream), EINVAL_);
	assert_status(tern_stream_query(stream), EINVAL_);
	assert_status(tern_memset_async(g.buf[0], 0, 0, 1, stream), EINVAL_);
}

static void test_memcpy_args(void **state)
{
	tern_buffer_t b0 = g.buf[0], b1 = g.buf[1], h = g.host;
	tern_stream_t s = g.stream[0];

	(void)state;
	assert_status(tern_memcpy_async(NULL, 0, h, 0, 1, s), EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, NULL, 0, 1, s), EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, h, 0, 1, NULL), EINVAL_);
	assert_status(tern_memcpy_async((tern_buffer_t)(void *)s, 0, h, 0, 1, s),
		      EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, (tern_buffer_t)(void *)g.dev[0],
					0, 1, s), EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, h, 0, 1,
					(tern_stream_t)(void *)g.event[0]), EINVAL_);

	/* buffers of another device than the stream's */
	assert_status(tern_memcpy_async(b1, 0, h, 0, 1, s), EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, b1, 0, 1, s), EINVAL_);
	assert_status(tern_memcpy_async(b0, 0, h, 0, 1, g.stream[1]), EINVAL_);

	/* ranges: the last byte is fine, one more is not */
	assert_status(tern_memcpy_async(b0, BUF_BYTES, h, 0, 1, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, BUF_BYTES, 1, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 1, h, 0, BUF_BYTES, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, 1, BUF_BYTES, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, 0, BUF_BYTES + 1, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, SIZE_MAX, h, 0, 1, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, SIZE_MAX, 1, s), ERANGE_);
	/* offset + bytes wraps around to a small number */
	assert_status(tern_memcpy_async(b0, 2, h, 0, SIZE_MAX, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, 2, SIZE_MAX, s), ERANGE_);
	assert_status(tern_memcpy_async(b0, 0, h, 0, SIZE_MAX, s), ERANGE_);
	assert_nothing_enqueued();
	assert_ok(tern_memcpy_async(b0, BUF_BYTES - 1, h, BUF_BYTES - 1, 1, s));
	assert_ok(tern_stream_synchronize(s));
}

/* memset and memset32 share their checks; @which picks one. */
static tern_status_t set_async(int which, tern_buffer_t dst, size_t offset,
			       size_t bytes, tern_stream_t stream)
{
	if (which == 0)
		return tern_memset_async(dst, offset, 0xee, bytes, stream);
	return tern_memset32_async(dst, offset, 0xdeadbeef, bytes, stream);
}

static void test_memset_args(void **state)
{
	tern_stream_t s = g.stream[0];

	(void)state;
	for (int w = 0; w < 2; w++) {
		assert_status(set_async(w, NULL, 0, 1, s), EINVAL_);
		assert_status(set_async(w, g.buf[0], 0, 1, NULL), EINVAL_);
		assert_status(set_async(w, (tern_buffer_t)(void *)s, 0, 1, s), EINVAL_);
		assert_status(set_async(w, g.buf[0], 0, 1,
					(tern_stream_t)(void *)g.buf[0]), EINVAL_);
		assert_status(set_async(w, g.buf[1], 0, 1, s), EINVAL_);
		assert_status(set_async(w, g.buf[0], BUF_BYTES, 1, s), ERANGE_);
		assert_status(set_async(w, g.buf[0], 1, BUF_BYTES, s), ERANGE_);
		assert_status(set_async(w, g.buf[0], 0, BUF_BYTES + 1, s), ERANGE_);
		assert_status(set_async(w, g.buf[0], SIZE_MAX, 1, s), ERANGE_);
		assert_status(set_async(w, g.buf[0], 3, SIZE_MAX - 1, s), ERANGE_);
		assert_status(set_async(w, g.buf[0], 0, SIZE_MAX, s), ERANGE_);
	}
	assert_nothing_enqueued();
	assert_ok(set_async(0, g.buf[0], BUF_BYTES - 1, 1, s));
	assert_ok(set_async(1, g.buf[0], 0, BUF_BYTES, s));
	assert_ok(tern_stream_synchronize(s));
}

/* ---- events ---- */

static void test_event_args(void **state)
{
	tern_event_t wrong = (tern_event_t)(void *)g.stream[0];
	tern_event_t e = g.event[0], freed;
	tern_stream_t s = g.stream[0];
	float ms;

	(void)state;
	assert_ok(tern_event_create(g.dev[0], &freed));
	assert_ok(tern_event_destroy(freed));

	assert_status(tern_event_create(NULL, &e), EINVAL_);
	assert_status(tern_event_create((tern_device_t)(void *)s, &e), EINVAL_);
	assert_status(tern_event_create(g.dev[0], NULL), EINVAL_);
	assert_status(tern_event_destroy(NULL), EINVAL_);
	assert_status(tern_event_destroy(wrong), EINVAL_);
	assert_status(tern_event_destroy(freed), EINVAL_);

	assert_status(tern_event_record(NULL, s), EINVAL_);
	assert_status(tern_event_record(wrong, s), EINVAL_);
	assert_status(tern_event_record(freed, s), EINVAL_);
	assert_status(tern_event_record(e, NULL), EINVAL_);
	assert_status(tern_event_record(e, (tern_stream_t)(void *)e), EINVAL_);
	/* an event records work of its own device's streams only */
	assert_status(tern_event_record(e, g.stream[1]), EINVAL_);

	assert_status(tern_stream_wait_event(NULL, e), EINVAL_);
	assert_status(tern_stream_wait_event((tern_stream_t)(void *)e, e), EINVAL_);
	assert_status(tern_stream_wait_event(s, NULL), EINVAL_);
	assert_status(tern_stream_wait_event(s, wrong), EINVAL_);
	assert_status(tern_stream_wait_event(s, freed), EINVAL_);

	assert_status(tern_event_synchronize(NULL), EINVAL_);
	assert_status(tern_event_synchronize(wrong), EINVAL_);
	assert_status(tern_event_synchronize(freed), EINVAL_);
	assert_status(tern_event_query(NULL), EINVAL_);
	assert_status(tern_event_query(wrong), EINVAL_);
	assert_status(tern_event_query(freed), EINVAL_);

	assert_ok(tern_event_record(g.event[0], g.stream[0]));
	assert_ok(tern_event_record(g.event[1], g.stream[1]));
	assert_ok(tern_event_synchronize(g.event[0]));
	assert_ok(tern_event_synchronize(g.event[1]));
	assert_status(tern_event_elapsed_time(NULL, e, e), EINVAL_);
	assert_status(tern_event_elapsed_time(&ms, NULL, e), EINVAL_);
	assert_status(tern_event_elapsed_time(&ms, e, NULL), EINVAL_);
	assert_status(tern_event_elapsed_time(&ms, wrong, e), EINVAL_);
	assert_status(tern_event_elapsed_time(&ms, e, freed), EINVAL_);
	/* engine clocks of different devices are not comparable */
	assert_status(tern_event_elapsed_time(&ms, g.event[0], g.event[1]), EINVAL_);
	assert_ok(tern_event_elapsed_time(&ms, e, e));
	assert_true(ms == 0.0f);
}

/* ---- the simulator's engines: SEM_WAIT_ABORT ---- */

/* The words of the host buffer the abort tests use, and their addresses. */
enum { SEM_WORD, ABORT_WORD, AFTER_WORD };

static uint64_t *host_words(uint64_t *va)
{
	void *ptr;

	assert_ok(tern_buffer_map(g.host, &ptr));
	assert_ok(tern_buffer_device_address(g.host, va));
	return ptr;
}

/*
 * Submits to stream 0: SEM_WAIT_ABORT for the semaphore to reach 1 (an
 * equality wait with @equal), then a FILL that shows whether it passed.
 */
static struct tern_fence *submit_abortable_wait(uint64_t va, bool equal)
{
	uint64_t packets[TERN_PACKET_MAX_BYTES / 4];
	struct tern_packet_builder b;
	struct tern_fence *fence = NULL;

	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_sem_wait_abort(&b, va + 8 * SEM_WORD, 1,
				   va + 8 * ABORT_WORD, equal);
	tern_packet_fill(&b, va + 8 * AFTER_WORD, 8, 0x77777777);
	assert_false(b.overflow);
	assert_ok(tern_stream_submit(g.stream[0], packets, b.size, NULL, 0,
				     &fence));
	assert_non_null(fence);
	return fence;
}

/*
 * A job stalled on its semaphore ends with @want soon after the CPU stores
 * @word into its abort word, far before the job timeout (5 s), and the
 * packet after the wait does not run.
 */
static void check_sim_abort(uint64_t word, bool equal, tern_status_t want)
{
	uint64_t va, *words = host_words(&va);
	struct tern_fence *fence;
	int64_t stored;

	memset(words, 0, 3 * sizeof(uint64_t));
	fence = submit_abortable_wait(va, equal);
	/* long enough for the engine to stall and sleep on the semaphore */
	assert_status(tern_fence_wait(g.dev[0], fence, 50 * 1000000ll),
		      TERN_ERROR_NOT_READY);
	stored = now_ns();
	__atomic_store_n(&words[ABORT_WORD], word, __ATOMIC_SEQ_CST);
	assert_ok(tern_fence_wait(g.dev[0], fence, 10ll * 1000000000ll));
	print_message("abort word %#llx: the job ended %.1f ms after the store\n",
		      (unsigned long long)word, (now_ns() - stored) / 1e6);
	assert_true(now_ns() - stored < 1000000000ll);
	assert_status(tern_fence_status(g.dev[0], fence), want);
	assert_true(words[AFTER_WORD] == 0);
	tern_fence_put(fence);
	/* the stream reports the failure until work follows it */
	assert_status(tern_stream_synchronize(g.stream[0]), want);
	assert_status(tern_stream_synchronize(g.stream[0]), want);
	assert_ok(tern_memset_async(g.buf[0], 0, 0, 8, g.stream[0]));
	assert_ok(tern_stream_synchronize(g.stream[0]));
}

static void test_sim_abort_peer_failed(void **state)
{
	(void)state;
	check_sim_abort(2, false, TERN_ERROR_PEER_FAILED);
	check_sim_abort(UINT64_MAX, true, TERN_ERROR_PEER_FAILED);
}

static void test_sim_abort_cancelled(void **state)
{
	(void)state;
	check_sim_abort(DRM_TERN_SEM_ABORT_CANCEL, false, TERN_ERROR_CANCELLED);
}

/* An abort word set before the wait fails it although the semaphore passes. */
static void test_sim_abort_set_before(void **state)
{
	uint64_t va, *words = host_words(&va);
	struct tern_fence *fence;

	(void)state;
	words[SEM_WORD] = 1;
	words[ABORT_WORD] = 9;
	words[AFTER_WORD] = 0;
	fence = submit_abortable_wait(va, false);
	assert_ok(tern_fence_wait(g.dev[0], fence, TERN_WAIT_FOREVER));
	assert_status(tern_fence_status(g.dev[0], fence), TERN_ERROR_PEER_FAILED);
	assert_true(words[AFTER_WORD] == 0);
	tern_fence_put(fence);
	assert_status(tern_stream_synchronize(g.stream[0]),
		      TERN_ERROR_PEER_FAILED);

	/* cleared, the same wait passes */
	words[ABORT_WORD] = 0;
	fence = submit_abortable_wait(va, true);
	assert_ok(tern_fence_wait(g.dev[0], fence, TERN_WAIT_FOREVER));
	assert_ok(tern_fence_status(g.dev[0], fence));
	assert_true(words[AFTER_WORD] == 0x7777777777777777ull);
	tern_fence_put(fence);
	assert_ok(tern_stream_synchronize(g.stream[0]));
}

#define T(f) cmocka_unit_test_setup(f, fill_buffers)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_status_names),
		T(test_dtype_names),
		T(test_backend_is_sim),
		T(test_backend_unknown_name),
		T(test_backend_reason),
		T(test_backend_refusal_silenced),
		T(test_backend_no_daemon),
		T(test_backend_sim_by_name),
		T(test_backend_sim_bad_config),
		T(test_sim_devices),
		T(test_device_open_args),
		T(test_device_close_args),
		T(test_device_query_args),
		T(test_device_close_frees_everything),
		T(test_buffer_alloc_args),
		T(test_buffer_free_args),
		T(test_buffer_query_args),
		T(test_stream_args),
		T(test_memcpy_args),
		T(test_memset_args),
		T(test_event_args),
		T(test_sim_abort_peer_failed),
		T(test_sim_abort_cancelled),
		T(test_sim_abort_set_before),
	};
	char devices[16], memory[16];

	if (argc == 2 && strcmp(argv[1], "--probe") == 0)
		return probe_main();
	if (argc == 2 && strcmp(argv[1], "--probe-reason") == 0)
		return probe_reason_main();

	snprintf(devices, sizeof(devices), "%d", SIM_DEVICES);
	snprintf(memory, sizeof(memory), "%d", SIM_MEM_MB);
	setenv("TERN_BACKEND", "sim", 1);
	setenv("TERN_SIM_DEVICES", devices, 1);
	setenv("TERN_SIM_MEM_MB", memory, 1);
	unsetenv("TERN_DEBUG");
	return cmocka_run_group_tests_name("api", tests, open_fixture,
					   close_fixture) ? 1 : 0;
}
