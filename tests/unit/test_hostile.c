// SPDX-License-Identifier: MIT
/*
 * Hostile peers against real ranks of tern_comm_init_rank: strangers at
 * rank 0's port without the secret (garbage, forged proofs, absurd
 * fields, a flood of silent sockets), the port once init is over, a rank
 * 0 that cannot prove the secret, and members that hold it and lie (rank
 * 0 with a poisoned table, verdict or agreement; a joiner with a hello no
 * rank could send). Every real rank either finishes exactly (an
 * all-reduce after init gives the exact sums) or fails with a clear
 * status within its init timeout; none crashes, none takes an impostor.
 *
 * The ranks are this program again (--rank HEX RANK COUNT REPORT GO), a
 * process each on machine "hostile-PID", each writing what it saw to the
 * REPORT pipe. The hostile side is this process, speaking the wire with
 * coll/trust/auth.c as a member that holds the secret could.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "coll/init/internal.h"
#include "sim_test.h"

#define NRANKS		4
#define COUNT		1001
#define FLOOD		1000
#define SLOW_MS		"10000"	/* init timeout where ranks should finish */
#define QUICK_MS	"3000"	/* and where they should fail */
#define DEFAULT_MS	30000	/* a rank's timeout without the setting */

/* bootstrap.c's struct coll_hello (private there), as it crosses. */
#define HELLO_MAGIC	"ternhlo3"
struct wire_hello {
	char magic[8];
	int32_t rank, nranks, verdict, reserved;
	struct coll_rank_info info;
};

/* What a rank saw: after init (phase 0), and after the hold (1). */
struct report {
	int32_t rank, phase, status;
	int32_t reduced;		/* 1: exact, 0: not run, -1: wrong */
	int64_t init_ms;
	char error[256];
};

/* ---- a rank, in a process of its own ---- */

/* An all-reduce of small sums, exact in int32: 1 if all came out so. */
static int all_reduce(tern_comm_t comm, tern_stream_t stream,
		      tern_buffer_t buf, int32_t *cpu, int rank, int n)
{
	for (int i = 0; i < COUNT; i++) {
		cpu[i] = (rank + 1) * 1000 + i % 997;
		cpu[COUNT + i] = -1;
	}
	if (tern_all_reduce(tern_ptr(buf, 0), tern_ptr(buf, COUNT * 4), COUNT,
			    TERN_INT32, TERN_SUM, comm, stream) ||
	    tern_stream_synchronize(stream))
		return -1;
	for (int i = 0; i < COUNT; i++)
		if (cpu[COUNT + i] != n * (n + 1) / 2 * 1000 + n * (i % 997))
			return -1;
	return 1;
}

/* Joins, all-reduces, reports; with a GO pipe, again after its byte. */
static int rank_main(char **argv)
{
	struct report rep = { .rank = atoi(argv[3]) };
	const int n = atoi(argv[4]), out = atoi(argv[5]), go = atoi(argv[6]);
	tern_device_t dev = NULL;
	tern_stream_t stream = NULL;
	tern_buffer_t buf = NULL;
	tern_comm_t comm = NULL;
	tern_unique_id_t id;
	tern_status_t s;
	void *cpu = NULL;
	unsigned int byte;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (size_t i = 0; i < sizeof(id.internal); i++) {
		if (sscanf(argv[2] + 2 * i, "%2x", &byte) != 1)
			return 2;
		id.internal[i] = (char)byte;
	}
	s = tern_device_open(rep.rank, &dev);
	if (!s)
		s = tern_stream_create(dev, &stream);
	if (!s)
		s = tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, 2 * COUNT * 4,
				      &buf);
	if (!s)
		s = tern_buffer_map(buf, &cpu);
	rep.init_ms = coll_now_ms();
	if (!s)
		s = tern_comm_init_rank(&comm, n, &id, rep.rank, dev);
	rep.init_ms = coll_now_ms() - rep.init_ms;
	for (;; rep.phase++) {
		rep.status = s;
		rep.reduced = s ? 0 : all_reduce(comm, stream, buf, cpu,
						 rep.rank, n);
		snprintf(rep.error, sizeof(rep.error), "%s",
			 s ? tern_get_last_error() : "");
		if (write(out, &rep, sizeof(rep)) != sizeof(rep))
			return 2;
		if (s || go < 0 || rep.phase == 1 || read(go, &byte, 1) != 1)
			break;
	}
	tern_comm_destroy(comm);
	tern_buffer_free(buf);
	tern_stream_destroy(stream);
	tern_device_close(dev);
	return 0;
}

/* ---- the parent: one job of ranks at a time, and their reports ---- */

static struct {
	tern_unique_id_t id;
	struct coll_id cid;		/* the same, as the library reads it */
	int n, timeout_ms;
	bool hold;			/* ranks wait for a GO byte after init */
	pid_t pid[NRANKS];
	int rep[2], go[2];		/* pipes: reports in, GO bytes out */
	struct report res[NRANKS][2];
	bool got[NRANKS][2];
} job;

static void job_begin(int n, const char *timeout_ms, bool hold)
{
	memset(&job, 0, sizeof(job));
	job.n = n;
	job.hold = hold;
	job.timeout_ms = atoi(timeout_ms);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", timeout_ms, 1);
	assert_ok(tern_get_unique_id(&job.id));
	memcpy(&job.cid, job.id.internal, sizeof(job.cid));
	assert_int_equal(pipe(job.rep), 0);
	assert_int_equal(pipe(job.go), 0);
}

/* Ranks @first..@last-1, with @env (NAME=VALUE) if not NULL. */
static void job_spawn(int first, int last, const char *env)
{
	char hex[2 * TERN_UNIQUE_ID_BYTES + 1], a[4][16];

	for (size_t i = 0; i < sizeof(job.id.internal); i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)job.id.internal[i]);
	snprintf(a[1], 16, "%d", job.n);
	snprintf(a[2], 16, "%d", job.rep[1]);
	snprintf(a[3], 16, "%d", job.hold ? job.go[0] : -1);
	fflush(NULL);
	for (int r = first; r < last; r++) {
		snprintf(a[0], 16, "%d", r);
		job.pid[r] = fork();
		if (job.pid[r] == 0) {
			close(job.go[1]);	/* else neither pipe ends */
			close(job.rep[0]);
			if (env)
				putenv((char *)env);
			execl("/proc/self/exe", "test_hostile", "--rank", hex,
			      a[0], a[1], a[2], a[3], (char *)NULL);
			_exit(127);
		}
		assert_true(job.pid[r] > 0);
	}
}

/* Takes in one report if one comes within @ms; whether one did. */
static bool job_take(int ms)
{
	struct pollfd p = { .fd = job.rep[0], .events = POLLIN };
	struct report r;

	if (poll(&p, 1, ms) <= 0)
		return false;
	/* Each is one write below PIPE_BUF: it comes whole. */
	if (read(job.rep[0], &r, sizeof(r)) != sizeof(r) || r.rank < 0 ||
	    r.rank >= job.n || r.phase < 0 || r.phase > 1)
		fail_msg("a rank's report is garbled");
	job.res[r.rank][r.phase] = r;
	job.got[r.rank][r.phase] = true;
	return true;
}

/* Lets held ranks go and waits for all: none may have crashed. */
static void job_end(void)
{
	int status;

	close(job.go[1]);
	job.go[1] = -1;
	for (int r = 0; r < job.n; r++) {
		if (job.pid[r] <= 0)
			continue;
		assert_int_equal(waitpid(job.pid[r], &status, 0), job.pid[r]);
		job.pid[r] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("rank %d: exit status 0x%x", r, status);
	}
	while (job_take(0))
		;
	unsetenv("TERN_COMM_INIT_TIMEOUT_MS");
}

/* Every test's teardown: also kills what a failed test left running. */
static int teardown(void **state)
{
	(void)state;
	if (!job.n)
		return 0;
	for (int r = 0; r < job.n; r++)
		if (job.pid[r] > 0 && kill(job.pid[r], SIGKILL) == 0)
			waitpid(job.pid[r], NULL, 0);
	close(job.rep[0]);
	close(job.rep[1]);
	close(job.go[0]);
	close(job.go[1]);		/* -1 once the ranks were let go */
	coll_id_release(&job.id);
	job.n = 0;
	return 0;
}

/*
 * Ranks @first.. reported @want after @phase, saying @words, within
 * their init timeout (far below the default); SUCCESS: and an exact
 * all-reduce.
 */
static void expect(int first, int phase, tern_status_t want,
		   const char *words)
{
	for (int r = first; r < job.n; r++) {
		const struct report *rep = &job.res[r][phase];

		if (!job.got[r][phase] || (tern_status_t)rep->status != want ||
		    !strstr(rep->error, words) || rep->reduced != !want)
			fail_msg("rank %d: %s (%s), all-reduce %d; want %s \"%s\"",
				 r, tern_status_name(rep->status), rep->error,
				 rep->reduced, tern_status_name(want), words);
		assert_true(rep->init_ms < job.timeout_ms + 2000);
		assert_true(rep->init_ms < DEFAULT_MS / 2);
	}
}

/* ---- the wire ---- */

/* A socket (@flags) connecting to rank 0's address; errno: connect's. */
static int reach(int flags)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = job.cid.port };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = job.cid.port };
	bool v4 = job.cid.family == AF_INET;
	int fd = socket(job.cid.family, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);

	memcpy(&in.sin_addr, job.cid.addr, 4);
	memcpy(&in6.sin6_addr, job.cid.addr, 16);
	if (connect(fd, v4 ? (struct sockaddr *)&in : (struct sockaddr *)&in6,
		    v4 ? sizeof(in) : sizeof(in6)) == 0)
		errno = 0;
	return fd;
}

/* A connection to rank 0, tried until it listens. */
static int dial(void)
{
	for (int tries = 0; tries < 1000; tries++) {
		int fd = reach(0);

		if (!errno)
			return fd;
		close(fd);
		usleep(5000);
	}
	fail_msg("nothing listens at rank 0's address");
	return -1;
}

/*
 * Sends what the socket takes now (@len random bytes if @buf is NULL);
 * a peer that hung up is no error here.
 */
static void spray(int fd, const void *buf, size_t len)
{
	static uint8_t junk[1 << 20];
	ssize_t sent;

	if (!buf && getrandom(junk, len, 0) == (ssize_t)len)
		buf = junk;
	while (buf && len &&
	       (sent = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)) > 0) {
		buf = (const char *)buf + sent;
		len -= (size_t)sent;
	}
}

/* Reads @fd until the peer closes it: the bytes before, or -1 if open. */
static ssize_t drain(int fd, int ms)
{
	int64_t end = coll_now_ms() + ms;
	ssize_t total = 0, got;
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - coll_now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (got > 0)
			total += got;
		else if (got == 0 || (errno != EAGAIN && errno != EINTR))
			return total;	/* closed, or reset */
	}
}

/* Rank 0 hung up on @fd, having said nothing more; closes it. */
static void expect_hung_up(int fd, const char *what)
{
	ssize_t more = drain(fd, 5000);

	if (more)
		fail_msg("%s: rank 0 %s", what,
			 more < 0 ? "kept the connection" : "answered it");
	close(fd);
}

/*
 * A joiner's challenge to rank 0, whose answer must prove the secret
 * (rank 0 proves first; the test holds the key only to check that).
 */
static int greet_root(struct coll_auth_state *st)
{
	uint8_t key[COLL_KEY_BYTES];
	struct coll_auth_reply reply;
	int fd = dial();

	coll_auth_greet(st, COLL_AUTH_BOOTSTRAP);
	assert_true(coll_send_all(fd, &st->hello, sizeof(st->hello)));
	assert_true(coll_recv_all(fd, &reply, sizeof(reply),
				  coll_now_ms() + 5000));
	assert_ok(coll_id_key(&job.cid, key));
	assert_true(coll_auth_check_lead(st, key, &reply));
	return fd;
}

/* The hello an honest rank @rank of @n could send. */
static struct wire_hello hello_of(int rank, int n)
{
	struct wire_hello h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HELLO_MAGIC, sizeof(h.magic));
	h.rank = rank;
	h.nranks = n;
	h.info.node.fabric_id = rank;
	h.info.node.algo = -1;
	return h;
}

/* Proof, hello and a tag in one run, as a joiner sends them; forged. */
static void send_joined(int fd, const uint8_t *proof,
			const struct wire_hello *h)
{
	uint8_t msg[2 * COLL_MAC_BYTES + sizeof(*h)] = { 0 };

	memcpy(msg, proof, COLL_MAC_BYTES);
	memcpy(msg + COLL_MAC_BYTES, h, sizeof(*h));
	spray(fd, msg, sizeof(msg));
}

/* ---- 1 and 5: at rank 0's port during init ---- */

/* Rank 0 alone, for the test to attack before the others come. */
static int root_alone(void **state)
{
	(void)state;
	job_begin(NRANKS, SLOW_MS, false);
	job_spawn(0, 1, NULL);
	return 0;
}

/* The others join (unless the attack let them): all finish exactly. */
static void rest_exact(void)
{
	if (!job.pid[1])
		job_spawn(1, NRANKS, NULL);
	job_end();
	expect(0, 0, TERN_SUCCESS, "");
}

/* Random bytes are hung up on unanswered; a half hello stalls nobody. */
static void test_random_bytes(void **state)
{
	int fd = dial(), staller;

	(void)state;
	spray(fd, NULL, 4096);
	expect_hung_up(fd, "4 KiB of random bytes");
	fd = dial();
	spray(fd, "ternauth", 8);	/* the magic, then random fields */
	spray(fd, NULL, sizeof(struct coll_auth_hello) - 8);
	expect_hung_up(fd, "a hello of random fields");
	staller = dial();
	spray(staller, NULL, 20);
	rest_exact();
	close(staller);
}

/* A well-formed challenge, then random bytes for proof and hello. */
static void test_garbage_proof(void **state)
{
	struct coll_auth_state st;
	int fd = greet_root(&st);

	(void)state;
	spray(fd, NULL, 2 * COLL_MAC_BYTES + sizeof(struct wire_hello));
	expect_hung_up(fd, "a random proof");
	rest_exact();
}

/* Each real rank claimed unproved, and with rank 0's proof reflected. */
static void test_claim_rank(void **state)
{
	const uint8_t zero[COLL_MAC_BYTES] = { 0 };
	struct coll_auth_state st;

	(void)state;
	for (int r = 1; r < NRANKS; r++) {
		struct wire_hello h = hello_of(r, NRANKS);
		int fd = greet_root(&st);

		send_joined(fd, zero, &h);
		expect_hung_up(fd, "a hello without proof");
		fd = greet_root(&st);
		send_joined(fd, st.reply.mac, &h);
		expect_hung_up(fd, "rank 0's proof reflected");
	}
	rest_exact();
}

/* Absurd fields, lengths and counts, before and after the challenge. */
static void test_absurd(void **state)
{
	const uint8_t zero[COLL_MAC_BYTES] = { 0 };
	struct wire_hello h = hello_of(INT32_MIN, INT32_MAX);
	struct coll_auth_state st;
	int fd;

	(void)state;
	coll_auth_greet(&st, COLL_AUTH_BOOTSTRAP);
	st.hello.version = st.hello.purpose = UINT32_MAX;
	fd = dial();
	spray(fd, &st.hello, sizeof(st.hello));
	expect_hung_up(fd, "version and purpose 0xffffffff");
	coll_auth_greet(&st, COLL_AUTH_HANDOFF);
	fd = dial();
	spray(fd, &st.hello, sizeof(st.hello));
	expect_hung_up(fd, "a hand-off's challenge");
	h.verdict = -1;
	h.info.node.port_count = UINT32_MAX;
	h.info.node.fabric_id = INT32_MIN;
	fd = greet_root(&st);
	send_joined(fd, zero, &h);
	expect_hung_up(fd, "every count out of range");
	fd = greet_root(&st);
	spray(fd, NULL, 1 << 20);
	expect_hung_up(fd, "a megabyte of proof");
	fd = greet_root(&st);
	spray(fd, zero, sizeof(zero) / 2);	/* half a proof, then gone */
	close(fd);
	rest_exact();
}

/*
 * FLOOD silent sockets, most before the ranks start, the rest paced as
 * they join: rank 0 answers none of them.
 */
static void test_flood(void **state)
{
	static int fd[FLOOD];
	struct rlimit rl;
	char c;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < FLOOD + 256)
		skip();
	close(dial());			/* rank 0 listens */
	for (int i = 0; i < FLOOD; i++) {
		fd[i] = reach(SOCK_NONBLOCK);
		/* refused once rank 0 is done and gone */
		if (errno && errno != ECONNREFUSED)
			assert_int_equal(errno, EINPROGRESS);
		if (i == FLOOD * 4 / 5)
			job_spawn(1, NRANKS, NULL);
		if (i >= FLOOD * 4 / 5)
			usleep(1000);
	}
	rest_exact();
	for (int i = 0; i < FLOOD; i++) {
		if (recv(fd[i], &c, 1, MSG_DONTWAIT) > 0)
			fail_msg("rank 0 said something to a silent socket");
		close(fd[i]);
	}
}

/*
 * 5: a joiner that holds the secret and says what no rank could: hung up
 * on each time, it takes no slot the real ranks then need.
 */
static void test_lying_joiner(void **state)
{
	struct wire_hello lie[12];
	uint8_t key[COLL_KEY_BYTES];

	(void)state;
	assert_ok(coll_id_key(&job.cid, key));
	for (int i = 0; i < 12; i++)
		lie[i] = hello_of(3, NRANKS);	/* would be taken as is */
	lie[0].rank = NRANKS;
	lie[1].rank = -1;
	lie[2].rank = 0;
	lie[3].nranks = NRANKS + 1;
	lie[4].nranks = COLL_MAX_RANKS;
	lie[4].rank = COLL_MAX_RANKS - 1;
	lie[5].info.node.port_count = 1u << 20;
	lie[6].info.node.fabric_id = -1;
	lie[7].info.node.port_count = 1;	/* only its ports count */
	lie[7].info.node.neighbour[0] = -7;
	lie[8].info.node.algo = 1000;
	lie[9].verdict = 1000;
	lie[10].magic[7] = '2';
	lie[11].nranks = 0;
	for (int i = 0; i < 12; i++) {
		struct coll_chan ch;
		int fd = dial();

		assert_ok(coll_auth_join(fd, key, COLL_AUTH_BOOTSTRAP, &ch,
					 coll_now_ms() + 5000));
		assert_true(coll_chan_send(&ch, &lie[i], sizeof(lie[i])));
		if (drain(fd, 5000))
			fail_msg("lie %d: rank 0 did not hang up", i);
		coll_chan_close(&ch);
	}
	rest_exact();
}

/* ---- 2: after init ---- */

/*
 * Rank 0's port closes with init, and a server may bind it again; the
 * comm still works.
 */
static void test_after_init(void **state)
{
	int fd;

	(void)state;
	job_begin(NRANKS, SLOW_MS, true);
	job_spawn(0, NRANKS, NULL);
	for (int r = 0; r < NRANKS; r++)
		if (!job_take(20000))
			fail_msg("the ranks did not report on init");
	expect(0, 0, TERN_SUCCESS, "");
	fd = reach(0);
	assert_int_equal(errno, ECONNREFUSED);
	close(fd);
	/*
	 * A server may take the port again (with SO_REUSEADDR, as a c10d
	 * TCPStore does) while the links rank 0 accepted there live on, once
	 * the id's maker (this process) has let it go.
	 */
	coll_id_release(&job.id);
	fd = socket(job.cid.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 },
				    sizeof(int)), 0);
	if (job.cid.family == AF_INET) {
		struct sockaddr_in any = { .sin_family = AF_INET,
					   .sin_port = job.cid.port };

		assert_int_equal(bind(fd, (struct sockaddr *)&any,
				      sizeof(any)), 0);
	} else {
		struct sockaddr_in6 any = { .sin6_family = AF_INET6,
					    .sin6_port = job.cid.port };

		assert_int_equal(bind(fd, (struct sockaddr *)&any,
				      sizeof(any)), 0);
	}
	close(fd);
	for (int r = 0; r < NRANKS; r++)
		assert_int_equal(write(job.go[1], "g", 1), 1);
	job_end();
	expect(0, 1, TERN_SUCCESS, "");
}

/* ---- 3: a rank 0 without the secret ---- */

/*
 * The test takes the port of an id it made, as a squatter would, and
 * answers without the secret: the joiner sends it its challenge and
 * nothing else, and fails on the forged answer.
 */
static void test_fake_root(void **state)
{
	struct coll_auth_state want;
	struct coll_auth_hello got;
	struct coll_auth_reply forged;
	struct pollfd p = { .events = POLLIN };
	int fd;

	(void)state;
	job_begin(2, QUICK_MS, false);
	p.fd = coll_id_listen(&job.cid);
	assert_true(p.fd >= 0);
	job_spawn(1, 2, NULL);
	assert_int_equal(poll(&p, 1, 5000), 1);
	fd = accept4(p.fd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(coll_recv_all(fd, &got, sizeof(got), coll_now_ms() + 5000));
	coll_auth_greet(&want, COLL_AUTH_BOOTSTRAP);
	assert_memory_equal(got.magic, want.hello.magic, sizeof(got.magic));
	assert_int_equal(got.version, want.hello.version);
	assert_int_equal(got.purpose, COLL_AUTH_BOOTSTRAP);
	assert_int_equal(getrandom(&forged, sizeof(forged), 0), sizeof(forged));
	assert_true(coll_send_all(fd, &forged, sizeof(forged)));
	/* No proof, hello or node after the challenge. */
	assert_int_equal(drain(fd, 5000), 0);
	close(fd);
	job_end();
	expect(1, 0, TERN_ERROR_PERMISSION,
	       "cannot prove it holds the id's secret");
	assert_int_equal(poll(&p, 1, 0), 0);	/* nor came back to retry */
	close(p.fd);
}

/* ---- 4: a rank 0 that holds the secret and lies ---- */

static struct {
	struct coll_chan ch[NRANKS];
	struct coll_rank_info info[NRANKS];
	/* each rank's status, to agree on, and its table's digest */
	struct {
		int32_t status, reserved;
		uint8_t table[COLL_MAC_BYTES];
	} said[NRANKS];
} liar;

/*
 * Ranks 1..@n-1, met on the id's port as rank 0 meets them; rank 0
 * claims a host of its own, so that no rank hands it its areas.
 */
static void liar_start(int n, const char *env)
{
	uint8_t key[COLL_KEY_BYTES];
	int listener;

	job_begin(n, QUICK_MS, false);
	job_spawn(1, n, env);
	listener = coll_id_listen(&job.cid);
	assert_true(listener >= 0);
	assert_ok(coll_id_key(&job.cid, key));
	for (int joined = 1; joined < n; joined++) {
		int64_t deadline = coll_now_ms() + 5000;
		struct coll_chan ch;
		struct wire_hello h;

		assert_true(coll_wait_fd(listener, POLLIN, deadline));
		assert_ok(coll_auth_lead(accept4(listener, NULL, NULL,
						 SOCK_CLOEXEC), key,
					 COLL_AUTH_BOOTSTRAP, &ch, deadline));
		/* A real rank's hello fits the mirror of it. */
		assert_true(coll_chan_recv(&ch, &h, sizeof(h), deadline));
		assert_memory_equal(h.magic, HELLO_MAGIC, sizeof(h.magic));
		assert_int_equal(h.nranks, n);
		assert_true(h.rank > 0 && h.rank < n);
		liar.ch[h.rank] = ch;
		liar.info[h.rank] = h.info;
	}
	close(listener);
	liar.info[0] = liar.info[1];
	liar.info[0].host[0] ^= 0xff;
	liar.info[0].node.algo = -1;
}

/*
 * Sends each rank the table of liar.info with @verdict; with @agree,
 * takes each rank's status and answers SUCCESS whatever it was.
 */
static void liar_finish(int32_t verdict, bool agree)
{
	const int32_t ok = TERN_SUCCESS;

	for (int p = 1; p < job.n; p++) {
		for (int q = 0; q < job.n; q++) {
			struct wire_hello h = hello_of(q, job.n);

			h.verdict = verdict;
			h.info = liar.info[q];
			/* a rank that stopped reading may have gone */
			coll_chan_send(&liar.ch[p], &h, sizeof(h));
		}
	}
	/* Which files each rank's areas are (none here: hosts of one). */
	for (int r = 1; agree && r < job.n; r++) {
		uint8_t areas[NRANKS][32] = { { 0 } };

		assert_true(coll_chan_recv(&liar.ch[r], areas[r],
					   sizeof(areas[r]),
					   coll_now_ms() + 5000));
		assert_true(coll_chan_send(&liar.ch[r], areas,
					   (size_t)job.n * sizeof(areas[0])));
	}
	for (int r = 1; agree && r < job.n; r++) {
		assert_true(coll_chan_recv(&liar.ch[r], &liar.said[r],
					   sizeof(liar.said[r]),
					   coll_now_ms() + 5000));
		assert_true(coll_chan_send(&liar.ch[r], &ok, sizeof(ok)));
	}
	job_end();
	for (int r = 1; r < job.n; r++)
		coll_chan_close(&liar.ch[r]);
}

/* A node of 1 << 20 ports in the table: refused, nothing read past it. */
static void test_root_huge_ports(void **state)
{
	(void)state;
	liar_start(3, NULL);
	liar.info[2].node.port_count = 1u << 20;
	liar_finish(TERN_SUCCESS, false);
	expect(1, 0, TERN_ERROR_PEER_FAILED, "rank 0");
}

/* A verdict that is no status: taken as rank 0's failure. */
static void test_root_bad_verdict(void **state)
{
	(void)state;
	liar_start(3, NULL);
	liar_finish(1000, false);
	expect(1, 0, TERN_ERROR_PEER_FAILED, "rank 0");
}

/* A rank that fails (a TERN_ALGO of its own) is told all agreed. */
static void test_root_false_agree(void **state)
{
	(void)state;
	liar_start(2, "TERN_ALGO=ring");
	liar_finish(TERN_SUCCESS, true);
	assert_int_equal(liar.said[1].status, TERN_ERROR_INVALID_ARGUMENT);
	expect(1, 0, TERN_ERROR_INVALID_ARGUMENT, "TERN_ALGO");
}

/*
 * A table of hosts with different numbers of ranks, which rank 0 should
 * have refused, called good: each rank refuses it itself, saying why.
 */
static void test_root_unequal_hosts(void **state)
{
	(void)state;
	liar_start(3, NULL);	/* the liar alone, the real two together */
	liar_finish(TERN_SUCCESS, false);
	expect(1, 0, TERN_ERROR_NOT_SUPPORTED, "different numbers of ranks");
}

/*
 * Another user's process listening at the hand-off name a rank is told:
 * it takes every connection and reports what came, bytes and fds.
 */
static pid_t squatter(const uint8_t name[COLL_TAG_BYTES], int report)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct sockaddr_un addr = { .sun_family = AF_UNIX };
		char buf[4096], control[CMSG_SPACE(16 * sizeof(int))];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct pollfd p = { .events = POLLIN };
		int got[2] = { 0, 0 }, len, fd;
		ssize_t n;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		len = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
			       "tern-handoff-");
		for (int i = 0; i < COLL_TAG_BYTES; i++)
			len += snprintf(addr.sun_path + 1 + len, 3, "%02x",
					name[i]);
		p.fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (bind(p.fd, (struct sockaddr *)&addr,
			 (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     1 + (size_t)len)) || listen(p.fd, 4))
			_exit(4);
		if (write(report, got, 1) != 1)	/* listening */
			_exit(5);
		/* Every connection until none comes for 3 s; each drained. */
		while (poll(&p, 1, 3000) == 1 &&
		       (fd = accept(p.fd, NULL, NULL)) >= 0) {
			struct pollfd c = { .fd = fd, .events = POLLIN };

			while (poll(&c, 1, 1000) == 1) {
				mh.msg_control = control;
				mh.msg_controllen = sizeof(control);
				n = recvmsg(fd, &mh, 0);
				if (n <= 0)
					break;
				got[0] += (int)n;
				if (mh.msg_controllen)
					got[1]++;
			}
			close(fd);
		}
		_exit(write(report, got, sizeof(got)) == sizeof(got) ? 0 : 6);
	}
	return pid;
}

/*
 * A rank 0 that holds the secret tells the ranks of a host that their
 * first rank listens at a name another user holds: the joiner sees that
 * user at the other end and hands over nothing.
 */
static void test_handoff_squatter(void **state)
{
	uint8_t name[COLL_TAG_BYTES];
	int report[2], got[2] = { -1, -1 }, status;
	char ready;
	pid_t pid;

	(void)state;
	if (getuid() != 0)
		skip();		/* another uid needs root */
	assert_int_equal(getrandom(name, sizeof(name), 0), sizeof(name));
	assert_int_equal(pipe(report), 0);
	pid = squatter(name, report[1]);
	assert_true(pid > 0);
	assert_int_equal(read(report[0], &ready, 1), 1);
	/* On the ranks' host, rank 0 is the first: they come to its name. */
	liar_start(3, NULL);
	memcpy(liar.info[0].host, liar.info[1].host, COLL_HOST_BYTES);
	memcpy(liar.info[0].handoff, name, sizeof(name));
	liar_finish(TERN_SUCCESS, false);
	assert_int_equal(read(report[0], got, sizeof(got)), sizeof(got));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(report[0]);
	close(report[1]);
	assert_int_equal(got[0], 0);	/* not a byte */
	assert_int_equal(got[1], 0);	/* nor an fd */
	expect(1, 0, TERN_ERROR_PERMISSION, "another user's process holds");
}

#define AT_ROOT(test)	cmocka_unit_test_setup_teardown(test, root_alone, \
							teardown)
#define ALONE(test)	cmocka_unit_test_teardown(test, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		AT_ROOT(test_random_bytes),
		AT_ROOT(test_garbage_proof),
		AT_ROOT(test_claim_rank),
		AT_ROOT(test_absurd),
		AT_ROOT(test_flood),
		ALONE(test_after_init),
		ALONE(test_fake_root),
		ALONE(test_root_huge_ports),
		ALONE(test_root_bad_verdict),
		ALONE(test_root_false_agree),
		ALONE(test_root_unequal_hosts),
		ALONE(test_handoff_squatter),
		AT_ROOT(test_lying_joiner),
	};
	char name[64];

	if (argc == 7 && strcmp(argv[1], "--rank") == 0)
		return rank_main(argv);
	/* A peer that hangs up must not kill the test writing to it. */
	signal(SIGPIPE, SIG_IGN);
	if (sim_own_machine("hostile", name, sizeof(name), "4", "64"))
		return 1;
	return cmocka_run_group_tests_name("hostile", tests, NULL, NULL) ? 1 :
	       0;
}
