// SPDX-License-Identifier: MIT
/*
 * The hand-off: how the ranks of one host (rank.c) trade the dma-buf fds
 * of their scratch and semaphore areas, which only a Unix socket carries
 * (SCM_RIGHTS). The host's first rank listens at an abstract socket under
 * a random name it bound before telling anyone (through rank 0); each
 * other rank connects, both check the other is the same user
 * (SO_PEERCRED) and prove the id's secret, the first rank first, before
 * any fd moves. The first rank gathers every rank's two fds and sends
 * each rank all of them.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "coll/init/internal.h"

#define COLL_HANDOFF_MAGIC	"ternfds2"
/* How long a host's first rank gives one connection to prove itself. */
#define COLL_HANDOFF_PROVE_MS	5000
/* Room for more fds than a message should carry, to close the extra. */
#define COLL_HANDOFF_FDS_MAX	8

/* Whose two fds travel with it. */
struct coll_handoff {
	char magic[8];
	int32_t rank, nranks;
};

/*
 * The abstract socket address of a hand-off socket: random, not derived
 * from the id, and told only to the ranks, through rank 0. Hosts that are
 * simulated machines of one kernel share the names.
 */
socklen_t coll_handoff_address(const uint8_t name[COLL_TAG_BYTES],
			       struct sockaddr_un *addr)
{
	int len;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	len = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		       "tern-handoff-");
	for (int i = 0; i < COLL_TAG_BYTES; i++)
		len += snprintf(addr->sun_path + 1 + len,
				sizeof(addr->sun_path) - 1 - (size_t)len,
				"%02x", name[i]);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)len);
}

static bool coll_send_handoff(struct coll_chan *ch,
			      const struct coll_handoff *msg, const int fds[2])
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	uint8_t tag[COLL_MAC_BYTES];
	struct iovec iov[2] = { { (void *)msg, sizeof(*msg) },
				{ tag, sizeof(tag) } };
	struct msghdr mh = {
		.msg_iov = iov, .msg_iovlen = 2,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);

	if (!coll_chan_seal(ch, msg, sizeof(*msg), tag))
		return false;
	memset(control.buf, 0, sizeof(control.buf));
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, 2 * sizeof(int));
	return sendmsg(ch->fd, &mh, MSG_NOSIGNAL) ==
	       (ssize_t)(sizeof(*msg) + sizeof(tag));
}

/*
 * Receives a handoff and exactly two fds, under the channel's MAC; on
 * anything else closes whatever fds came and leaves @fds at -1.
 */
static bool coll_recv_handoff(struct coll_chan *ch, struct coll_handoff *msg,
			      int fds[2], int64_t deadline)
{
	union {
		char buf[CMSG_SPACE(COLL_HANDOFF_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	uint8_t tag[COLL_MAC_BYTES];
	struct iovec iov[2] = { { msg, sizeof(*msg) }, { tag, sizeof(tag) } };
	struct msghdr mh = {
		.msg_iov = iov, .msg_iovlen = 2,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	int got_fds[COLL_HANDOFF_FDS_MAX * 2], nfds = 0;
	struct cmsghdr *cmsg;
	ssize_t got;
	bool ok;

	fds[0] = fds[1] = -1;
	if (!coll_wait_fd(ch->fd, POLLIN, deadline))
		return false;
	got = recvmsg(ch->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	for (cmsg = got >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; cmsg;
	     cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		size_t n;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS ||
		    cmsg->cmsg_len < CMSG_LEN(0))
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n && nfds < (int)(sizeof(got_fds) /
							 sizeof(int)); i++)
			memcpy(&got_fds[nfds++],
			       CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
	}
	ok = got == (ssize_t)(sizeof(*msg) + sizeof(tag)) && nfds == 2 &&
	     !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) &&
	     coll_chan_open(ch, msg, sizeof(*msg), tag);
	if (!ok) {
		for (int i = 0; i < nfds; i++)
			close(got_fds[i]);
		return false;
	}
	fds[0] = got_fds[0];
	fds[1] = got_fds[1];
	return true;
}

static bool coll_handoff_fits(const struct coll_handoff *h, int nranks)
{
	return memcmp(h->magic, COLL_HANDOFF_MAGIC, sizeof(h->magic)) == 0 &&
	       h->nranks == nranks && h->rank >= 0 && h->rank < nranks;
}

static void coll_handoff_init(struct coll_handoff *h, int rank, int nranks)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, COLL_HANDOFF_MAGIC, sizeof(h->magic));
	h->rank = rank;
	h->nranks = nranks;
}

/*
 * Every rank binds a hand-off socket at a name of its own before it meets
 * rank 0, so that the name, once told, is already taken; the host's first
 * rank keeps it, the others close it.
 */
tern_status_t coll_handoff_listen(struct coll_table *t, int rank)
{
	struct sockaddr_un addr;
	socklen_t len;
	int fd;

	if (getrandom(t->info[rank].handoff, COLL_TAG_BYTES, 0) !=
	    COLL_TAG_BYTES)
		return TERN_ERROR_BACKEND;
	len = coll_handoff_address(t->info[rank].handoff, &addr);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, len) ||
	    listen(fd, COLL_MAX_RANKS)) {
		tern_set_last_error("bootstrap: cannot make a hand-off socket: %s",
				    strerror(errno));
		if (fd >= 0)
			close(fd);
		return TERN_ERROR_BACKEND;
	}
	t->handoff = fd;
	return TERN_SUCCESS;
}

/* Whether the process at the other end of @conn is this user's. */
static bool coll_same_user(int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       len == sizeof(cred) && cred.uid == getuid();
}

/*
 * A host's first rank: takes the next connection that is this user's and
 * proves the secret, and its fds; false, all closed, for any other.
 */
static bool coll_handoff_take(struct coll_table *t, int listener,
			      struct coll_chan *conn, int64_t deadline)
{
	int64_t prove_by = coll_now_ms() + COLL_HANDOFF_PROVE_MS;
	struct coll_handoff h;
	struct coll_chan ch = { .fd = -1 };
	int fds[2] = { -1, -1 };
	int fd;

	fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return false;
	if (prove_by > deadline)
		prove_by = deadline;
	if (!coll_same_user(fd) ||
	    coll_auth_lead(fd, t->key, COLL_AUTH_HANDOFF, &ch, prove_by) ||
	    !coll_recv_handoff(&ch, &h, fds, prove_by) ||
	    !coll_handoff_fits(&h, t->nlocal) || h.rank == 0 ||
	    conn[h.rank].fd >= 0) {
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		if (ch.fd >= 0)
			coll_chan_close(&ch);
		else
			close(fd);
		return false;	/* a stray or duplicate: not one of ours */
	}
	conn[h.rank] = ch;
	t->fds[h.rank][0] = fds[0];
	t->fds[h.rank][1] = fds[1];
	return true;
}

/* A host's first rank: gathers its host peers' fds, sends each all. */
static tern_status_t coll_handoff_gather(struct coll_table *t, int listener,
					 int64_t deadline)
{
	struct coll_chan conn[COLL_MAX_RANKS];
	tern_status_t status = TERN_ERROR_PEER_FAILED;
	int joined = 0;

	for (int r = 0; r < t->nlocal; r++)
		conn[r].fd = -1;
	while (joined < t->nlocal - 1) {
		if (!coll_wait_fd(listener, POLLIN, deadline)) {
			tern_set_last_error("bootstrap: %d of %d ranks of host %d handed its first rank their buffers in time",
					    joined + 1, t->nlocal, t->lhost);
			goto out;
		}
		if (coll_handoff_take(t, listener, conn, deadline))
			joined++;
	}
	status = TERN_SUCCESS;
	for (int p = 1; p < t->nlocal && status == TERN_SUCCESS; p++) {
		for (int q = 0; q < t->nlocal; q++) {
			struct coll_handoff h;

			coll_handoff_init(&h, q, t->nlocal);
			if (!coll_send_handoff(&conn[p], &h, t->fds[q])) {
				status = TERN_ERROR_PEER_FAILED;
				break;
			}
		}
	}
out:
	for (int r = 0; r < t->nlocal; r++)
		if (conn[r].fd >= 0)
			coll_chan_close(&conn[r]);
	return status;
}

/*
 * Any other rank: hands its host's first rank its fds and receives
 * everyone's, once the socket's owner is this user and has proved the
 * secret; a refused connect is tried again until @deadline.
 */
static tern_status_t coll_handoff_join(struct coll_table *t, int first,
				       int64_t deadline)
{
	struct sockaddr_un addr;
	socklen_t len = coll_handoff_address(t->info[first].handoff, &addr);
	struct coll_handoff h;
	struct coll_chan ch = { .fd = -1 };
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
	if (!coll_same_user(sock)) {
		tern_set_last_error("bootstrap: local rank %d of host %d: another user's process holds its host's hand-off socket; nothing was handed over",
				    t->lrank, t->lhost);
		status = TERN_ERROR_PERMISSION;
		goto out;
	}
	status = coll_auth_join(sock, t->key, COLL_AUTH_HANDOFF, &ch,
				deadline);
	if (status) {
		tern_set_last_error("bootstrap: local rank %d of host %d: its host's hand-off socket %s; nothing was handed over",
				    t->lrank, t->lhost,
				    status == TERN_ERROR_PERMISSION ?
				    "cannot prove it holds the id's secret" :
				    "did not answer");
		goto out;
	}
	status = TERN_ERROR_PEER_FAILED;
	coll_handoff_init(&h, t->lrank, t->nlocal);
	if (!coll_send_handoff(&ch, &h, t->fds[t->lrank]))
		goto out;
	for (int q = 0; q < t->nlocal; q++) {
		int fds[2];

		if (!coll_recv_handoff(&ch, &h, fds, deadline))
			goto out;
		if (!coll_handoff_fits(&h, t->nlocal) || h.rank != q ||
		    q == t->lrank) {
			close(fds[0]);	/* our own back again, or a lie */
			close(fds[1]);
			if (q == t->lrank && h.rank == q &&
			    coll_handoff_fits(&h, t->nlocal))
				continue;
			goto out;
		}
		t->fds[q][0] = fds[0];
		t->fds[q][1] = fds[1];
	}
	status = TERN_SUCCESS;
out:
	if (ch.fd >= 0)
		coll_chan_close(&ch);
	else
		close(sock);
	return status;
}

/* Trades the areas' fds among our host's ranks. */
tern_status_t coll_handoff(struct coll_table *t, int64_t deadline)
{
	if (t->nlocal == 1)
		return TERN_SUCCESS;
	if (t->lrank != 0)
		return coll_handoff_join(t,
					 coll_host_member(&t->map, t->nranks,
							  t->lhost, 0),
					 deadline);
	return coll_handoff_gather(t, t->handoff, deadline);
}
