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
 * the host's first rank listens at, under a random name it bound before
 * telling anyone: each side checks the other is the same user
 * (SO_PEERCRED) and proves the id's secret, the first rank first, before
 * any fd moves. Every rank imports its host peers'
 * areas and plans the rings tern_comm_init_all would. Across hosts
 * (hosts.c) each rank then connects over the network to the ranks at its
 * position on the other hosts. The ranks return together, once all are
 * ready, with one verdict. The TCP connections stay, to carry failures
 * (link.c). A rank that does not arrive within TERN_COMM_INIT_TIMEOUT_MS
 * (default 30000), or the caller's timeout (tern_comm_init_rank_timeout),
 * fails every rank's init with TERN_ERROR_PEER_FAILED. On
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
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "coll.h"
#include "settings.h"
#include "submit.h"

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
 * Everything the ranks exchange: per rank, what it told the others and
 * its channel; per rank of our host (by local rank), its node and its two
 * fds.
 */
struct coll_table {
	int nranks;
	uint8_t key[COLL_KEY_BYTES];
	struct coll_rank_info info[COLL_MAX_RANKS];
	struct coll_chan chan[COLL_MAX_RANKS];	/* rank 0: each peer's; else ours */
	struct coll_hostmap map;
	int nlocal, lrank, lhost;	/* our host's ranks, our place, it */
	int handoff;			/* our hand-off socket, while it may serve */
	struct coll_node local_node[COLL_MAX_RANKS];
	int fds[COLL_MAX_RANKS][2];
	struct coll_net_card card[COLL_MAX_RANKS];
	/* By rank: the files its areas are, as it exported them. */
	struct coll_area_ids {
		uint64_t dev[2], ino[2];
	} area[COLL_MAX_RANKS];
};

/*
 * The abstract socket address of a hand-off socket: random, not derived
 * from the id, and told only to the ranks, through rank 0. Hosts that are
 * simulated machines of one kernel share the names.
 */
static socklen_t coll_address(const uint8_t name[COLL_TAG_BYTES],
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
static tern_status_t coll_handoff_listen(struct coll_table *t, int rank)
{
	struct sockaddr_un addr;
	socklen_t len;
	int fd;

	if (getrandom(t->info[rank].handoff, COLL_TAG_BYTES, 0) !=
	    COLL_TAG_BYTES)
		return TERN_ERROR_BACKEND;
	len = coll_address(t->info[rank].handoff, &addr);
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
	socklen_t len = coll_address(t->info[first].handoff, &addr);
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

/* Meets the others (bootstrap.c) and learns who shares our host. */
static tern_status_t coll_meet(struct coll_table *t, const struct coll_id *cid,
			       int rank, int64_t deadline)
{
	tern_status_t status;
	int first = -1;

	if (rank != 0)
		status = coll_meet_peer(cid, t->key, rank, t->nranks, t->info,
					&t->chan[rank], deadline);
	else
		status = coll_meet_root(cid, t->key, t->nranks, t->info,
					t->chan, deadline);
	if (status)
		return status;
	coll_map_hosts(t->nranks, t->info, &t->map);
	/* Rank 0 refuses this; a rank 0 that lies is refused here. */
	if (!t->map.local_size) {
		tern_set_last_error("bootstrap: rank %d: the hosts hold different numbers of ranks; a communicator across hosts needs as many on each",
				    rank);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	t->lhost = t->map.host_of[rank];
	t->lrank = t->map.local_rank[rank];
	t->nlocal = t->map.local_size;
	for (int r = 0; r < t->nranks; r++) {
		if (t->map.host_of[r] != t->lhost)
			continue;
		t->local_node[t->map.local_rank[r]] = t->info[r].node;
		if (first < 0)
			first = r;
	}
	/* Its host's first rank keeps its hand-off socket; we no longer. */
	if (first != rank && t->handoff >= 0) {
		close(t->handoff);
		t->handoff = -1;
	}
	return TERN_SUCCESS;
}

/* Trades the areas' fds among our host's ranks. */
static tern_status_t coll_handoff(struct coll_table *t, int64_t deadline)
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

/* Which files @fds are; zeros where none. */
static void coll_area_ids_of(const int fds[2], struct coll_area_ids *ids)
{
	struct stat st;

	memset(ids, 0, sizeof(*ids));
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0 && fstat(fds[i], &st) == 0) {
			ids->dev[i] = st.st_dev;
			ids->ino[i] = st.st_ino;
		}
	}
}

/*
 * Every rank tells the others which files its areas are, and each checks
 * that what its host's first rank handed it for each host peer is that
 * peer's own: a member in the middle cannot pass one rank's areas off as
 * another's. Every rank that met takes part, whatever @status, so that
 * none waits for another.
 */
static tern_status_t coll_check_areas(struct coll_table *t, int rank,
				      tern_status_t status, int64_t deadline)
{
	tern_status_t said;

	if (status == TERN_SUCCESS && t->nlocal > 1)
		coll_area_ids_of(t->fds[t->lrank], &t->area[rank]);
	said = coll_star_allgather(rank, t->nranks, t->chan, t->area,
				   sizeof(t->area[0]), deadline);
	if (status)
		return status;
	if (said)
		return said;
	for (int p = 0; t->nlocal > 1 && p < t->nlocal; p++) {
		int owner = coll_host_member(&t->map, t->nranks, t->lhost, p);
		struct coll_area_ids got;

		static const struct coll_area_ids none;

		coll_area_ids_of(t->fds[p], &got);
		if (owner == rank)
			continue;
		if (memcmp(&t->area[owner], &none, sizeof(none)) == 0) {
			tern_set_last_error("bootstrap: rank %d: rank %d has no areas to hand over: its init failed",
					    rank, owner);
			return TERN_ERROR_PEER_FAILED;
		}
		if (memcmp(&got, &t->area[owner], sizeof(got)) != 0) {
			tern_set_last_error("bootstrap: rank %d was handed areas for rank %d that are not rank %d's",
					    rank, owner, owner);
			return TERN_ERROR_PEER_FAILED;
		}
	}
	return TERN_SUCCESS;
}

int64_t coll_init_timeout_ms(void)
{
	int64_t ms = 0;

	return tern_setting_number("TERN_COMM_INIT_TIMEOUT_MS", &ms) ? -1 : ms;
}

int64_t coll_cut_ms(void)
{
	int64_t ms = 0;

	return tern_setting_number("TERN_COMM_CUT_MS", &ms) ? -1 : ms;
}

/* Moves the channels the star keeps from @t into @c's link. */
static tern_status_t coll_keep_links(struct tern_comm *c, struct coll_table *t)
{
	struct coll_chan *mine = &t->chan[c->rank];
	tern_status_t status;

	status = coll_link_create(c, c->rank == 0 ? t->chan : mine);
	if (status)
		return status;
	/* The link has them now. */
	for (int r = 0; r < t->nranks; r++)
		if (c->rank == 0 || r == c->rank)
			t->chan[r].fd = -1;
	return TERN_SUCCESS;
}

static void coll_table_close(struct coll_table *t)
{
	for (int r = 0; r < t->nranks; r++) {
		for (int i = 0; i < 2; i++)
			if (t->fds[r][i] >= 0)
				close(t->fds[r][i]);
		if (t->chan[r].fd >= 0)
			coll_chan_close(&t->chan[r]);
	}
	if (t->handoff >= 0)
		close(t->handoff);
	/* The link took its channels' fds; their keys stay with it alone. */
	OPENSSL_cleanse(t->chan, sizeof(t->chan));
	OPENSSL_cleanse(t->key, sizeof(t->key));
}

/*
 * Imports a host peer's area from @fd, which must be the size of our own
 * @like (to the page an export rounds it to): areas handed over swapped
 * or twice are refused rather than written through.
 */
static tern_status_t coll_import_area(struct tern_device *dev, int fd,
				      struct tern_buffer *like,
				      struct tern_buffer **out)
{
	const size_t page = 4096;
	size_t want = 0, got = 0;
	tern_status_t status;

	status = tern_buffer_import(dev, fd, out);
	if (status)
		return status;
	if (tern_buffer_size(like, &want) || tern_buffer_size(*out, &got) ||
	    (want + page - 1) / page != (got + page - 1) / page) {
		tern_buffer_free(*out);
		*out = NULL;
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

/*
 * Our host's comm: its areas, its host peers' imported, checked as
 * tern_comm_init_all checks its devices.
 */
static tern_status_t coll_make_local(struct tern_device *dev,
				     struct coll_table *t, int64_t deadline,
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
			status = coll_handoff(t, deadline);
	}
	for (int p = 0; status == TERN_SUCCESS && p < t->nlocal; p++) {
		if (p == t->lrank)
			continue;
		status = coll_import_area(dev, t->fds[p][0], c->scratch,
					  &c->peers[p].scratch);
		if (status == TERN_SUCCESS)
			status = coll_import_area(dev, t->fds[p][1], c->sem,
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
		if (t->info[p].node.algo != t->info[0].node.algo) {
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
	status = coll_agree(rank, t->nranks, t->chan, mine, NULL, deadline);
	if (status == TERN_SUCCESS)
		status = coll_star_allgather(rank, t->nranks, t->chan,
					     t->card, sizeof(t->card[0]),
					     deadline);
	if (status == TERN_SUCCESS)
		status = coll_cards_fit(t->card, t->nranks);
	if (status == TERN_SUCCESS)
		status = coll_hosts_connect(*top, t->card, t->key, deadline);
	if (status && mine == TERN_SUCCESS) {
		coll_comm_free(*top);
		*top = NULL;
	}
	return status;
}

/* tern_comm_init_rank, the others waited for up to @timeout_ms (-1: bad). */
static tern_status_t coll_init_rank(tern_comm_t *comm, int nranks,
				    const tern_unique_id_t *id, int rank,
				    tern_device_t device, int64_t timeout_ms)
{
	struct tern_device *dev = device;
	struct tern_comm *c = NULL;
	struct coll_table *t;
	struct coll_id cid;
	tern_status_t status;
	int64_t deadline;
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
	t->handoff = -1;
	memset(t->fds, -1, sizeof(t->fds));
	for (int r = 0; r < nranks; r++)
		t->chan[r].fd = -1;
	status = coll_describe(dev, &t->info[rank].node);
	t->local_node[0] = t->info[rank].node;
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_id_key(&cid, t->key);
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_handoff_listen(t, rank);
	if (status == TERN_SUCCESS && nranks > 1) {
		status = coll_meet(t, &cid, rank, deadline);
		met = status == TERN_SUCCESS;
	}
	if (status == TERN_SUCCESS)
		status = coll_make_local(dev, t, deadline, &c);
	/*
	 * On the simulator an area lives only while its process does, so
	 * none may return before all have imported; and all fail alike.
	 */
	if (met)
		status = coll_check_areas(t, rank, status, deadline);
	if (met)
		status = coll_agree(rank, nranks, t->chan, status, t->info,
				    deadline);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_make_across(t, rank, c, deadline, &c);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_agree(rank, nranks, t->chan, status, NULL,
				    deadline);
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_keep_links(c, t);
	coll_table_close(t);
	if (rank == 0)
		coll_id_release(id);	/* one rank: the port was never needed */
	OPENSSL_cleanse(&cid, sizeof(cid));
	if (status == TERN_SUCCESS) {
		coll_register(c);
		*comm = c;
	} else if (c) {
		coll_comm_free(c);
	}
	free(t);
	return status;
}

TERN_API tern_status_t tern_comm_init_rank(tern_comm_t *comm, int nranks,
					   const tern_unique_id_t *id,
					   int rank, tern_device_t device)
{
	return coll_init_rank(comm, nranks, id, rank, device,
			      coll_init_timeout_ms());
}

TERN_API tern_status_t tern_comm_init_rank_timeout(tern_comm_t *comm,
						   int nranks,
						   const tern_unique_id_t *id,
						   int rank,
						   tern_device_t device,
						   int timeout_ms)
{
	if (timeout_ms < 1 || timeout_ms > TERN_COMM_INIT_TIMEOUT_MAX_MS) {
		tern_set_last_error("tern_comm_init_rank_timeout: %d ms: want 1 to %d",
				    timeout_ms, TERN_COMM_INIT_TIMEOUT_MAX_MS);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return coll_init_rank(comm, nranks, id, rank, device, timeout_ms);
}
