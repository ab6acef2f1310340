// SPDX-License-Identifier: MIT
/*
 * The network seam over libfabric, on the providers any machine has: tcp
 * (over the loopback) and shm. Two endpoints in this process play two
 * hosts (a third, a second sender): connections both ways, two senders'
 * connections of one number kept apart, messages of 0, 1, odd and large
 * sizes in order, receives posted before and after their sends, the
 * counters, what
 * the seam refuses, a receive too short for its message, a peer that has
 * gone, and a provider that does not exist.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "net/net.h"
#include "tern.h"

#define NET (&tern_net_ofi)
#define WAIT_MS		20000	/* "did not hang", not a speed */
#define BIG		(4u << 20)

struct pair {
	const char *provider;
	struct tern_net *a, *b;
	struct tern_net_listen *listen;		/* on b */
	struct tern_net_comm *send, *recv;	/* a to b */
	uint8_t *src, *dst;
	struct tern_net_mr *src_mr, *dst_mr;
};

/*
 * Tests @req until it ends; its status, and its length in *@len. Both
 * endpoints live in this thread, so each wait drives the other too.
 */
static tern_status_t finish2(struct tern_net *net, struct tern_net *other,
			     struct tern_net_req *req, size_t *len)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	bool done = false;
	tern_status_t status;

	for (;;) {
		status = NET->test(req, &done, len);
		if (done || status)
			return status;
		assert_true(now_ms() < deadline);
		if (other)
			NET->wait(other, 0);
		NET->wait(net, 1);
	}
}

static tern_status_t finish(struct pair *p, struct tern_net_req *req,
			    size_t *len)
{
	return finish2(p->a, p->b, req, len);
}

static struct tern_net_comm *accept_one(struct tern_net *net,
					struct tern_net *other,
					struct tern_net_listen *listen)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	struct tern_net_comm *comm = NULL;
	tern_status_t status;

	while ((status = NET->accept(listen, &comm)) == TERN_ERROR_NOT_READY) {
		assert_true(now_ms() < deadline);
		NET->wait(other, 0);
		NET->wait(net, 1);
	}
	assert_int_equal(status, TERN_SUCCESS);
	return comm;
}

static int pair_setup(void **state, const char *provider)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct tern_net_handle handle;

	assert_non_null(p);
	p->provider = provider;
	setenv("FI_TCP_IFACE", "lo", 1);
	assert_int_equal(NET->open(&p->a), TERN_SUCCESS);
	assert_int_equal(NET->open(&p->b), TERN_SUCCESS);
	assert_non_null(strstr(NET->describe(p->a), provider));
	assert_int_equal(NET->listen(p->b, &handle, &p->listen), TERN_SUCCESS);
	assert_int_equal(NET->connect(p->a, &handle, &p->send), TERN_SUCCESS);
	p->recv = accept_one(p->b, p->a, p->listen);
	p->src = malloc(BIG);
	p->dst = malloc(BIG);
	assert_non_null(p->src);
	assert_non_null(p->dst);
	for (size_t i = 0; i < BIG; i++)
		p->src[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(NET->reg_mr(p->a, p->src, BIG, &p->src_mr),
			 TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->b, p->dst, BIG, &p->dst_mr),
			 TERN_SUCCESS);
	*state = p;
	return 0;
}

static int tcp_setup(void **state)
{
	return pair_setup(state, "tcp");
}

static int shm_setup(void **state)
{
	return pair_setup(state, "shm");
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	NET->dereg_mr(p->a, p->src_mr);
	NET->dereg_mr(p->b, p->dst_mr);
	NET->close_comm(p->send);
	NET->close_comm(p->recv);
	NET->close_listen(p->listen);
	NET->close(p->a);
	NET->close(p->b);
	free(p->src);
	free(p->dst);
	free(p);
	return 0;
}

/* Sends @len bytes at src + @off to dst, the receive posted first or not. */
static void transfer(struct pair *p, size_t off, size_t len, bool recv_first)
{
	struct tern_net_req *s = NULL, *r = NULL;
	size_t got = SIZE_MAX, sent = SIZE_MAX;

	memset(p->dst, 0xee, len + 1 < BIG ? len + 1 : BIG);
	if (recv_first)
		assert_int_equal(NET->irecv(p->recv, p->dst, BIG - 1 < len ?
					    len : BIG - 1, p->dst_mr, &r),
				 TERN_SUCCESS);
	assert_int_equal(NET->isend(p->send, p->src + off, len, p->src_mr, &s),
			 TERN_SUCCESS);
	if (!recv_first)
		assert_int_equal(NET->irecv(p->recv, p->dst, BIG - 1 < len ?
					    len : BIG - 1, p->dst_mr, &r),
				 TERN_SUCCESS);
	assert_int_equal(finish(p, r, &got), TERN_SUCCESS);
	assert_int_equal(finish(p, s, &sent), TERN_SUCCESS);
	assert_int_equal(got, len);
	assert_memory_equal(p->dst, p->src + off, len);
	if (len + 1 < BIG)
		assert_int_equal(p->dst[len], 0xee);
}

static void test_sizes(void **state)
{
	static const size_t sizes[] = { 0, 1, 7, 4097, 65536, 1000003, BIG - 1 };
	struct pair *p = *state;
	struct tern_net_counters sc, rc;
	uint64_t bytes = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		transfer(p, 1, sizes[i], true);
		transfer(p, 0, sizes[i], false);
		bytes += 2 * sizes[i];
	}
	NET->counters(p->send, &sc);
	NET->counters(p->recv, &rc);
	assert_int_equal(sc.messages, 14);
	assert_int_equal(rc.messages, 14);
	assert_int_equal(sc.bytes, bytes);
	assert_int_equal(rc.bytes, bytes);
	assert_int_equal(sc.errors + rc.errors, 0);
}

/* Many messages in flight: each receive takes the message of its turn. */
static void test_order(void **state)
{
	enum { N = 64 };
	struct pair *p = *state;
	struct tern_net_req *s[N], *r[N];
	size_t got;

	/* Half the receives before the sends, half after. */
	for (int i = 0; i < N / 2; i++)
		assert_int_equal(NET->irecv(p->recv, p->dst + i * 65536, 65536,
					    p->dst_mr, &r[i]), TERN_SUCCESS);
	for (int i = 0; i < N; i++) {
		tern_status_t st;

		while ((st = NET->isend(p->send, p->src + i * 1000,
					(size_t)(i * 1000 + 1), p->src_mr,
					&s[i])) == TERN_ERROR_NOT_READY) {
			NET->wait(p->b, 0);
			NET->wait(p->a, 1);
		}
		assert_int_equal(st, TERN_SUCCESS);
	}
	for (int i = N / 2; i < N; i++)
		assert_int_equal(NET->irecv(p->recv, p->dst + i * 65536, 65536,
					    p->dst_mr, &r[i]), TERN_SUCCESS);
	/* Tested backwards: the order is the posting's, not the testing's. */
	for (int i = N - 1; i >= 0; i--) {
		assert_int_equal(finish(p, r[i], &got), TERN_SUCCESS);
		assert_int_equal(got, (size_t)(i * 1000 + 1));
		assert_memory_equal(p->dst + i * 65536, p->src + i * 1000, got);
	}
	for (int i = 0; i < N; i++)
		assert_int_equal(finish(p, s[i], NULL), TERN_SUCCESS);
}

/* Both ways, and a second connection to the same listen kept apart. */
static void test_connections(void **state)
{
	struct pair *p = *state;
	struct tern_net_handle ha, hb;
	struct tern_net_listen *la, *lb;
	struct tern_net_comm *back_send, *back_recv, *second, *second_recv;
	struct tern_net_comm *extra = NULL;
	struct tern_net_req *r1, *r2, *s1, *s2;
	uint8_t x = 0, y = 0, one = 1, two = 2;
	struct tern_net_mr *mx, *my, *mo, *mt;

	assert_int_equal(NET->listen(p->a, &ha, &la), TERN_SUCCESS);
	assert_int_equal(NET->connect(p->b, &ha, &back_send), TERN_SUCCESS);
	back_recv = accept_one(p->a, p->b, la);
	/* A second listen on b: each takes only its own connections. */
	assert_int_equal(NET->listen(p->b, &hb, &lb), TERN_SUCCESS);
	assert_int_equal(NET->connect(p->a, &hb, &second), TERN_SUCCESS);
	second_recv = accept_one(p->b, p->a, lb);
	assert_int_equal(NET->accept(p->listen, &extra), TERN_ERROR_NOT_READY);
	assert_int_equal(NET->reg_mr(p->a, &x, 1, &mx), TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->b, &y, 1, &my), TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->b, &one, 1, &mo), TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->a, &two, 1, &mt), TERN_SUCCESS);
	/* b to a on the way back; a to b on the second connection. */
	assert_int_equal(NET->irecv(back_recv, &x, 1, mx, &r1), TERN_SUCCESS);
	assert_int_equal(NET->irecv(second_recv, &y, 1, my, &r2), TERN_SUCCESS);
	assert_int_equal(NET->isend(back_send, &one, 1, mo, &s1), TERN_SUCCESS);
	assert_int_equal(NET->isend(second, &two, 1, mt, &s2), TERN_SUCCESS);
	assert_int_equal(finish(p, r1, NULL), TERN_SUCCESS);
	assert_int_equal(finish(p, r2, NULL), TERN_SUCCESS);
	assert_int_equal(finish(p, s1, NULL), TERN_SUCCESS);
	assert_int_equal(finish(p, s2, NULL), TERN_SUCCESS);
	assert_int_equal(x, 1);
	assert_int_equal(y, 2);
	/* The first connection still works after the second. */
	transfer(p, 3, 333, true);
	NET->dereg_mr(p->a, mx);
	NET->dereg_mr(p->b, my);
	NET->dereg_mr(p->b, mo);
	NET->dereg_mr(p->a, mt);
	NET->close_comm(back_send);
	NET->close_comm(back_recv);
	NET->close_comm(second);
	NET->close_comm(second_recv);
	NET->close_listen(la);
	NET->close_listen(lb);
}

static void test_refused(void **state)
{
	struct pair *p = *state;
	struct tern_net_handle junk;
	struct tern_net_comm *c = NULL;
	struct tern_net_req *r = NULL;
	struct tern_net_mr *mr, *again;
	bool done;

	memset(&junk, 0x5a, sizeof(junk));
	assert_int_equal(NET->connect(p->a, &junk, &c), TERN_ERROR_INVALID_ARGUMENT);
	assert_null(c);
	/* The wrong direction of a connection. */
	assert_int_equal(NET->isend(p->recv, p->dst, 1, p->dst_mr, &r),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(NET->irecv(p->send, p->src, 1, p->src_mr, &r),
			 TERN_ERROR_INVALID_ARGUMENT);
	/* Memory outside the registration named. */
	assert_int_equal(NET->isend(p->send, p->src + BIG - 1, 2, p->src_mr, &r),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(NET->isend(p->send, p->dst, 1, p->src_mr, &r),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_null(r);
	assert_int_equal(NET->test(NULL, &done, NULL), TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(NET->reg_mr(p->a, NULL, 1, &mr), TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(NET->reg_mr(p->a, p->src, 0, &mr), TERN_ERROR_INVALID_ARGUMENT);
	/* The same range shares one registration. */
	assert_int_equal(NET->reg_mr(p->a, p->src, BIG, &again), TERN_SUCCESS);
	assert_ptr_equal(again, p->src_mr);
	NET->dereg_mr(p->a, again);
	/* Refused posts used no sequence: the connection still works. */
	transfer(p, 5, 55, false);
}

/* Closing with receives posted cancels them (the sanitizers see leaks). */
static void test_close_pending(void **state)
{
	struct pair *p = *state;
	struct tern_net_handle h;
	struct tern_net_listen *l;
	struct tern_net_comm *s, *r;
	struct tern_net_req *req[4];

	assert_int_equal(NET->listen(p->b, &h, &l), TERN_SUCCESS);
	assert_int_equal(NET->connect(p->a, &h, &s), TERN_SUCCESS);
	r = accept_one(p->b, p->a, l);
	for (int i = 0; i < 4; i++)
		assert_int_equal(NET->irecv(r, p->dst, 16, p->dst_mr, &req[i]),
				 TERN_SUCCESS);
	NET->close_comm(r);
	NET->close_comm(s);
	NET->close_listen(l);
	transfer(p, 0, 4096, true);
}

/*
 * A peer process that has gone: what the transport does with sends to it
 * is the provider's (tcp tries to connect again, for a while), so the
 * communicator's links, not the network, tell a rank its peer died. What
 * holds everywhere: no send to it succeeds, nothing blocks, and closing
 * the connection with a send in flight frees it and leaves the other
 * connections working.
 */
static void test_peer_gone(void **state)
{
	struct pair *p = *state;
	struct tern_net_handle h;
	struct tern_net_comm *c;
	struct tern_net_req *s = NULL;
	tern_status_t st;
	int fds[2], status;
	uint64_t until;
	pid_t child;
	bool done = false;

	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct tern_net *n;
		struct tern_net_listen *l;

		close(fds[0]);
		if (NET->open(&n) || NET->listen(n, &h, &l))
			_exit(1);
		if (write(fds[1], &h, sizeof(h)) != sizeof(h))
			_exit(1);
		_exit(0);	/* gone without closing anything */
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &h, sizeof(h)), sizeof(h));
	close(fds[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(NET->connect(p->a, &h, &c), TERN_SUCCESS);
	until = now_ms() + 1000;
	while (now_ms() < until && !done) {
		if (!s) {
			st = NET->isend(c, p->src, 65536, p->src_mr, &s);
			assert_true(st == TERN_SUCCESS || st == TERN_ERROR_NOT_READY ||
				    st == TERN_ERROR_PEER_FAILED);
			if (st != TERN_SUCCESS)
				s = NULL;
			if (st == TERN_ERROR_PEER_FAILED)
				break;
		} else {
			st = NET->test(s, &done, NULL);
			assert_true(st == TERN_SUCCESS || st == TERN_ERROR_PEER_FAILED);
			/* A failed request is freed by its test. */
			assert_true(st == TERN_SUCCESS ? !done : true);
			if (st)
				s = NULL;
		}
		NET->wait(p->a, 10);
	}
	NET->close_comm(c);
	transfer(p, 0, 100, true);
}

static void test_no_provider(void **state)
{
	struct tern_net *n = NULL;

	(void)state;
	assert_int_equal(NET->open(&n), TERN_ERROR_NOT_SUPPORTED);
	assert_null(n);
	assert_non_null(strstr(tern_get_last_error(), "no-such-provider"));
	assert_non_null(strstr(tern_get_last_error(), "fi_info"));
}

/* The second sender: connects to @h, sends 0xcccc, says so on @out. */
static void second_sender(int in, int out)
{
	struct tern_net_handle h;
	struct tern_net_comm *c;
	struct tern_net_req *s;
	struct tern_net_mr *m;
	struct tern_net *n;
	uint32_t v = 0xcccc;
	bool done = false;
	char bye;

	if (read(in, &h, sizeof(h)) != sizeof(h) || NET->open(&n) ||
	    NET->connect(n, &h, &c) || NET->reg_mr(n, &v, 4, &m) ||
	    NET->isend(c, &v, 4, m, &s))
		_exit(1);
	while (!done) {
		if (NET->test(s, &done, NULL))
			_exit(1);
		NET->wait(n, 1);
	}
	if (write(out, "s", 1) != 1 || read(in, &bye, 1) != 1)
		_exit(1);
	NET->dereg_mr(n, m);
	NET->close_comm(c);
	NET->close(n);
	_exit(0);
}

/*
 * Two senders in two processes number their connections alike, so their
 * first connections to one receiver share a number: each message must
 * still reach the receive of its own connection, whatever the provider
 * makes of the receive's source (shm made nothing of it). The other
 * process's message goes first, while only a's receive waits for it.
 */
static void test_two_senders(void **state)
{
	struct pair *p = *state;
	struct tern_net_handle handle;
	struct tern_net_listen *lc;
	struct tern_net_comm *from_c;
	struct tern_net_req *ra, *rc, *sa;
	struct tern_net_mr *mx, *my, *ma;
	uint32_t x = 0, y = 0, va = 0xaaaa;
	int to_child[2], from_child[2], status;
	pid_t child;
	char sent;

	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		second_sender(to_child[0], from_child[1]);
	assert_int_equal(NET->listen(p->b, &handle, &lc), TERN_SUCCESS);
	assert_int_equal(write(to_child[1], &handle, sizeof(handle)),
			 sizeof(handle));
	from_c = accept_one(p->b, p->a, lc);
	assert_int_equal(NET->reg_mr(p->b, &x, 4, &mx), TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->b, &y, 4, &my), TERN_SUCCESS);
	assert_int_equal(NET->reg_mr(p->a, &va, 4, &ma), TERN_SUCCESS);
	assert_int_equal(NET->irecv(p->recv, &x, 4, mx, &ra), TERN_SUCCESS);
	/* b takes in the other's message while only a's receive is posted */
	while (read(from_child[0], &sent, 1) != 1)
		NET->wait(p->b, 1);
	for (int i = 0; i < 50; i++)
		NET->wait(p->b, 1);
	assert_int_equal(NET->irecv(from_c, &y, 4, my, &rc), TERN_SUCCESS);
	assert_int_equal(NET->isend(p->send, &va, 4, ma, &sa), TERN_SUCCESS);
	assert_int_equal(finish2(p->b, p->a, rc, NULL), TERN_SUCCESS);
	assert_int_equal(finish2(p->b, p->a, ra, NULL), TERN_SUCCESS);
	assert_int_equal(finish(p, sa, NULL), TERN_SUCCESS);
	assert_int_equal(write(to_child[1], "b", 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(x, 0xaaaa);
	assert_int_equal(y, 0xcccc);
	NET->dereg_mr(p->b, mx);
	NET->dereg_mr(p->b, my);
	NET->dereg_mr(p->a, ma);
	NET->close_comm(from_c);
	NET->close_listen(lc);
	for (int i = 0; i < 2; i++) {
		close(to_child[i]);
		close(from_child[i]);
	}
}

#define PAIR_TESTS(setup)						\
	cmocka_unit_test_setup_teardown(test_sizes, setup, pair_teardown), \
	cmocka_unit_test_setup_teardown(test_order, setup, pair_teardown), \
	cmocka_unit_test_setup_teardown(test_connections, setup, pair_teardown), \
	cmocka_unit_test_setup_teardown(test_two_senders, setup, pair_teardown), \
	cmocka_unit_test_setup_teardown(test_refused, setup, pair_teardown), \
	cmocka_unit_test_setup_teardown(test_close_pending, setup, pair_teardown)

/* libfabric reads FI_PROVIDER once a process: a child per provider. */
static int run_group(const char *provider)
{
	const struct CMUnitTest tcp[] = {
		PAIR_TESTS(tcp_setup),
		cmocka_unit_test_setup_teardown(test_peer_gone, tcp_setup,
						pair_teardown),
	};
	const struct CMUnitTest shm[] = {
		PAIR_TESTS(shm_setup),
	};
	const struct CMUnitTest none[] = {
		cmocka_unit_test(test_no_provider),
	};

	setenv("FI_PROVIDER", provider, 1);
	if (strcmp(provider, "tcp") == 0)
		return cmocka_run_group_tests_name("net over tcp", tcp, NULL, NULL);
	if (strcmp(provider, "shm") == 0)
		return cmocka_run_group_tests_name("net over shm", shm, NULL, NULL);
	return cmocka_run_group_tests_name("net without a provider", none,
					   NULL, NULL);
}

int main(int argc, char **argv)
{
	static const char *const providers[] = { "tcp", "shm",
						 "no-such-provider" };
	int failed = 0;

	if (argc == 2)		/* one provider's tests, in this process */
		return run_group(argv[1]);
	for (size_t i = 0; i < ARRAY_SIZE(providers); i++) {
		pid_t child;
		int status;

		fflush(NULL);
		child = fork();
		if (child == 0)
			_exit(run_group(providers[i]) ? 1 : 0);
		if (child < 0 || waitpid(child, &status, 0) != child ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "net over %s: failed\n", providers[i]);
			failed++;
		}
	}
	return failed;
}
