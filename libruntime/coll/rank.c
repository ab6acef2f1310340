// SPDX-License-Identifier: MIT
/*
 * Communicators across processes on one host, one rank per process (like
 * ncclGetUniqueId + ncclCommInitRank).
 *
 * The unique id names an abstract Unix socket by a random nonce. Rank 0
 * listens on it; every other rank connects and sends its fabric id, ports
 * and the dma-buf fds of its scratch and semaphore areas (SCM_RIGHTS);
 * rank 0 answers each with the whole table, fds included. Every rank then
 * imports its peers' areas and plans the same rings tern_comm_init_all
 * would. The connections stay, to carry failures (link.c). A rank that
 * does not arrive within TERN_COMM_INIT_TIMEOUT_MS (default 30000) fails
 * every rank's init with TERN_ERROR_PEER_FAILED. On both backends: the
 * simulated machine's devices are every process's, as tern.ko's are.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"
#include "submit.h"

#define COLL_ID_MAGIC		"ternuid1"
#define COLL_NONCE_BYTES	16
/* How long ranks wait for each other to arrive (TERN_COMM_INIT_TIMEOUT_MS). */
#define COLL_RANK_TIMEOUT_MS	30000
#define COLL_RANK_TIMEOUT_MAX_MS	3600000

struct coll_id {
	char magic[8];
	uint8_t nonce[COLL_NONCE_BYTES];
};

/* What one rank tells the others; two fds travel with it. */
struct coll_hello {
	char magic[8];
	uint8_t nonce[COLL_NONCE_BYTES];
	int32_t rank, nranks;
	struct coll_node node;
};

_Static_assert(sizeof(struct coll_id) <= TERN_UNIQUE_ID_BYTES,
	       "the id fits tern_unique_id_t");

static bool coll_backend_ready(void)
{
	const struct tern_backend_ops *ops;

	return tern_backend_ops_get(&ops) == TERN_SUCCESS;
}

TERN_API tern_status_t tern_get_unique_id(tern_unique_id_t *id)
{
	struct coll_id cid;

	if (!id)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!coll_backend_ready())
		return TERN_ERROR_NOT_SUPPORTED;
	memcpy(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic));
	if (getrandom(cid.nonce, sizeof(cid.nonce), 0) != sizeof(cid.nonce))
		return TERN_ERROR_BACKEND;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &cid, sizeof(cid));
	return TERN_SUCCESS;
}

void coll_id_derive(const tern_unique_id_t *parent, uint64_t seq, int color,
		    tern_unique_id_t *out)
{
	struct coll_id cid;
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	memcpy(&cid, parent->internal, sizeof(cid));
	for (int i = 0; i < COLL_NONCE_BYTES + 12; i++) {
		uint8_t byte = i < COLL_NONCE_BYTES ? cid.nonce[i] :
			       i < COLL_NONCE_BYTES + 8 ?
			       (uint8_t)(seq >> (8 * (i - COLL_NONCE_BYTES))) :
			       (uint8_t)((uint32_t)color >>
					 (8 * (i - COLL_NONCE_BYTES - 8)));

		h = (h ^ byte) * 1099511628211ull;
		cid.nonce[i % COLL_NONCE_BYTES] ^= (uint8_t)(h >> 56);
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->internal, &cid, sizeof(cid));
}

/* The abstract socket address the id names. */
static socklen_t coll_address(const struct coll_id *cid,
			      struct sockaddr_un *addr)
{
	int len = 0;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	len = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		       "tern-coll-");
	for (int i = 0; i < COLL_NONCE_BYTES; i++)
		len += snprintf(addr->sun_path + 1 + len,
				sizeof(addr->sun_path) - 1 - (size_t)len,
				"%02x", cid->nonce[i]);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)len);
}

static int64_t coll_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until @fd is readable; false at @deadline. */
static bool coll_ready(int fd, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t left;

	for (;;) {
		int ret;

		left = deadline - coll_now_ms();
		if (left <= 0)
			return false;
		ret = poll(&pfd, 1, (int)left);
		if (ret > 0)
			return true;
		if (ret < 0 && errno != EINTR)
			return false;
	}
}

static bool coll_send_hello(int sock, const struct coll_hello *hello,
			    const int fds[2])
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { (void *)hello, sizeof(*hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	memset(control.buf, 0, sizeof(control.buf));
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, 2 * sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(*hello);
}

/* Receives a hello and its two fds (-1 when absent). */
static bool coll_recv_hello(int sock, struct coll_hello *hello, int fds[2],
			    int64_t deadline)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { hello, sizeof(*hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	ssize_t got;

	fds[0] = fds[1] = -1;
	if (!coll_ready(sock, deadline))
		return false;
	got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(2 * sizeof(int)))
			memcpy(fds, CMSG_DATA(cmsg), 2 * sizeof(int));
	if (got != (ssize_t)sizeof(*hello) || fds[0] < 0 || fds[1] < 0) {
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return false;
	}
	return true;
}

/* Everything the ranks exchange: per rank, its node and its two fds. */
struct coll_table {
	int nranks;
	struct coll_node node[COLL_MAX_RANKS];
	int fds[COLL_MAX_RANKS][2];
	int conn[COLL_MAX_RANKS];	/* rank 0: the socket of each peer */
};

static bool coll_hello_fits(const struct coll_hello *h, const struct coll_id *cid,
			    int nranks)
{
	return memcmp(h->magic, COLL_ID_MAGIC, sizeof(h->magic)) == 0 &&
	       memcmp(h->nonce, cid->nonce, sizeof(h->nonce)) == 0 &&
	       h->nranks == nranks && h->rank >= 0 && h->rank < nranks;
}

static void coll_hello_init(struct coll_hello *h, const struct coll_id *cid,
			    int rank, int nranks, const struct coll_node *node)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, COLL_ID_MAGIC, sizeof(h->magic));
	memcpy(h->nonce, cid->nonce, sizeof(h->nonce));
	h->rank = rank;
	h->nranks = nranks;
	h->node = *node;
}

/* Rank 0: gathers every peer's hello, then sends each the whole table. */
static tern_status_t coll_gather(struct coll_table *t, const struct coll_id *cid,
				 int64_t deadline)
{
	struct sockaddr_un addr;
	socklen_t len = coll_address(cid, &addr);
	int listener, joined = 0;
	tern_status_t status = TERN_ERROR_PEER_FAILED;

	listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listener < 0)
		return TERN_ERROR_BACKEND;
	if (bind(listener, (struct sockaddr *)&addr, len) ||
	    listen(listener, COLL_MAX_RANKS)) {
		close(listener);
		return errno == EADDRINUSE ? TERN_ERROR_INVALID_ARGUMENT :
					     TERN_ERROR_BACKEND;
	}
	while (joined < t->nranks - 1) {
		struct coll_hello h;
		int fds[2], conn;

		if (!coll_ready(listener, deadline))
			goto out;
		conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		if (!coll_recv_hello(conn, &h, fds, deadline) ||
		    !coll_hello_fits(&h, cid, t->nranks) || h.rank == 0 ||
		    t->conn[h.rank] >= 0) {
			if (fds[0] >= 0) {
				close(fds[0]);
				close(fds[1]);
			}
			close(conn);
			continue;	/* a stray or duplicate: not one of ours */
		}
		t->conn[h.rank] = conn;
		t->node[h.rank] = h.node;
		t->fds[h.rank][0] = fds[0];
		t->fds[h.rank][1] = fds[1];
		joined++;
	}
	status = TERN_SUCCESS;
	for (int p = 1; p < t->nranks && status == TERN_SUCCESS; p++) {
		for (int q = 0; q < t->nranks; q++) {
			struct coll_hello h;

			coll_hello_init(&h, cid, q, t->nranks, &t->node[q]);
			if (!coll_send_hello(t->conn[p], &h, t->fds[q])) {
				status = TERN_ERROR_PEER_FAILED;
				break;
			}
		}
	}
out:
	close(listener);
	return status;
}

/* Any other rank: joins rank 0 and receives the table. */
static tern_status_t coll_join(struct coll_table *t, const struct coll_id *cid,
			       int rank, int64_t deadline)
{
	struct sockaddr_un addr;
	socklen_t len = coll_address(cid, &addr);
	struct coll_hello h;
	int sock = -1;

	/* Rank 0 may not be listening yet. */
	for (;;) {
		sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (sock < 0)
			return TERN_ERROR_BACKEND;
		if (connect(sock, (struct sockaddr *)&addr, len) == 0)
			break;
		close(sock);
		if (coll_now_ms() >= deadline)
			return TERN_ERROR_PEER_FAILED;
		usleep(10000);
	}
	t->conn[rank] = sock;
	coll_hello_init(&h, cid, rank, t->nranks, &t->node[rank]);
	if (!coll_send_hello(sock, &h, t->fds[rank]))
		return TERN_ERROR_PEER_FAILED;
	for (int q = 0; q < t->nranks; q++) {
		int fds[2];

		if (!coll_recv_hello(sock, &h, fds, deadline) ||
		    !coll_hello_fits(&h, cid, t->nranks) || h.rank != q)
			return TERN_ERROR_PEER_FAILED;
		if (q == rank) {
			close(fds[0]);	/* our own, back again */
			close(fds[1]);
			continue;
		}
		t->node[q] = h.node;
		t->fds[q][0] = fds[0];
		t->fds[q][1] = fds[1];
	}
	return TERN_SUCCESS;
}

int64_t coll_init_timeout_ms(void)
{
	const char *env = getenv("TERN_COMM_INIT_TIMEOUT_MS");
	char *end;
	long long ms;

	if (!env)
		return COLL_RANK_TIMEOUT_MS;
	errno = 0;
	ms = strtoll(env, &end, 10);
	if (errno || end == env || *end || ms < 1 ||
	    ms > COLL_RANK_TIMEOUT_MAX_MS) {
		tern_debug("TERN_COMM_INIT_TIMEOUT_MS=%s: want 1..%d", env,
			   COLL_RANK_TIMEOUT_MAX_MS);
		return -1;
	}
	return ms;
}

/* Moves the connections the star keeps from @t into @c's link. */
static tern_status_t coll_keep_links(struct tern_comm *c, struct coll_table *t)
{
	int fds[COLL_MAX_RANKS];
	tern_status_t status;

	for (int r = 0; r < t->nranks; r++)
		fds[r] = -1;
	if (c->rank == 0) {
		for (int r = 1; r < t->nranks; r++)
			fds[r] = t->conn[r];
	} else {
		fds[0] = t->conn[c->rank];
	}
	status = coll_link_create(c, fds);
	if (status)
		return status;
	for (int r = 0; r < t->nranks; r++)
		if (fds[r] >= 0)
			t->conn[c->rank == 0 ? r : c->rank] = -1;
	return TERN_SUCCESS;
}

static void coll_table_close(struct coll_table *t)
{
	for (int r = 0; r < t->nranks; r++) {
		for (int i = 0; i < 2; i++)
			if (t->fds[r][i] >= 0)
				close(t->fds[r][i]);
		if (t->conn[r] >= 0)
			close(t->conn[r]);
	}
}

TERN_API tern_status_t tern_comm_init_rank(tern_comm_t *comm, int nranks,
					   const tern_unique_id_t *id,
					   int rank, tern_device_t device)
{
	struct tern_device *dev = device;
	struct tern_comm *c = NULL;
	struct coll_table *t;
	struct coll_id cid;
	tern_status_t status;
	int64_t timeout_ms = coll_init_timeout_ms(), deadline;

	if (!comm || !id || nranks < 1 || nranks > COLL_MAX_RANKS ||
	    rank < 0 || rank >= nranks ||
	    !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(&cid, id->internal, sizeof(cid));
	if (memcmp(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic)) != 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (nranks > 1 &&
	    (!(dev->info.capabilities & TERN_DEVICE_CAP_PEER_MEMORY) ||
	     tern_device_fabric_id(dev) < 0))
		return TERN_ERROR_NOT_SUPPORTED;
	if (timeout_ms < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	deadline = coll_now_ms() + timeout_ms;

	t = calloc(1, sizeof(*t));
	if (!t)
		return TERN_ERROR_OUT_OF_MEMORY;
	t->nranks = nranks;
	memset(t->fds, -1, sizeof(t->fds));
	memset(t->conn, -1, sizeof(t->conn));
	status = coll_comm_create(dev, rank, nranks, &c);
	if (status == TERN_SUCCESS)
		status = coll_describe(dev, &t->node[rank]);
	if (status == TERN_SUCCESS && nranks > 1) {
		status = tern_buffer_export(c->scratch, &t->fds[rank][0]);
		if (status == TERN_SUCCESS)
			status = tern_buffer_export(c->sem, &t->fds[rank][1]);
		if (status == TERN_SUCCESS)
			status = rank == 0 ? coll_gather(t, &cid, deadline) :
					     coll_join(t, &cid, rank, deadline);
	}
	for (int p = 0; status == TERN_SUCCESS && p < nranks; p++) {
		if (p == rank)
			continue;
		status = tern_buffer_import(dev, t->fds[p][0],
					    &c->peers[p].scratch);
		if (status == TERN_SUCCESS)
			status = tern_buffer_import(dev, t->fds[p][1],
						    &c->peers[p].sem);
	}
	/* Every rank sees the same table, so all refuse this alike. */
	for (int p = 0; status == TERN_SUCCESS && p < nranks; p++)
		for (int q = 0; q < p; q++)
			if (t->node[p].fabric_id == t->node[q].fabric_id)
				status = TERN_ERROR_INVALID_ARGUMENT;
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_keep_links(c, t);
	coll_table_close(t);
	if (status == TERN_SUCCESS) {
		c->uid = *id;
		coll_plan_rings(c, t->node);
		coll_register(c);
		*comm = c;
	} else if (c) {
		coll_comm_free(c);
	}
	free(t);
	return status;
}
