// SPDX-License-Identifier: MIT
/*
 * Communicators across processes, one rank per process (like
 * ncclGetUniqueId + ncclCommInitRank), on one host or several.
 *
 * The ranks meet over TCP at the address the unique id carries
 * (bootstrap.c): each tells rank 0 its fabric id, ports and host and
 * learns everyone's. The ranks of each host then make a comm of their
 * own: the dma-buf fds of each one's scratch and semaphore areas travel
 * as SCM_RIGHTS, which only a Unix socket carries, through an abstract one
 * named by the id's nonce and the host's number, the host's first rank
 * listening, open only to its user. Every rank imports its host peers'
 * areas and plans the rings tern_comm_init_all would. Across hosts
 * (hosts.c) each rank then connects over the network to the ranks at its
 * position on the other hosts. The ranks return together, once all are
 * ready, with one verdict. The TCP connections stay, to carry failures
 * (link.c). A rank that does not arrive within TERN_COMM_INIT_TIMEOUT_MS
 * (default 30000) fails every rank's init with TERN_ERROR_PEER_FAILED. On
 * both backends: the simulated machine's devices are every process's, as
 * tern.ko's are.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <unistd.h>

#include "coll.h"
#include "submit.h"

#define COLL_HANDOFF_MAGIC	"ternfds1"
/* How long ranks wait for each other to arrive (TERN_COMM_INIT_TIMEOUT_MS). */
#define COLL_RANK_TIMEOUT_MS	30000
#define COLL_RANK_TIMEOUT_MAX_MS	3600000

/* Whose two fds travel with it. */
struct coll_handoff {
	char magic[8];
	uint8_t nonce[COLL_NONCE_BYTES];
	int32_t rank, nranks;
};

/*
 * The abstract socket address @host's fds travel through: hosts that are
 * simulated machines of one kernel share the names.
 */
static socklen_t coll_address(const struct coll_id *cid, int host,
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
	len += snprintf(addr->sun_path + 1 + len,
			sizeof(addr->sun_path) - 1 - (size_t)len, "-%d", host);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)len);
}

static bool coll_send_handoff(int sock, const struct coll_handoff *msg,
			      const int fds[2])
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { (void *)msg, sizeof(*msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);

	memset(control.buf, 0, sizeof(control.buf));
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, 2 * sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*msg);
}

/* Receives a handoff and its two fds (-1 when absent). */
static bool coll_recv_handoff(int sock, struct coll_handoff *msg, int fds[2],
			      int64_t deadline)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { msg, sizeof(*msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	ssize_t got;

	fds[0] = fds[1] = -1;
	if (!coll_wait_fd(sock, POLLIN, deadline))
		return false;
	got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(2 * sizeof(int)))
			memcpy(fds, CMSG_DATA(cmsg), 2 * sizeof(int));
	if (got != (ssize_t)sizeof(*msg) || fds[0] < 0 || fds[1] < 0) {
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return false;
	}
	return true;
}

/*
 * Everything the ranks exchange: per rank, its node, host and connection;
 * per rank of our host (by local rank), its node and its two fds.
 */
struct coll_table {
	int nranks;
	struct coll_node node[COLL_MAX_RANKS];
	uint8_t host[COLL_MAX_RANKS][COLL_HOST_BYTES];
	int conn[COLL_MAX_RANKS];	/* rank 0: each peer's; else ours */
	struct coll_hostmap map;
	int nlocal, lrank, lhost;	/* our host's ranks, our place, it */
	struct coll_node local_node[COLL_MAX_RANKS];
	int fds[COLL_MAX_RANKS][2];
	struct coll_net_card card[COLL_MAX_RANKS];
};

static bool coll_handoff_fits(const struct coll_handoff *h,
			      const struct coll_id *cid, int nranks)
{
	return memcmp(h->magic, COLL_HANDOFF_MAGIC, sizeof(h->magic)) == 0 &&
	       memcmp(h->nonce, cid->nonce, sizeof(h->nonce)) == 0 &&
	       h->nranks == nranks && h->rank >= 0 && h->rank < nranks;
}

static void coll_handoff_init(struct coll_handoff *h, const struct coll_id *cid,
			      int rank, int nranks)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, COLL_HANDOFF_MAGIC, sizeof(h->magic));
	memcpy(h->nonce, cid->nonce, sizeof(h->nonce));
	h->rank = rank;
	h->nranks = nranks;
}

/* The Unix socket of a host's first rank for the fds of its host's ranks. */
static int coll_handoff_listen(const struct coll_id *cid, int host)
{
	struct sockaddr_un addr;
	socklen_t len = coll_address(cid, host, &addr);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd >= 0 && (bind(fd, (struct sockaddr *)&addr, len) ||
			listen(fd, COLL_MAX_RANKS))) {
		tern_set_last_error("bootstrap: the id is in use by another communicator being made (%s)",
				    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Only rank 0's user may hand it fds (an abstract socket has no mode). */
static bool coll_same_user(int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       cred.uid == getuid();
}

/* A host's first rank: gathers its host peers' fds, sends each all. */
static tern_status_t coll_handoff_gather(struct coll_table *t,
					 const struct coll_id *cid,
					 int listener, int64_t deadline)
{
	int conn[COLL_MAX_RANKS], joined = 0;
	tern_status_t status = TERN_ERROR_PEER_FAILED;

	for (int r = 0; r < t->nlocal; r++)
		conn[r] = -1;
	while (joined < t->nlocal - 1) {
		struct coll_handoff h;
		int fds[2], fd;

		if (!coll_wait_fd(listener, POLLIN, deadline)) {
			tern_set_last_error("bootstrap: %d of %d ranks of host %d handed its first rank their buffers in time",
					    joined + 1, t->nlocal, t->lhost);
			goto out;
		}
		fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (!coll_same_user(fd) ||
		    !coll_recv_handoff(fd, &h, fds, deadline) ||
		    !coll_handoff_fits(&h, cid, t->nlocal) || h.rank == 0 ||
		    conn[h.rank] >= 0) {
			if (fds[0] >= 0) {
				close(fds[0]);
				close(fds[1]);
			}
			close(fd);
			continue;	/* a stray or duplicate: not one of ours */
		}
		conn[h.rank] = fd;
		t->fds[h.rank][0] = fds[0];
		t->fds[h.rank][1] = fds[1];
		joined++;
	}
	status = TERN_SUCCESS;
	for (int p = 1; p < t->nlocal && status == TERN_SUCCESS; p++) {
		for (int q = 0; q < t->nlocal; q++) {
			struct coll_handoff h;

			coll_handoff_init(&h, cid, q, t->nlocal);
			if (!coll_send_handoff(conn[p], &h, t->fds[q])) {
				status = TERN_ERROR_PEER_FAILED;
				break;
			}
		}
	}
out:
	for (int r = 0; r < t->nlocal; r++)
		if (conn[r] >= 0)
			close(conn[r]);
	return status;
}

/*
 * Any other rank: hands its host's first rank its fds and receives
 * everyone's; that rank binds its socket once it has met rank 0, so a
 * refused connect is tried again until @deadline.
 */
static tern_status_t coll_handoff_join(struct coll_table *t,
				       const struct coll_id *cid,
				       int64_t deadline)
{
	struct sockaddr_un addr;
	socklen_t len = coll_address(cid, t->lhost, &addr);
	struct coll_handoff h;
	tern_status_t status = TERN_ERROR_PEER_FAILED;
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (sock < 0)
		return TERN_ERROR_BACKEND;
	while (connect(sock, (struct sockaddr *)&addr, len)) {
		if (coll_now_ms() >= deadline) {
			tern_set_last_error("bootstrap: local rank %d of host %d cannot reach its host's first rank (%s)",
					    t->lrank, t->lhost, strerror(errno));
			goto out;
		}
		usleep(5000);
	}
	coll_handoff_init(&h, cid, t->lrank, t->nlocal);
	if (!coll_send_handoff(sock, &h, t->fds[t->lrank]))
		goto out;
	for (int q = 0; q < t->nlocal; q++) {
		int fds[2];

		if (!coll_recv_handoff(sock, &h, fds, deadline) ||
		    !coll_handoff_fits(&h, cid, t->nlocal) || h.rank != q)
			goto out;
		if (q == t->lrank) {
			close(fds[0]);	/* our own, back again */
			close(fds[1]);
			continue;
		}
		t->fds[q][0] = fds[0];
		t->fds[q][1] = fds[1];
	}
	status = TERN_SUCCESS;
out:
	close(sock);
	return status;
}

/* Meets the others (bootstrap.c) and learns who shares our host. */
static tern_status_t coll_meet(struct coll_table *t, const struct coll_id *cid,
			       int rank, int64_t deadline)
{
	tern_status_t status;

	if (rank != 0)
		status = coll_meet_peer(cid, rank, t->nranks, t->node, t->host,
					&t->conn[rank], deadline);
	else
		status = coll_meet_root(cid, t->nranks, t->node, t->host,
					t->conn, deadline);
	if (status)
		return status;
	coll_map_hosts(t->nranks, (const uint8_t (*)[COLL_HOST_BYTES])t->host,
		       &t->map);
	t->lhost = t->map.host_of[rank];
	t->lrank = t->map.local_rank[rank];
	t->nlocal = t->map.local_size;
	for (int r = 0; r < t->nranks; r++)
		if (t->map.host_of[r] == t->lhost)
			t->local_node[t->map.local_rank[r]] = t->node[r];
	return TERN_SUCCESS;
}

/* Trades the areas' fds among our host's ranks. */
static tern_status_t coll_handoff(struct coll_table *t,
				  const struct coll_id *cid, int64_t deadline)
{
	tern_status_t status;
	int listener;

	if (t->nlocal == 1)
		return TERN_SUCCESS;
	if (t->lrank != 0)
		return coll_handoff_join(t, cid, deadline);
	listener = coll_handoff_listen(cid, t->lhost);
	if (listener < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_handoff_gather(t, cid, listener, deadline);
	close(listener);
	return status;
}

int64_t coll_init_timeout_ms(void)
{
	return coll_env_ms("TERN_COMM_INIT_TIMEOUT_MS", COLL_RANK_TIMEOUT_MS, 1,
			   COLL_RANK_TIMEOUT_MAX_MS);
}

int64_t coll_cut_ms(void)
{
	return coll_env_ms("TERN_COMM_CUT_MS", COLL_CUT_MS, 1000,
			   COLL_CUT_MAX_MS);
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

/*
 * Our host's comm: its areas, its host peers' imported, checked as
 * tern_comm_init_all checks its devices.
 */
static tern_status_t coll_make_local(struct tern_device *dev,
				     struct coll_table *t,
				     const struct coll_id *cid, int64_t deadline,
				     struct tern_comm **out)
{
	struct tern_comm *c = NULL;
	tern_status_t status;

	status = coll_comm_create(dev, t->lrank, t->nlocal, &c);
	if (status == TERN_SUCCESS && t->nlocal > 1) {
		status = tern_buffer_export(c->scratch, &t->fds[t->lrank][0]);
		if (status == TERN_SUCCESS)
			status = tern_buffer_export(c->sem,
						    &t->fds[t->lrank][1]);
		if (status == TERN_SUCCESS)
			status = coll_handoff(t, cid, deadline);
	}
	for (int p = 0; status == TERN_SUCCESS && p < t->nlocal; p++) {
		if (p == t->lrank)
			continue;
		status = tern_buffer_import(dev, t->fds[p][0],
					    &c->peers[p].scratch);
		if (status == TERN_SUCCESS)
			status = tern_buffer_import(dev, t->fds[p][1],
						    &c->peers[p].sem);
		if (status)
			tern_set_last_error("bootstrap: local rank %d cannot import local rank %d's areas (%s)",
					    t->lrank, p,
					    tern_status_name(status));
	}
	/* Every rank of a host sees the same table, so all refuse this alike. */
	for (int p = 0; status == TERN_SUCCESS && p < t->nlocal; p++)
		for (int q = 0; q < p; q++)
			if (t->local_node[p].fabric_id ==
			    t->local_node[q].fabric_id) {
				tern_set_last_error("bootstrap: local ranks %d and %d of one host share device %d",
						    q, p,
						    t->local_node[p].fabric_id);
				status = TERN_ERROR_INVALID_ARGUMENT;
			}
	/* Ranks that would choose differently would never meet. */
	for (int p = 1; status == TERN_SUCCESS && p < t->nranks; p++)
		if (t->node[p].algo != t->node[0].algo) {
			tern_set_last_error("rank %d has a TERN_ALGO of its own: every rank needs the same",
					    p);
			status = TERN_ERROR_INVALID_ARGUMENT;
		}
	if (status == TERN_SUCCESS) {
		coll_plan_rings(c, t->local_node);
		coll_measure_fabric(c, t->local_node);
		*out = c;
	} else if (c) {
		coll_comm_free(c);
	}
	return status;
}

/*
 * Across hosts: wraps @local (which it then owns) and connects the rail;
 * every rank takes part in the exchange of handles, whatever it found.
 */
static tern_status_t coll_make_across(struct coll_table *t, int rank,
				      struct tern_comm *local, int64_t deadline,
				      struct tern_comm **top)
{
	tern_status_t status, mine;

	mine = coll_hosts_create(local, rank, t->nranks, &t->map,
				 &t->card[rank], top);
	if (mine)
		*top = NULL;	/* @local went with it */
	status = coll_agree(rank, t->nranks, t->conn, mine, deadline);
	if (status == TERN_SUCCESS)
		status = coll_star_allgather(rank, t->nranks, t->conn,
					     t->card, sizeof(t->card[0]),
					     deadline);
	if (status == TERN_SUCCESS)
		status = coll_hosts_connect(*top, t->card, deadline);
	if (status && mine == TERN_SUCCESS) {
		coll_comm_free(*top);
		*top = NULL;
	}
	return status;
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
	bool met = false;

	if (!comm || !id || nranks < 1 || nranks > COLL_MAX_RANKS ||
	    rank < 0 || rank >= nranks ||
	    !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(&cid, id->internal, sizeof(cid));
	if (memcmp(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic)) != 0 ||
	    (cid.family != AF_INET && cid.family != AF_INET6))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (nranks > 1 &&
	    (!(dev->info.capabilities & TERN_DEVICE_CAP_PEER_MEMORY) ||
	     tern_device_fabric_id(dev) < 0))
		return TERN_ERROR_NOT_SUPPORTED;
	if (timeout_ms < 0 || coll_cut_ms() < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	deadline = coll_now_ms() + timeout_ms;

	t = calloc(1, sizeof(*t));
	if (!t)
		return TERN_ERROR_OUT_OF_MEMORY;
	t->nranks = nranks;
	t->nlocal = 1;
	memset(t->fds, -1, sizeof(t->fds));
	memset(t->conn, -1, sizeof(t->conn));
	status = coll_describe(dev, &t->node[rank]);
	t->local_node[0] = t->node[rank];
	if (status == TERN_SUCCESS && nranks > 1) {
		status = coll_meet(t, &cid, rank, deadline);
		met = status == TERN_SUCCESS;
	}
	if (status == TERN_SUCCESS)
		status = coll_make_local(dev, t, &cid, deadline, &c);
	/*
	 * On the simulator an area lives only while its process does, so
	 * none may return before all have imported; and all fail alike.
	 */
	if (met)
		status = coll_agree(rank, nranks, t->conn, status, deadline);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_make_across(t, rank, c, deadline, &c);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_agree(rank, nranks, t->conn, status, deadline);
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_keep_links(c, t);
	coll_table_close(t);
	if (rank == 0)
		coll_id_release(id);	/* one rank: the port was never needed */
	if (status == TERN_SUCCESS) {
		coll_register(c);
		*comm = c;
	} else if (c) {
		coll_comm_free(c);
	}
	free(t);
	return status;
}
