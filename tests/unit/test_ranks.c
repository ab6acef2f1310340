// SPDX-License-Identifier: MIT
/*
 * Every collective with one rank per process on the simulated machine, as
 * torchrun and mpirun run them: 2 to 16 processes, each joining through
 * tern_get_unique_id and tern_comm_init_rank, checked against a reference
 * computed here; and the same collectives run by one process holding every
 * rank (tern_comm_init_all) move exactly the same bytes and packets over
 * every link of the machine.
 *
 * This program holds machine "ranks-PID" (16 devices, torus:4x4) for the
 * whole run; the ranks are this program again (--rank HEX RANK COUNT).
 *
 * And the bootstrap the ranks meet through: strangers at rank 0's port
 * hold no one up, TERN_SOCKET_IFNAME chooses its address, a caller's
 * timeout bounds the wait for absent ranks, an id whose address is
 * garbage is refused.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "tern.h"

#define DEVICES		16
#define MAX_PORTS	8
#define COUNT		1001	/* elements per piece: no rank's share is even */

enum coll_kind {
	COLL_ALL_REDUCE,
	COLL_ALL_REDUCE_MAX,
	COLL_ALL_GATHER,
	COLL_REDUCE_SCATTER,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_ALL_TO_ALL,
	COLL_SEND_RECV,
	COLL_KIND_COUNT,
};

static const char *const coll_names[COLL_KIND_COUNT] = {
	"all-reduce sum", "all-reduce max", "all-gather", "reduce-scatter",
	"broadcast", "reduce", "all-to-all", "send/recv",
};

/* One rank's part: its device, streams and buffers. */
struct rank {
	int rank, nranks;
	tern_device_t dev;
	tern_stream_t stream, stream2;
	tern_comm_t comm;
	tern_buffer_t send, recv;
	int32_t *send_cpu, *recv_cpu;
};

/* Small values: every sum is exact, in int32 and in float32 alike. */
static int32_t value(int rank, size_t i)
{
	return (int32_t)((rank + 1) * 1000 + (int)(i % 997));
}

static tern_status_t rank_open(struct rank *r, int rank, int nranks)
{
	const size_t bytes = (size_t)nranks * COUNT * 4;
	tern_status_t s;
	void *cpu;

	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->nranks = nranks;
	s = tern_device_open(rank, &r->dev);
	if (!s)
		s = tern_stream_create(r->dev, &r->stream);
	if (!s)
		s = tern_stream_create(r->dev, &r->stream2);
	if (!s)
		s = tern_buffer_alloc(r->dev, TERN_MEMORY_DEVICE, bytes, &r->send);
	if (!s)
		s = tern_buffer_alloc(r->dev, TERN_MEMORY_DEVICE, bytes, &r->recv);
	if (!s)
		s = tern_buffer_map(r->send, &cpu);
	if (!s) {
		r->send_cpu = cpu;
		s = tern_buffer_map(r->recv, &cpu);
	}
	if (s)
		return s;
	r->recv_cpu = cpu;
	return TERN_SUCCESS;
}

static void rank_close(struct rank *r)
{
	tern_comm_destroy(r->comm);
	tern_buffer_free(r->send);
	tern_buffer_free(r->recv);
	tern_stream_destroy(r->stream2);
	tern_stream_destroy(r->stream);
	tern_device_close(r->dev);
}

/* Enqueues rank @r's part of collective @kind, its result cleared first. */
static tern_status_t coll_enqueue(struct rank *r, enum coll_kind kind)
{
	tern_ptr_t send = tern_ptr(r->send, 0), recv = tern_ptr(r->recv, 0);
	const int n = r->nranks;
	float *fsend = (float *)r->send_cpu;

	memset(r->recv_cpu, 0xa5, (size_t)n * COUNT * 4);
	for (size_t i = 0; i < (size_t)n * COUNT; i++)
		r->send_cpu[i] = value(r->rank, i);
	switch (kind) {
	case COLL_ALL_REDUCE:
		return tern_all_reduce(send, recv, COUNT, TERN_INT32, TERN_SUM,
				       r->comm, r->stream);
	case COLL_ALL_REDUCE_MAX:
		for (size_t i = 0; i < COUNT; i++)
			fsend[i] = (float)value(r->rank, i);
		return tern_all_reduce(send, recv, COUNT, TERN_FLOAT32,
				       TERN_MAX, r->comm, r->stream);
	case COLL_ALL_GATHER:
		return tern_all_gather(send, recv, COUNT, TERN_INT32, r->comm,
				       r->stream);
	case COLL_REDUCE_SCATTER:
		return tern_reduce_scatter(send, recv, COUNT, TERN_INT32,
					   TERN_SUM, r->comm, r->stream);
	case COLL_BROADCAST:
		return tern_broadcast(send, recv, COUNT, TERN_INT32, n - 1,
				      r->comm, r->stream);
	case COLL_REDUCE:
		return tern_reduce(send, recv, COUNT, TERN_INT32, TERN_SUM, 0,
				   r->comm, r->stream);
	case COLL_ALL_TO_ALL:
		return tern_all_to_all(send, recv, COUNT, TERN_INT32, r->comm,
				       r->stream);
	case COLL_SEND_RECV: {
		tern_status_t s = tern_send(send, COUNT, TERN_INT32,
					    (r->rank + 1) % n, r->comm,
					    r->stream);

		return s ? s : tern_recv(recv, COUNT, TERN_INT32,
					 (r->rank + n - 1) % n, r->comm,
					 r->stream2);
	}
	default:
		return TERN_ERROR_INVALID_ARGUMENT;
	}
}

static tern_status_t coll_wait(struct rank *r)
{
	tern_status_t s = tern_stream_synchronize(r->stream);

	return s ? s : tern_stream_synchronize(r->stream2);
}

/* The element rank @r should hold at @i after @kind. */
static int32_t coll_want(const struct rank *r, enum coll_kind kind, size_t i)
{
	const int n = r->nranks;
	int32_t sum = 0;

	switch (kind) {
	case COLL_ALL_REDUCE:
	case COLL_REDUCE:
		for (int p = 0; p < n; p++)
			sum += value(p, i);
		return sum;
	case COLL_ALL_REDUCE_MAX:
		return value(n - 1, i);
	case COLL_ALL_GATHER:
		return value((int)(i / COUNT), i % COUNT);
	case COLL_REDUCE_SCATTER:
		for (int p = 0; p < n; p++)
			sum += value(p, (size_t)r->rank * COUNT + i);
		return sum;
	case COLL_BROADCAST:
		return value(n - 1, i);
	case COLL_ALL_TO_ALL:
		return value((int)(i / COUNT), (size_t)r->rank * COUNT + i % COUNT);
	case COLL_SEND_RECV:
		return value((r->rank + n - 1) % n, i);
	default:
		return 0;
	}
}

/* 0 if rank @r holds the exact answer of @kind; else says where not. */
static int coll_check(const struct rank *r, enum coll_kind kind)
{
	size_t len = kind == COLL_ALL_GATHER || kind == COLL_ALL_TO_ALL ?
		     (size_t)r->nranks * COUNT : COUNT;

	if (kind == COLL_REDUCE && r->rank != 0)
		return 0;	/* only the root receives */
	for (size_t i = 0; i < len; i++) {
		int32_t got = r->recv_cpu[i], want = coll_want(r, kind, i);

		if (kind == COLL_ALL_REDUCE_MAX)
			got = (int32_t)((float *)r->recv_cpu)[i];
		if (got != want) {
			fprintf(stderr, "rank %d of %d, %s: element %zu is %d, "
				"want %d\n", r->rank, r->nranks,
				coll_names[kind], i, got, want);
			return 1;
		}
	}
	return 0;
}

/* ---- a rank in a process of its own ---- */

/* Rank @rank of @nranks runs every collective; an exit status. */
static int rank_run(const tern_unique_id_t *id, int rank, int nranks)
{
	struct rank r;
	tern_status_t s;

	s = rank_open(&r, rank, nranks);
	if (!s)
		s = tern_comm_init_rank(&r.comm, nranks, id, rank, r.dev);
	if (s) {
		fprintf(stderr, "rank %d: setting up: %s (%s)\n", rank,
			tern_status_name(s), tern_get_last_error());
		return 3;
	}
	for (int k = 0; k < COLL_KIND_COUNT; k++) {
		s = coll_enqueue(&r, k);
		if (!s)
			s = coll_wait(&r);
		if (s) {
			fprintf(stderr, "rank %d of %d, %s: %s\n", rank, nranks,
				coll_names[k], tern_status_name(s));
			return 4;
		}
		if (coll_check(&r, k))
			return 5;
	}
	rank_close(&r);
	return 0;
}

static int rank_main(const char *hex, int rank, int nranks)
{
	tern_unique_id_t id;

	if (strlen(hex) != 2 * sizeof(id.internal))
		return 2;
	for (size_t i = 0; i < sizeof(id.internal); i++) {
		unsigned int byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return 2;
		id.internal[i] = (char)byte;
	}
	return rank_run(&id, rank, nranks);
}

/* ---- the parent ---- */

static tern_device_t all_dev[DEVICES];

/* Bytes and packets each port of the machine has sent, all ports. */
struct link_counts {
	uint64_t tx_bytes[DEVICES][MAX_PORTS];
	uint64_t tx_packets[DEVICES][MAX_PORTS];
};

static void links_read(struct link_counts *c)
{
	tern_port_info_t ports[MAX_PORTS];
	uint32_t n;

	memset(c, 0, sizeof(*c));
	for (int d = 0; d < DEVICES; d++) {
		assert_int_equal(tern_device_get_ports(all_dev[d], ports,
						       MAX_PORTS, &n), 0);
		for (uint32_t p = 0; p < n && p < MAX_PORTS; p++) {
			c->tx_bytes[d][p] = ports[p].tx_bytes;
			c->tx_packets[d][p] = ports[p].tx_packets;
		}
	}
}

/* @after - @before into @delta. */
static void links_delta(const struct link_counts *before,
			const struct link_counts *after,
			struct link_counts *delta)
{
	for (int d = 0; d < DEVICES; d++) {
		for (int p = 0; p < MAX_PORTS; p++) {
			delta->tx_bytes[d][p] = after->tx_bytes[d][p] -
						before->tx_bytes[d][p];
			delta->tx_packets[d][p] = after->tx_packets[d][p] -
						  before->tx_packets[d][p];
		}
	}
}

/* Every collective with @n ranks in this process; the links' traffic. */
static void run_in_one_process(int n, struct link_counts *traffic)
{
	struct rank r[DEVICES];
	struct link_counts before, after;
	tern_device_t devs[DEVICES] = { 0 };
	tern_comm_t comms[DEVICES];

	for (int i = 0; i < n; i++) {
		assert_int_equal(rank_open(&r[i], i, n), 0);
		devs[i] = r[i].dev;
	}
	assert_int_equal(tern_comm_init_all(comms, n, devs), 0);
	for (int i = 0; i < n; i++)
		r[i].comm = comms[i];
	links_read(&before);
	for (int k = 0; k < COLL_KIND_COUNT; k++) {
		for (int i = 0; i < n; i++)
			assert_int_equal(coll_enqueue(&r[i], k), 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(coll_wait(&r[i]), 0);
		for (int i = 0; i < n; i++)
			if (coll_check(&r[i], k))
				fail_msg("%s with %d ranks in one process",
					 coll_names[k], n);
	}
	links_read(&after);
	links_delta(&before, &after, traffic);
	for (int i = 0; i < n; i++)
		rank_close(&r[i]);
}

/* Ranks @first..@n-1 of @id's comm, each a process of its own. */
static void spawn_ranks(const tern_unique_id_t *id, int first, int n,
			pid_t *pids)
{
	char hex[2 * TERN_UNIQUE_ID_BYTES + 1];

	for (size_t i = 0; i < sizeof(id->internal); i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)id->internal[i]);
	fflush(NULL);
	for (int i = first; i < n; i++) {
		char rank[16], count[16];

		snprintf(rank, sizeof(rank), "%d", i);
		snprintf(count, sizeof(count), "%d", n);
		pids[i] = fork();
		if (pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			execl("/proc/self/exe", "test_ranks", "--rank", hex,
			      rank, count, (char *)NULL);
			_exit(127);
		}
	}
}

/* Waits for ranks @first..@n-1; fails unless each exited 0. */
static void wait_ranks(int first, int n, const pid_t *pids)
{
	for (int i = first; i < n; i++) {
		int status;

		assert_true(pids[i] > 0);
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("rank %d of %d processes: exit status 0x%x", i,
				 n, status);
	}
}

/* The same with a process per rank; the links' traffic meanwhile. */
static void run_in_processes(int n, struct link_counts *traffic)
{
	struct link_counts before, after;
	tern_unique_id_t id;
	pid_t pids[DEVICES];

	/* Made here, in no rank's process: rank 0 binds the port beside us. */
	assert_int_equal(tern_get_unique_id(&id), 0);
	links_read(&before);
	spawn_ranks(&id, 0, n, pids);
	wait_ranks(0, n, pids);
	links_read(&after);
	links_delta(&before, &after, traffic);
}

static void ranks_case(int n)
{
	struct link_counts one, many;
	uint64_t moved = 0;

	run_in_one_process(n, &one);
	run_in_processes(n, &many);
	for (int d = 0; d < DEVICES; d++) {
		for (int p = 0; p < MAX_PORTS; p++) {
			moved += one.tx_bytes[d][p];
			if (one.tx_bytes[d][p] != many.tx_bytes[d][p] ||
			    one.tx_packets[d][p] != many.tx_packets[d][p])
				fail_msg("%d ranks: device %d port %d sent %llu "
					 "bytes in %llu packets from one "
					 "process, %llu in %llu from %d", n, d,
					 p,
					 (unsigned long long)one.tx_bytes[d][p],
					 (unsigned long long)one.tx_packets[d][p],
					 (unsigned long long)many.tx_bytes[d][p],
					 (unsigned long long)many.tx_packets[d][p],
					 n);
		}
	}
	/* The collectives went over the fabric, not around it. */
	assert_true(moved > 0);
}

static void test_2_ranks(void **state) { (void)state; ranks_case(2); }
static void test_3_ranks(void **state) { (void)state; ranks_case(3); }
static void test_4_ranks(void **state) { (void)state; ranks_case(4); }
static void test_7_ranks(void **state) { (void)state; ranks_case(7); }
static void test_8_ranks(void **state) { (void)state; ranks_case(8); }
static void test_16_ranks(void **state) { (void)state; ranks_case(16); }

/* ---- the bootstrap ---- */

/*
 * What the id carries (coll/trust/id.c): its secret and tag, then rank 0's
 * address.
 */
struct id_address {
	char magic[8];
	uint8_t secret[32], tag[16];
	uint16_t family, port;		/* port in network order */
	uint8_t addr[16];
};

static socklen_t id_sockaddr(const tern_unique_id_t *id,
			     struct sockaddr_storage *ss)
{
	const struct id_address *a = (const void *)id->internal;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *in = (void *)ss;

		in->sin_family = AF_INET;
		in->sin_port = a->port;
		memcpy(&in->sin_addr, a->addr, 4);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (void *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = a->port;
	memcpy(&in6->sin6_addr, a->addr, 16);
	return sizeof(*in6);
}

/* Connections to rank 0 that are no rank, made before any rank's. */
struct strangers {
	tern_unique_id_t id;
	int n;
	pid_t *pids;
	int fd[3];
	int hold[2];	/* the ranks die with this thread: it waits here */
};

static void *strangers_main(void *arg)
{
	struct strangers *st = arg;
	struct sockaddr_storage ss;
	socklen_t len = id_sockaddr(&st->id, &ss);
	char junk[512];

	for (int i = 0; i < 3; i++) {
		/* Refused until rank 0 listens, once its init has begun. */
		for (int tries = 0; tries < 1000; tries++) {
			st->fd[i] = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
					   0);
			if (connect(st->fd[i], (struct sockaddr *)&ss, len) == 0)
				break;
			close(st->fd[i]);
			st->fd[i] = -1;
			usleep(5000);
		}
	}
	memset(junk, 'x', sizeof(junk));
	/* One says nothing, one half a word, one a lot of nonsense. */
	if (st->fd[1] >= 0 && write(st->fd[1], "tern", 4) != 4)
		close(st->fd[1]);
	if (st->fd[2] >= 0 && write(st->fd[2], junk, sizeof(junk)) < 0)
		close(st->fd[2]);
	spawn_ranks(&st->id, 1, st->n, st->pids);
	if (read(st->hold[0], junk, 1) < 0)
		return NULL;
	return NULL;
}

/*
 * Rank 0, in the process that made the id, meets its ranks although three
 * strangers connected first and never said hello: none of them holds it
 * up until the init timeout.
 */
static void test_strangers_first(void **state)
{
	struct strangers st = { .n = 4 };
	pid_t pids[4] = { 0 };
	pthread_t thread;
	int status;

	(void)state;
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "10000", 1);
	assert_int_equal(tern_get_unique_id(&st.id), 0);
	st.pids = pids;
	assert_int_equal(pipe(st.hold), 0);
	assert_int_equal(pthread_create(&thread, NULL, strangers_main, &st), 0);
	status = rank_run(&st.id, 0, st.n);
	wait_ranks(1, st.n, pids);
	assert_int_equal(write(st.hold[1], "", 1), 1);
	assert_int_equal(pthread_join(thread, NULL), 0);
	unsetenv("TERN_COMM_INIT_TIMEOUT_MS");
	close(st.hold[0]);
	close(st.hold[1]);
	for (int i = 0; i < 3; i++) {
		assert_true(st.fd[i] >= 0);
		close(st.fd[i]);
	}
	assert_int_equal(status, 0);
}

/* TERN_SOCKET_IFNAME chooses the interface the id carries. */
static void test_socket_ifname(void **state)
{
	const struct id_address *a;
	const uint8_t loopback[4] = { 127, 0, 0, 1 };
	tern_unique_id_t id;
	tern_status_t s;
	pid_t pids[2] = { 0 };

	(void)state;
	a = (const void *)id.internal;
	setenv("TERN_SOCKET_IFNAME", "=lo", 1);
	assert_int_equal(tern_get_unique_id(&id), 0);
	assert_int_equal(a->family, AF_INET);
	assert_memory_equal(a->addr, loopback, 4);
	spawn_ranks(&id, 1, 2, pids);
	assert_int_equal(rank_run(&id, 0, 2), 0);
	wait_ranks(1, 2, pids);

	/* Everything but loopback: another address, or none at all. */
	setenv("TERN_SOCKET_IFNAME", "^lo", 1);
	s = tern_get_unique_id(&id);
	if (s == TERN_SUCCESS)
		assert_memory_not_equal(a->addr, loopback, 4);
	else
		assert_int_equal(s, TERN_ERROR_INVALID_ARGUMENT);

	setenv("TERN_SOCKET_IFNAME", "nosuch0,=l", 1);
	assert_int_equal(tern_get_unique_id(&id),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(tern_get_last_error(),
			       "TERN_SOCKET_IFNAME=nosuch0,=l"));
	unsetenv("TERN_SOCKET_IFNAME");
}

/*
 * No rank 0 at the id's address, and an address nothing answers at: the
 * other ranks give up with PEER_FAILED after TERN_COMM_INIT_TIMEOUT_MS,
 * saying where they looked.
 */
static void test_no_rank_zero(void **state)
{
	const uint8_t nowhere[4] = { 203, 0, 113, 7 };	/* TEST-NET-3 */
	struct id_address *a;
	tern_unique_id_t id;
	tern_comm_t comm;
	time_t start;

	(void)state;
	a = (void *)id.internal;
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "300", 1);
	assert_int_equal(tern_get_unique_id(&id), 0);
	start = time(NULL);
	assert_int_equal(tern_comm_init_rank(&comm, 2, &id, 1, all_dev[1]),
			 TERN_ERROR_PEER_FAILED);
	assert_non_null(strstr(tern_get_last_error(), "found no rank 0 at"));
	a->family = AF_INET;
	memcpy(a->addr, nowhere, sizeof(nowhere));
	assert_int_equal(tern_comm_init_rank(&comm, 2, &id, 1, all_dev[1]),
			 TERN_ERROR_PEER_FAILED);
	assert_non_null(strstr(tern_get_last_error(), "203.0.113.7"));
	unsetenv("TERN_COMM_INIT_TIMEOUT_MS");
	/* Far below the 30 s default: the setting was used. */
	assert_true(time(NULL) - start < 20);
}

/*
 * tern_comm_init_rank_timeout: a timeout out of range is refused; rank 0
 * of two alone, and rank 1 with no rank 0, give up with PEER_FAILED at
 * the caller's timeout, TERN_COMM_INIT_TIMEOUT_MS (here not even a
 * number) unread.
 */
static void test_init_timeout_argument(void **state)
{
	const int bad[] = { 0, -1, TERN_COMM_INIT_TIMEOUT_MAX_MS + 1 };
	tern_unique_id_t id;
	tern_comm_t comm;
	time_t start;

	(void)state;
	assert_int_equal(tern_get_unique_id(&id), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(tern_comm_init_rank_timeout(&comm, 2, &id, 0,
							     all_dev[0], bad[i]),
				 TERN_ERROR_INVALID_ARGUMENT);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "soon", 1);
	assert_int_equal(tern_comm_init_rank(&comm, 2, &id, 0, all_dev[0]),
			 TERN_ERROR_INVALID_ARGUMENT);
	start = time(NULL);
	assert_int_equal(tern_comm_init_rank_timeout(&comm, 2, &id, 0,
						     all_dev[0], 300),
			 TERN_ERROR_PEER_FAILED);
	assert_non_null(strstr(tern_get_last_error(), "1 of 2 ranks came"));
	assert_int_equal(tern_get_unique_id(&id), 0);
	assert_int_equal(tern_comm_init_rank_timeout(&comm, 2, &id, 1,
						     all_dev[1], 300),
			 TERN_ERROR_PEER_FAILED);
	unsetenv("TERN_COMM_INIT_TIMEOUT_MS");
	/* Far below the 30 s default: the argument was used. */
	assert_true(time(NULL) - start < 20);
}

/* An id whose address is not one is refused before anyone waits. */
static void test_void_address(void **state)
{
	struct id_address *a;
	tern_unique_id_t id;
	tern_comm_t comm;

	(void)state;
	a = (void *)id.internal;
	assert_int_equal(tern_get_unique_id(&id), 0);
	a->family = 99;
	assert_int_equal(tern_comm_init_rank(&comm, 2, &id, 1, all_dev[1]),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(tern_comm_init_rank(&comm, 2, &id, 0, all_dev[0]),
			 TERN_ERROR_INVALID_ARGUMENT);
}

static int open_all(void **state)
{
	(void)state;
	for (int d = 0; d < DEVICES; d++)
		if (tern_device_open(d, &all_dev[d]))
			return -1;
	return 0;
}

static int close_all(void **state)
{
	(void)state;
	for (int d = 0; d < DEVICES; d++)
		tern_device_close(all_dev[d]);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2_ranks),
		cmocka_unit_test(test_3_ranks),
		cmocka_unit_test(test_4_ranks),
		cmocka_unit_test(test_7_ranks),
		cmocka_unit_test(test_8_ranks),
		cmocka_unit_test(test_16_ranks),
		cmocka_unit_test(test_strangers_first),
		cmocka_unit_test(test_socket_ifname),
		cmocka_unit_test(test_no_rank_zero),
		cmocka_unit_test(test_init_timeout_argument),
		cmocka_unit_test(test_void_address),
	};
	static char dir[] = "/tmp/tern-ranks.XXXXXX";
	char name[64];

	if (argc == 5 && strcmp(argv[1], "--rank") == 0)
		return rank_main(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!getenv("TERN_SIM_DIR")) {
		if (!mkdtemp(dir))
			return 1;
		setenv("TERN_SIM_DIR", dir, 1);
	}
	snprintf(name, sizeof(name), "ranks-%d", (int)getpid());
	setenv("TERN_SIM_MACHINE", name, 1);
	setenv("TERN_BACKEND", "sim", 1);
	setenv("TERN_SIM_DEVICES", "16", 1);
	setenv("TERN_SIM_TOPOLOGY", "torus:4x4", 1);
	setenv("TERN_SIM_MEM_MB", "64", 1);
	return cmocka_run_group_tests_name("ranks", tests, open_all,
					   close_all) ? 1 : 0;
}
