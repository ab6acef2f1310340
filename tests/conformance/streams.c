// SPDX-License-Identifier: MIT
/*
 * Streams and events: ordering across streams through events, query and
 * synchronize semantics, elapsed time. Nothing here measures speed: the
 * only time checked is that an event recorded later is not earlier.
 */
#include <string.h>

#include "conformance.h"

#define LONG_BYTES	(8u << 20)
#define LONG_STEPS	8

/*
 * Enqueues on @stream a chain of fills over @buf whose last one leaves
 * every byte at @final; long enough that a stream not waiting for it
 * would see an earlier state.
 */
static void enqueue_long_work(tern_stream_t stream, tern_buffer_t buf,
			      uint8_t final)
{
	for (int i = LONG_STEPS - 1; i >= 0; i--)
		assert_ok(tern_memset_async(buf, 0, (uint8_t)(final + i),
					    LONG_BYTES, stream));
}

static void test_event_orders_streams(void **state)
{
	uint8_t *x_cpu, *y_cpu;
	tern_buffer_t x = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, &x_cpu);
	tern_buffer_t y = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, &y_cpu);
	tern_stream_t a, b;
	tern_event_t done;

	(void)state;
	memset(x_cpu, 0, LONG_BYTES);
	memset(y_cpu, 0, LONG_BYTES);
	assert_ok(tern_stream_create(conf.dev, &a));
	assert_ok(tern_stream_create(conf.dev, &b));
	assert_ok(tern_event_create(conf.dev, &done));

	enqueue_long_work(a, x, 0x40);
	assert_ok(tern_event_record(done, a));
	assert_ok(tern_stream_wait_event(b, done));
	assert_ok(tern_memcpy_async(y, 0, x, 0, LONG_BYTES, b));
	assert_ok(tern_stream_synchronize(b));
	/* b finished, so what it waited for has finished too */
	assert_ok(tern_event_query(done));
	conf_assert_bytes(y_cpu, 0x40, LONG_BYTES, "copy made after the event");

	assert_ok(tern_stream_synchronize(a));
	assert_ok(tern_event_destroy(done));
	assert_ok(tern_stream_destroy(a));
	assert_ok(tern_stream_destroy(b));
	assert_ok(tern_buffer_free(x));
	assert_ok(tern_buffer_free(y));
}

static void test_event_rerecord_captures_new_work(void **state)
{
	uint8_t *x_cpu, *y_cpu, *z_cpu;
	tern_buffer_t x = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, &x_cpu);
	tern_buffer_t y = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, &y_cpu);
	tern_buffer_t z = conf_alloc(TERN_MEMORY_HOST, LONG_BYTES, &z_cpu);
	tern_stream_t a, b;
	tern_event_t ev, copied;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &a));
	assert_ok(tern_stream_create(conf.dev, &b));
	assert_ok(tern_event_create(conf.dev, &ev));
	assert_ok(tern_event_create(conf.dev, &copied));

	enqueue_long_work(a, x, 0x10);
	assert_ok(tern_event_record(ev, a));
	assert_ok(tern_stream_wait_event(b, ev));
	assert_ok(tern_memcpy_async(y, 0, x, 0, LONG_BYTES, b));
	/* a overwrites x only once b has copied it: a wait the other way */
	assert_ok(tern_event_record(copied, b));
	assert_ok(tern_stream_wait_event(a, copied));
	/* the second recording: b's next work waits for the new fills */
	enqueue_long_work(a, x, 0x20);
	assert_ok(tern_event_record(ev, a));
	assert_ok(tern_stream_wait_event(b, ev));
	assert_ok(tern_memcpy_async(z, 0, x, 0, LONG_BYTES, b));
	assert_ok(tern_stream_synchronize(b));

	conf_assert_bytes(z_cpu, 0x20, LONG_BYTES, "copy after the second record");
	conf_assert_bytes(y_cpu, 0x10, LONG_BYTES, "copy after the first record");

	assert_ok(tern_event_destroy(ev));
	assert_ok(tern_event_destroy(copied));
	assert_ok(tern_stream_destroy(a));
	assert_ok(tern_stream_destroy(b));
	assert_ok(tern_buffer_free(x));
	assert_ok(tern_buffer_free(y));
	assert_ok(tern_buffer_free(z));
}

static void test_wait_on_empty_stream_event(void **state)
{
	uint8_t *cpu;
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_HOST, 4096, &cpu);
	tern_stream_t a, b;
	tern_event_t ev;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &a));
	assert_ok(tern_stream_create(conf.dev, &b));
	assert_ok(tern_event_create(conf.dev, &ev));
	assert_ok(tern_event_record(ev, a));	/* nothing to capture */
	assert_ok(tern_stream_wait_event(b, ev));
	assert_ok(tern_memset_async(buf, 0, 0x33, 4096, b));
	assert_ok(tern_stream_synchronize(b));
	conf_assert_bytes(cpu, 0x33, 4096, "buffer");
	assert_ok(tern_event_synchronize(ev));
	assert_ok(tern_event_query(ev));
	assert_ok(tern_event_destroy(ev));
	assert_ok(tern_stream_destroy(a));
	assert_ok(tern_stream_destroy(b));
	assert_ok(tern_buffer_free(buf));
}

static void test_event_query_and_synchronize(void **state)
{
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, NULL);
	tern_stream_t stream;
	tern_event_t ev;
	tern_status_t status;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	assert_ok(tern_event_create(conf.dev, &ev));
	/* never recorded: complete */
	assert_ok(tern_event_query(ev));
	assert_ok(tern_event_synchronize(ev));

	enqueue_long_work(stream, buf, 1);
	assert_ok(tern_event_record(ev, stream));
	status = tern_event_query(ev);
	if (status != TERN_SUCCESS && status != TERN_ERROR_NOT_READY)
		fail_msg("query returned %s", tern_status_name(status));
	status = tern_stream_query(stream);
	if (status != TERN_SUCCESS && status != TERN_ERROR_NOT_READY)
		fail_msg("stream query returned %s", tern_status_name(status));

	assert_ok(tern_event_synchronize(ev));
	assert_ok(tern_event_query(ev));
	/* synchronizing again is harmless */
	assert_ok(tern_event_synchronize(ev));
	assert_ok(tern_stream_synchronize(stream));
	assert_ok(tern_stream_query(stream));

	assert_ok(tern_event_destroy(ev));
	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(buf));
}

static void test_event_elapsed_time(void **state)
{
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_DEVICE, LONG_BYTES, NULL);
	tern_event_t start, mid, end;
	tern_stream_t stream;
	float first = -1, second = -1, whole = -1;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	assert_ok(tern_event_create(conf.dev, &start));
	assert_ok(tern_event_create(conf.dev, &mid));
	assert_ok(tern_event_create(conf.dev, &end));

	assert_ok(tern_event_record(start, stream));
	enqueue_long_work(stream, buf, 1);
	assert_ok(tern_event_record(mid, stream));
	enqueue_long_work(stream, buf, 2);
	assert_ok(tern_event_record(end, stream));
	/* end completes last on an in-order stream */
	assert_ok(tern_event_synchronize(end));
	assert_ok(tern_event_query(start));
	assert_ok(tern_event_query(mid));

	assert_ok(tern_event_elapsed_time(&first, start, mid));
	assert_ok(tern_event_elapsed_time(&second, mid, end));
	assert_ok(tern_event_elapsed_time(&whole, start, end));
	assert_true(first >= 0.0f);
	assert_true(second >= 0.0f);
	assert_true(whole >= first);
	assert_true(whole >= second);

	assert_ok(tern_event_destroy(start));
	assert_ok(tern_event_destroy(mid));
	assert_ok(tern_event_destroy(end));
	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(buf));
}

static void test_synchronize_reports_success(void **state)
{
	uint8_t *cpu;
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_DEVICE, 1u << 20, &cpu);
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	assert_ok(tern_stream_synchronize(stream));	/* nothing enqueued */
	for (int i = 0; i < 64; i++)
		assert_ok(tern_memset_async(buf, (size_t)i * 16384, (uint8_t)i,
					    16384, stream));
	assert_ok(tern_stream_synchronize(stream));
	assert_ok(tern_stream_synchronize(stream));
	assert_ok(tern_stream_query(stream));
	for (int i = 0; i < 64; i++)
		conf_assert_bytes(cpu + (size_t)i * 16384, (uint8_t)i, 16384,
				  "slice");
	/* destroying waits for work still enqueued */
	assert_ok(tern_memset_async(buf, 0, 0xee, 1u << 20, stream));
	assert_ok(tern_stream_destroy(stream));
	conf_assert_bytes(cpu, 0xee, 1u << 20, "after destroy");
	assert_ok(tern_buffer_free(buf));
}

static void test_many_streams(void **state)
{
	enum { STREAMS = 32 };
	const size_t slice = 4096 + 3;
	uint8_t *cpu;
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_DEVICE, STREAMS * slice, &cpu);
	tern_stream_t streams[STREAMS];

	(void)state;
	/* more streams than engines: they share engines and stay correct */
	for (int i = 0; i < STREAMS; i++) {
		assert_ok(tern_stream_create(conf.dev, &streams[i]));
		assert_ok(tern_memset_async(buf, i * slice, (uint8_t)(i + 1),
					    slice, streams[i]));
	}
	for (int i = 0; i < STREAMS; i++)
		assert_ok(tern_stream_synchronize(streams[i]));
	for (int i = 0; i < STREAMS; i++) {
		conf_assert_bytes(cpu + i * slice, (uint8_t)(i + 1), slice,
				  "stream slice");
		assert_ok(tern_stream_destroy(streams[i]));
	}
	assert_ok(tern_buffer_free(buf));
}

int conformance_stream_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_orders_streams),
		cmocka_unit_test(test_event_rerecord_captures_new_work),
		cmocka_unit_test(test_wait_on_empty_stream_event),
		cmocka_unit_test(test_event_query_and_synchronize),
		cmocka_unit_test(test_event_elapsed_time),
		cmocka_unit_test(test_synchronize_reports_success),
		cmocka_unit_test(test_many_streams),
	};

	return cmocka_run_group_tests_name("conformance_streams", tests,
					   conformance_open, conformance_close);
}
