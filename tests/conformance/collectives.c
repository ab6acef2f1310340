// SPDX-License-Identifier: MIT
/*
 * Collectives over every device of the backend (up to 16), one rank per
 * device in this process: results checked element by element, in place
 * and out of place, completion through events, and every bad argument
 * refused with its status while the communicator stays usable.
 *
 * Skipped as a whole where the devices cannot address each other's memory
 * (tern_comm_init_all says TERN_ERROR_NOT_SUPPORTED).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"

#define MAX_RANKS	16

static struct {
	int n;
	tern_device_t dev[MAX_RANKS];
	tern_stream_t stream[MAX_RANKS], stream2[MAX_RANKS];
	tern_comm_t comm[MAX_RANKS];
	bool unsupported;
} cc;

static int coll_open(void **state)
{
	tern_status_t status;

	(void)state;
	memset(&cc, 0, sizeof(cc));
	if (tern_device_count(&cc.n) || cc.n < 1)
		return -1;
	if (cc.n > MAX_RANKS)
		cc.n = MAX_RANKS;
	for (int r = 0; r < cc.n; r++)
		if (tern_device_open(r, &cc.dev[r]) ||
		    tern_stream_create(cc.dev[r], &cc.stream[r]) ||
		    tern_stream_create(cc.dev[r], &cc.stream2[r]))
			return -1;
	status = tern_comm_init_all(cc.comm, cc.n, cc.dev);
	if (status == TERN_ERROR_NOT_SUPPORTED) {
		print_message("SKIP: collectives: the devices cannot reach each other's memory\n");
		cc.unsupported = true;
		return 0;
	}
	return status ? -1 : 0;
}

static int coll_close(void **state)
{
	int failed = 0;

	(void)state;
	for (int r = 0; r < cc.n; r++) {
		if (cc.comm[r] && tern_comm_destroy(cc.comm[r]))
			failed = 1;
		if (cc.dev[r] && tern_device_close(cc.dev[r]))
			failed = 1;
	}
	return failed ? -1 : 0;
}

static void need_collectives(void)
{
	if (cc.unsupported)
		skip();
}

/* A mapped device buffer of rank @r. */
static tern_buffer_t rank_alloc(int r, size_t bytes, uint8_t **cpu)
{
	tern_buffer_t buf;
	void *ptr;

	assert_ok(tern_buffer_alloc(cc.dev[r], TERN_MEMORY_DEVICE, bytes + 8, &buf));
	assert_ok(tern_buffer_map(buf, &ptr));
	*cpu = ptr;
	return buf;
}

static void sync_all(void)
{
	for (int r = 0; r < cc.n; r++) {
		assert_ok(tern_stream_synchronize(cc.stream[r]));
		assert_ok(tern_stream_synchronize(cc.stream2[r]));
	}
}

static int32_t value(int r, size_t i)
{
	return (int32_t)((r * 5 + (int)(i % 1013)) % 9) - 4;
}

/* All-reduce of int32 sum, max and avg, float32 sum and avg, with events. */
static void all_reduce_case(size_t count, bool in_place, tern_dtype_t dtype,
			    tern_redop_t op)
{
	tern_buffer_t send[MAX_RANKS], recv[MAX_RANKS];
	uint8_t *send_cpu[MAX_RANKS], *recv_cpu[MAX_RANKS];
	tern_event_t done[MAX_RANKS];

	for (int r = 0; r < cc.n; r++) {
		recv[r] = rank_alloc(r, count * 4, &recv_cpu[r]);
		send[r] = in_place ? recv[r] : rank_alloc(r, count * 4, &send_cpu[r]);
		if (in_place)
			send_cpu[r] = recv_cpu[r];
		for (size_t i = 0; i < count; i++) {
			if (dtype == TERN_FLOAT32)
				((float *)send_cpu[r])[i] = (float)value(r, i);
			else
				((int32_t *)send_cpu[r])[i] = value(r, i);
		}
		assert_ok(tern_event_create(cc.dev[r], &done[r]));
	}
	for (int r = 0; r < cc.n; r++) {
		assert_ok(tern_all_reduce(tern_ptr(send[r], 0), tern_ptr(recv[r], 0),
					  count, dtype, op, cc.comm[r],
					  cc.stream[r]));
		assert_ok(tern_event_record(done[r], cc.stream[r]));
	}
	for (int r = 0; r < cc.n; r++)
		assert_ok(tern_event_synchronize(done[r]));
	for (int r = 0; r < cc.n; r++) {
		for (size_t i = 0; i < count; i++) {
			int32_t want = value(0, i);
			float fwant;

			for (int p = 1; p < cc.n; p++)
				want = op == TERN_MAX ? (value(p, i) > want ?
							 value(p, i) : want) :
				       want + value(p, i);
			/* An average divides once: in float32, or truncating. */
			fwant = op == TERN_AVG ? (float)want / (float)cc.n :
						 (float)want;
			if (op == TERN_AVG)
				want /= cc.n;
			if (dtype == TERN_FLOAT32 ?
			    ((float *)recv_cpu[r])[i] != fwant :
			    ((int32_t *)recv_cpu[r])[i] != want)
				fail_msg("rank %d element %zu of %zu: want %d", r,
					 i, count, want);
		}
		assert_ok(tern_event_destroy(done[r]));
		if (!in_place)
			assert_ok(tern_buffer_free(send[r]));
		assert_ok(tern_buffer_free(recv[r]));
	}
}

static void test_all_reduce(void **state)
{
	static const size_t counts[] = { 0, 1, 1001, 300007 };

	(void)state;
	need_collectives();
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		all_reduce_case(counts[i], false, TERN_FLOAT32, TERN_SUM);
		all_reduce_case(counts[i], true, TERN_INT32, TERN_MAX);
		all_reduce_case(counts[i], i % 2, TERN_INT32, TERN_AVG);
		all_reduce_case(counts[i], !(i % 2), TERN_FLOAT32, TERN_AVG);
	}
}

/*
 * One communicator on two streams per rank, no event between, the same
 * order on every rank (frameworks rotate their streams): the second
 * all-reduce runs after the first, whichever stream each is on.
 */
static void test_order_across_streams(void **state)
{
	static const size_t counts[] = { 1, 300007 };
	tern_stream_t other[MAX_RANKS];
	tern_buffer_t buf[MAX_RANKS][2];
	uint8_t *cpu[MAX_RANKS][2];

	(void)state;
	need_collectives();
	for (int r = 0; r < cc.n; r++)
		assert_ok(tern_stream_create(cc.dev[r], &other[r]));
	for (size_t c = 0; c < 2; c++) {
		size_t count = counts[c];

		for (int r = 0; r < cc.n; r++) {
			for (int k = 0; k < 2; k++) {
				buf[r][k] = rank_alloc(r, count * 4, &cpu[r][k]);
				for (size_t i = 0; i < count; i++)
					((int32_t *)cpu[r][k])[i] =
						value(r, i) * (k + 1);
			}
		}
		for (int r = 0; r < cc.n; r++)
			for (int k = 0; k < 2; k++)
				assert_ok(tern_all_reduce(tern_ptr(buf[r][k], 0),
							  tern_ptr(buf[r][k], 0),
							  count, TERN_INT32,
							  TERN_SUM, cc.comm[r],
							  k ? other[r] :
							      cc.stream[r]));
		for (int r = 0; r < cc.n; r++) {
			assert_ok(tern_stream_synchronize(cc.stream[r]));
			assert_ok(tern_stream_synchronize(other[r]));
		}
		for (int r = 0; r < cc.n; r++) {
			for (int k = 0; k < 2; k++) {
				for (size_t i = 0; i < count; i++) {
					int32_t want = 0;

					for (int p = 0; p < cc.n; p++)
						want += value(p, i) * (k + 1);
					if (((int32_t *)cpu[r][k])[i] != want)
						fail_msg("%zu elements, call %d, rank %d element %zu: %d, want %d",
							 count, k, r, i,
							 ((int32_t *)cpu[r][k])[i],
							 want);
				}
				assert_ok(tern_buffer_free(buf[r][k]));
			}
		}
	}
	for (int r = 0; r < cc.n; r++)
		assert_ok(tern_stream_destroy(other[r]));
}

static void test_comm_queries(void **state)
{
	tern_comm_t one;
	int count, rank;

	(void)state;
	need_collectives();
	for (int r = 0; r < cc.n; r++) {
		assert_ok(tern_comm_count(cc.comm[r], &count));
		assert_ok(tern_comm_rank(cc.comm[r], &rank));
		assert_int_equal(count, cc.n);
		assert_int_equal(rank, r);
	}
	/* A communicator of one device: its collectives are local copies. */
	assert_ok(tern_comm_init_all(&one, 1, &cc.dev[0]));
	assert_ok(tern_comm_count(one, &count));
	assert_int_equal(count, 1);
	assert_ok(tern_comm_destroy(one));
	assert_status(tern_comm_destroy(one), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_count(one, &count), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_rank(NULL, &rank), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_count(cc.comm[0], NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
}

static void test_comm_init_errors(void **state)
{
	tern_device_t twice[2] = { cc.dev[0], cc.dev[0] };
	tern_device_t none[1] = { NULL };
	tern_comm_t comms[2];
	tern_unique_id_t id;

	(void)state;
	assert_status(tern_comm_init_all(NULL, 1, cc.dev),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_all(comms, 1, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_all(comms, 0, cc.dev),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_all(comms, -1, cc.dev),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_all(comms, 1, none),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_all(comms, 2, twice),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_get_unique_id(NULL), TERN_ERROR_INVALID_ARGUMENT);
	memset(&id, 0, sizeof(id));
	assert_status(tern_comm_init_rank(NULL, 1, &id, 0, cc.dev[0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_rank(comms, 2, &id, 2, cc.dev[0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_init_rank(comms, 1, NULL, 0, cc.dev[0]),
		      TERN_ERROR_INVALID_ARGUMENT);
}

/* Each of the other collectives once, at an odd count. */
static void test_every_collective(void **state)
{
	const size_t count = 777, bytes = count * 4, total = bytes * (size_t)cc.n;
	const int n = cc.n, root = n - 1;
	tern_buffer_t a[MAX_RANKS], b[MAX_RANKS];
	uint8_t *ac[MAX_RANKS], *bc[MAX_RANKS];

	(void)state;
	need_collectives();
	for (int r = 0; r < n; r++) {
		a[r] = rank_alloc(r, total, &ac[r]);
		b[r] = rank_alloc(r, total, &bc[r]);
		for (size_t i = 0; i < total / 4; i++)
			((int32_t *)ac[r])[i] = value(r, i);
	}

	/* all-gather of each rank's first piece */
	for (int r = 0; r < n; r++)
		assert_ok(tern_all_gather(tern_ptr(a[r], 0), tern_ptr(b[r], 0),
					  count, TERN_INT32, cc.comm[r],
					  cc.stream[r]));
	sync_all();
	for (int r = 0; r < n; r++)
		for (int p = 0; p < n; p++)
			assert_memory_equal(bc[r] + (size_t)p * bytes, ac[p], bytes);

	/* broadcast from the last rank */
	for (int r = 0; r < n; r++)
		assert_ok(tern_broadcast(tern_ptr(a[r], 0), tern_ptr(b[r], 0),
					 count, TERN_INT32, root, cc.comm[r],
					 cc.stream[r]));
	sync_all();
	for (int r = 0; r < n; r++)
		assert_memory_equal(bc[r], ac[root], bytes);

	/* all-to-all */
	for (int r = 0; r < n; r++)
		assert_ok(tern_all_to_all(tern_ptr(a[r], 0), tern_ptr(b[r], 0),
					  count, TERN_INT32, cc.comm[r],
					  cc.stream[r]));
	sync_all();
	for (int r = 0; r < n; r++)
		for (int p = 0; p < n; p++)
			assert_memory_equal(bc[r] + (size_t)p * bytes,
					    ac[p] + (size_t)r * bytes, bytes);

	/* reduce-scatter and reduce (sum) */
	for (int r = 0; r < n; r++) {
		assert_ok(tern_reduce_scatter(tern_ptr(a[r], 0), tern_ptr(b[r], 0),
					      count, TERN_INT32, TERN_SUM,
					      cc.comm[r], cc.stream[r]));
		assert_ok(tern_reduce(tern_ptr(a[r], 0), tern_ptr(b[r], bytes),
				      count, TERN_INT32, TERN_SUM, 0, cc.comm[r],
				      cc.stream[r]));
	}
	sync_all();
	for (int r = 0; r < n; r++) {
		for (size_t i = 0; i < count; i++) {
			int32_t want = 0, want0 = 0;

			for (int p = 0; p < n; p++) {
				want += value(p, (size_t)r * count + i);
				want0 += value(p, i);
			}
			assert_int_equal(((int32_t *)bc[r])[i], want);
			if (r == 0)
				assert_int_equal(((int32_t *)(bc[0] + bytes))[i],
						 want0);
		}
	}

	/* send/recv round the ranks, receives on a second stream */
	for (int r = 0; n > 1 && r < n; r++) {
		assert_ok(tern_send(tern_ptr(a[r], 0), count, TERN_INT32,
				    (r + 1) % n, cc.comm[r], cc.stream[r]));
		assert_ok(tern_recv(tern_ptr(b[r], 0), count, TERN_INT32,
				    (r + n - 1) % n, cc.comm[r], cc.stream2[r]));
	}
	sync_all();
	for (int r = 0; n > 1 && r < n; r++)
		assert_memory_equal(bc[r], ac[(r + n - 1) % n], bytes);

	for (int r = 0; r < n; r++) {
		assert_ok(tern_buffer_free(a[r]));
		assert_ok(tern_buffer_free(b[r]));
	}
}

/* Bad arguments: a status, nothing enqueued, the comm still in step. */
static void test_collective_errors(void **state)
{
	const tern_status_t EINVAL_ = TERN_ERROR_INVALID_ARGUMENT;
	tern_buffer_t buf, small;
	tern_comm_t c = cc.comm[0];
	tern_stream_t s = cc.stream[0];
	uint8_t *cpu;

	(void)state;
	need_collectives();
	buf = rank_alloc(0, 4096 * (size_t)cc.n, &cpu);
	small = rank_alloc(0, 8, &cpu);
	tern_ptr_t p = tern_ptr(buf, 0);

	assert_status(tern_all_reduce(p, p, 16, TERN_FLOAT32, TERN_SUM, NULL, s),
		      EINVAL_);
	assert_status(tern_all_reduce(p, p, 16, TERN_FLOAT32, TERN_SUM, c, NULL),
		      EINVAL_);
	assert_status(tern_all_reduce(p, p, 16, TERN_DTYPE_COUNT, TERN_SUM, c, s),
		      EINVAL_);
	assert_status(tern_all_reduce(p, p, 16, (tern_dtype_t)-1, TERN_SUM, c, s),
		      EINVAL_);
	assert_status(tern_all_reduce(p, p, 16, TERN_FLOAT32, TERN_REDOP_COUNT,
				      c, s), EINVAL_);
	assert_status(tern_all_reduce(p, tern_ptr(buf, 2), 16, TERN_FLOAT32,
				      TERN_SUM, c, s), EINVAL_);	/* misaligned */
	assert_status(tern_all_reduce(p, tern_ptr(small, 0), 16, TERN_FLOAT32,
				      TERN_SUM, c, s), TERN_ERROR_OUT_OF_RANGE);
	assert_status(tern_all_reduce(p, tern_ptr(buf, 0), SIZE_MAX / 2,
				      TERN_FLOAT32, TERN_SUM, c, s),
		      TERN_ERROR_OUT_OF_RANGE);
	assert_status(tern_all_reduce(p, tern_ptr(NULL, 0), 16, TERN_FLOAT32,
				      TERN_SUM, c, s), EINVAL_);
	assert_status(tern_broadcast(p, p, 16, TERN_INT32, -1, c, s), EINVAL_);
	assert_status(tern_broadcast(p, p, 16, TERN_INT32, cc.n, c, s), EINVAL_);
	assert_status(tern_reduce(p, p, 16, TERN_INT32, TERN_SUM, cc.n, c, s),
		      EINVAL_);
	assert_status(tern_send(p, 16, TERN_INT32, 0, c, s), EINVAL_);
	assert_status(tern_recv(p, 16, TERN_INT32, cc.n, c, s), EINVAL_);
	assert_status(tern_all_gather(p, tern_ptr(small, 0), 16, TERN_INT32, c, s),
		      TERN_ERROR_OUT_OF_RANGE);
	assert_status(tern_reduce_scatter(tern_ptr(small, 0), p, 16, TERN_INT32,
					  TERN_SUM, c, s), TERN_ERROR_OUT_OF_RANGE);
	if (cc.n > 1) {
		/* a stream and a buffer of another device */
		tern_buffer_t other;
		uint8_t *ocpu;

		assert_status(tern_all_reduce(p, p, 16, TERN_FLOAT32, TERN_SUM,
					      c, cc.stream[1]), EINVAL_);
		other = rank_alloc(1, 64, &ocpu);
		assert_status(tern_all_reduce(p, tern_ptr(other, 0), 16,
					      TERN_FLOAT32, TERN_SUM, c, s),
			      EINVAL_);
		assert_ok(tern_buffer_free(other));
		/* all-to-all in place would overwrite pieces before sending them */
		assert_status(tern_all_to_all(p, p, 16, TERN_INT32, c, s),
			      TERN_ERROR_NOT_SUPPORTED);
	}
	assert_ok(tern_buffer_free(small));
	assert_ok(tern_buffer_free(buf));
	assert_ok(tern_stream_synchronize(s));
	/* Nothing above was enqueued: a collective still matches up. */
	all_reduce_case(1001, false, TERN_INT32, TERN_SUM);
}

/* ---- one rank per process (kernel backend) ---- */

#define RANK_COUNT	100003

static void id_to_hex(const tern_unique_id_t *id, char *hex)
{
	for (size_t i = 0; i < sizeof(id->internal); i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)id->internal[i]);
}

static bool id_from_hex(const char *hex, tern_unique_id_t *id)
{
	if (strlen(hex) != 2 * sizeof(id->internal))
		return false;
	for (size_t i = 0; i < sizeof(id->internal); i++) {
		unsigned int byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return false;
		id->internal[i] = (char)byte;
	}
	return true;
}

/*
 * Mode "split": the ranks split by parity, ranked in reverse, and each
 * half all-reduces on its own communicator.
 */
static int split_child(tern_comm_t comm, tern_device_t dev,
		       tern_stream_t stream, tern_buffer_t buf, void *ptr,
		       int rank, int nranks)
{
	int32_t *cpu = ptr;
	tern_comm_t half;
	tern_status_t status;
	int sub_rank = -1, sub_count = 0;

	status = tern_comm_split(comm, rank % 2, -rank, &half);
	if (status) {
		fprintf(stderr, "rank %d: split: %s\n", rank,
			tern_status_name(status));
		return 10;
	}
	if (tern_comm_rank(half, &sub_rank) || tern_comm_count(half, &sub_count) ||
	    sub_count != (nranks - rank % 2 + 1) / 2 ||
	    sub_rank != (sub_count - 1) - rank / 2)
		return 11;
	for (size_t i = 0; i < RANK_COUNT; i++)
		cpu[i] = value(rank, i);
	status = tern_all_reduce(tern_ptr(buf, 0), tern_ptr(buf, 0), RANK_COUNT,
				 TERN_INT32, TERN_SUM, half, stream);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(stream);
	if (status) {
		fprintf(stderr, "rank %d: all-reduce on the half: %s\n", rank,
			tern_status_name(status));
		return 12;
	}
	for (size_t i = 0; i < RANK_COUNT; i++) {
		int32_t want = 0;

		for (int p = rank % 2; p < nranks; p += 2)
			want += value(p, i);
		if (cpu[i] != want) {
			fprintf(stderr, "rank %d: element %zu is %d, want %d\n",
				rank, i, cpu[i], want);
			return 13;
		}
	}
	if (tern_comm_destroy(half) || tern_comm_destroy(comm) ||
	    tern_device_close(dev))
		return 14;
	return 0;
}

/*
 * The child side of the one-rank-per-process test: joins, all-reduces and
 * checks. @mode is "all" (everyone takes part), "leave:V" (rank V leaves
 * right after joining) or "kill:V:R:G" (rank V enqueues its all-reduce,
 * which then waits for the others, says so on fd R and waits to be
 * killed; the others start only once fd G gives them a byte). When a rank
 * is missing, every other rank's all-reduce must fail with PEER_FAILED
 * (its process gone, its connection closed), not hang or time out; or,
 * when the killed rank's jobs did their part before they were ended, end
 * with the exact sum.
 */
int conformance_collective_rank_child(const char *hex, int rank, int nranks,
				      const char *mode)
{
	int victim = -1, ready_fd = -1, go_fd = -1;
	bool killed_late;
	tern_unique_id_t id;
	tern_device_t dev;
	tern_stream_t stream;
	tern_buffer_t buf;
	tern_comm_t comm;
	tern_status_t status;
	int32_t *cpu;
	void *ptr;
	char byte = 1;

	if (sscanf(mode, "kill:%d:%d:%d", &victim, &ready_fd, &go_fd) != 3 &&
	    sscanf(mode, "leave:%d", &victim) != 1 && strcmp(mode, "all") != 0 &&
	    strcmp(mode, "split") != 0)
		return 2;
	if (!id_from_hex(hex, &id) || tern_device_open(rank, &dev) ||
	    tern_stream_create(dev, &stream) ||
	    tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, RANK_COUNT * 4, &buf) ||
	    tern_buffer_map(buf, &ptr))
		return 2;
	status = tern_comm_init_rank(&comm, nranks, &id, rank, dev);
	if (status) {
		fprintf(stderr, "rank %d: init_rank: %s\n", rank,
			tern_status_name(status));
		return 3;
	}
	if (rank == victim && go_fd < 0)
		_exit(0);	/* gone without a word */
	if (strcmp(mode, "split") == 0)
		return split_child(comm, dev, stream, buf, ptr, rank, nranks);
	cpu = ptr;
	for (size_t i = 0; i < RANK_COUNT; i++)
		cpu[i] = value(rank, i);
	if (go_fd >= 0 && rank != victim && read(go_fd, &byte, 1) != 1)
		return 9;
	status = tern_all_reduce(tern_ptr(buf, 0), tern_ptr(buf, 0), RANK_COUNT,
				 TERN_INT32, TERN_SUM, comm, stream);
	/* A rank that has already learnt of the loss refuses the call. */
	if (status && (victim < 0 || status != TERN_ERROR_PEER_FAILED)) {
		fprintf(stderr, "rank %d: all-reduce: %s\n", rank,
			tern_status_name(status));
		return 4;
	}
	if (status)
		return tern_comm_destroy(comm) == TERN_ERROR_PEER_FAILED &&
		       tern_device_close(dev) == TERN_SUCCESS ? 0 : 8;
	if (rank == victim) {
		if (write(ready_fd, &byte, 1) != 1)
			return 9;
		for (;;)
			pause();	/* killed here, mid-collective */
	}
	status = tern_stream_synchronize(stream);
	/*
	 * The killed rank's jobs end at their next step, not at once: one
	 * that was far enough along may still have done its part, and then
	 * the others end with the whole sum, which must be exact.
	 */
	killed_late = go_fd >= 0 && status == TERN_SUCCESS;
	if (victim >= 0 && !killed_late) {
		/* Told of the loss, not left to the job timeout. */
		if (status != TERN_ERROR_PEER_FAILED &&
		    status != TERN_ERROR_NO_ROUTE &&
		    status != TERN_ERROR_CANCELLED) {
			fprintf(stderr, "rank %d: all-reduce: %s, want PEER_FAILED\n",
				rank, tern_status_name(status));
			return 5;
		}
		/* A comm in error stays so: destroy says it too. */
		if (tern_comm_destroy(comm) == TERN_SUCCESS)
			return 8;
		return tern_device_close(dev) ? 8 : 0;
	} else if (status) {
		fprintf(stderr, "rank %d: all-reduce: %s\n", rank,
			tern_status_name(status));
		return 6;
	} else {
		for (size_t i = 0; i < RANK_COUNT; i++) {
			int32_t want = 0;

			for (int p = 0; p < nranks; p++)
				want += value(p, i);
			if (cpu[i] != want) {
				fprintf(stderr, "rank %d: element %zu is %d, want %d\n",
					rank, i, cpu[i], want);
				return 7;
			}
		}
	}
	status = tern_comm_destroy(comm);
	/* ... by then the comm may have learnt of the loss */
	if ((status && !(killed_late && status == TERN_ERROR_PEER_FAILED)) ||
	    tern_device_close(dev))
		return 8;
	return 0;
}

/*
 * Waits (10 s at most) until device @r has @before bytes in use again: the
 * contexts of the ranks on it are closed and their jobs have ended.
 */
static void wait_released(int r, uint64_t before, const char *mode)
{
	uint64_t used = 0, total;

	for (int tries = 0; tries < 1000; tries++) {
		assert_ok(tern_device_memory_usage(cc.dev[r], &used, &total));
		if (used == before)
			return;
		usleep(10000);
	}
	fail_msg("device %d (%s): %llu bytes in use, %llu before", r, mode,
		 (unsigned long long)used, (unsigned long long)before);
}

/*
 * Runs @n ranks as processes; each must exit 0. @victim (-1: none) leaves
 * after joining, or with @kill is killed in the middle of the all-reduce.
 */
static void run_rank_processes(int n, int victim, bool kill_it, bool split)
{
	uint64_t before[MAX_RANKS], total;
	tern_unique_id_t id;
	char hex[2 * TERN_UNIQUE_ID_BYTES + 1], mode[64];
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 };
	pid_t pids[MAX_RANKS] = { 0 };
	char byte = 1;

	for (int r = 0; r < n; r++)
		assert_ok(tern_device_memory_usage(cc.dev[r], &before[r], &total));
	assert_ok(tern_get_unique_id(&id));
	id_to_hex(&id, hex);
	if (kill_it) {
		assert_int_equal(pipe(ready), 0);
		assert_int_equal(pipe(go), 0);
		snprintf(mode, sizeof(mode), "kill:%d:%d:%d", victim, ready[1],
			 go[0]);
	} else if (victim >= 0) {
		snprintf(mode, sizeof(mode), "leave:%d", victim);
	} else if (split) {
		snprintf(mode, sizeof(mode), "split");
	} else {
		snprintf(mode, sizeof(mode), "all");
	}
	fflush(NULL);
	for (int r = 0; r < n; r++) {
		char rank[16], count[16];

		snprintf(rank, sizeof(rank), "%d", r);
		snprintf(count, sizeof(count), "%d", n);
		pids[r] = fork();
		assert_true(pids[r] >= 0);
		if (pids[r] == 0) {
			execl("/proc/self/exe", "test_conformance", "--coll-rank",
			      hex, rank, count, mode, (char *)NULL);
			_exit(127);
		}
	}
	if (kill_it) {
		int status;

		/* The victim's all-reduce is enqueued and waiting for ours. */
		assert_int_equal(read(ready[0], &byte, 1), 1);
		assert_int_equal(kill(pids[victim], SIGKILL), 0);
		assert_int_equal(waitpid(pids[victim], &status, 0), pids[victim]);
		for (int r = 0; r < n - 1; r++)
			assert_int_equal(write(go[1], &byte, 1), 1);
	}
	for (int r = 0; r < n; r++) {
		int status;

		if (kill_it && r == victim)
			continue;
		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("rank %d of %d (%s): exit status 0x%x", r, n,
				 mode, status);
	}
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	/*
	 * Nothing of the ranks is left, the killed one's included (its jobs
	 * may take a moment to be reaped).
	 */
	for (int r = 0; r < n; r++)
		wait_released(r, before[r], mode);
}

/*
 * Rank 1 never comes: rank 0's init gives up with PEER_FAILED after
 * TERN_COMM_INIT_TIMEOUT_MS, and refuses a timeout that is not a number.
 */
static void init_rank_alone(void)
{
	tern_unique_id_t id;
	tern_comm_t comm;
	struct timespec t0, t1;

	assert_ok(tern_get_unique_id(&id));
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "soon", 1);
	assert_status(tern_comm_init_rank(&comm, 2, &id, 0, cc.dev[0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "300", 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_status(tern_comm_init_rank(&comm, 2, &id, 0, cc.dev[0]),
		      TERN_ERROR_PEER_FAILED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	unsetenv("TERN_COMM_INIT_TIMEOUT_MS");
	/* Far below the 30 s default: the setting was used. */
	assert_true(t1.tv_sec - t0.tv_sec < 20);
}

static void test_one_rank_per_process(void **state)
{
	(void)state;
	need_collectives();
	run_rank_processes(cc.n < 8 ? cc.n : 8, -1, false, false);
	if (cc.n >= 2) {
		init_rank_alone();
		run_rank_processes(cc.n < 8 ? cc.n : 8, 1, false, false);
		run_rank_processes(cc.n < 8 ? cc.n : 8, 1, true, false);
		run_rank_processes(cc.n < 8 ? cc.n : 8, -1, false, true);
	}
}

int conformance_collective_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_queries),
		cmocka_unit_test(test_comm_init_errors),
		cmocka_unit_test(test_all_reduce),
		cmocka_unit_test(test_order_across_streams),
		cmocka_unit_test(test_every_collective),
		cmocka_unit_test(test_collective_errors),
		cmocka_unit_test(test_one_rank_per_process),
	};

	return cmocka_run_group_tests_name("collectives", tests, coll_open,
					   coll_close);
}
