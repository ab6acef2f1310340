// SPDX-License-Identifier: MIT
/*
 * Bootstrap: where the ranks of a communicator made by tern_comm_init_rank
 * meet, over TCP (like NCCL's bootstrap), at the address the id carries
 * (trust/id.c).
 *
 * Rank 0 listens; every other rank connects, and before either says
 * anything else, rank 0 proves it holds the id's secret and then the rank
 * does (trust/auth.c): a connection that cannot is closed and counted. Each
 * rank then says who it is and where (its host, its devices' ports), and
 * rank 0 answers each with everyone's and its verdict, every message
 * under the connection's MAC. Ranks with the same host share memory and
 * the chip fabric; a communicator may span hosts that each hold as many
 * ranks. The connections stay, a star around rank 0, to carry failures
 * (comm/link.c).
 *
 * Rank 0 reads all connections at once, none blocking it, so one that
 * says nothing (a port scanner, a flood) delays no one; past
 * COLL_PENDING_MAX unproven connections the one accepted longest ago is
 * closed. A rank whose connection closes before rank 0 proved itself
 * connects again until its deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "coll/init/internal.h"

/* Where the init's timeout came from, for the messages that it ended. */
#define COLL_INIT_TIMEOUT_HINT \
	"see the init timeout (TERN_COMM_INIT_TIMEOUT_MS, or the one given to tern_comm_init_rank_timeout)"

#define COLL_HELLO_MAGIC	"ternhlo3"
/* Unproven connections rank 0 reads at once before the oldest goes. */
#define COLL_PENDING_MAX	(2 * COLL_MAX_RANKS)

/* What one rank tells rank 0, and rank 0 tells each about every rank. */
struct coll_hello {
	char magic[8];
	int32_t rank, nranks;
	int32_t verdict;		/* rank 0's answers: how init ends */
	int32_t reserved;
	struct coll_rank_info info;
};

/* ---- who is where ---- */

/*
 * The kernel's boot id, the machine (a host may run several simulated
 * ones) and the network namespace: ranks with the same value share
 * memory and reach each other's abstract sockets.
 */
static void coll_host_key(uint8_t key[COLL_HOST_BYTES])
{
	const struct tern_backend_ops *ops;
	char machine[192] = "";
	uint32_t hash = 2166136261u;	/* FNV-1a */
	struct stat st;
	FILE *f;

	memset(key, 0, COLL_HOST_BYTES);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets((char *)key, COLL_HOST_BYTES - 12, f))
			key[0] = 0;
		fclose(f);
	}
	if (tern_backend_ops_get(&ops) == TERN_SUCCESS && ops->machine_name)
		ops->machine_name(machine, sizeof(machine));
	for (const char *p = machine; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	memcpy(key + COLL_HOST_BYTES - 12, &hash, sizeof(hash));
	if (stat("/proc/self/ns/net", &st) == 0)
		memcpy(key + COLL_HOST_BYTES - 8, &st.st_ino,
		       sizeof(st.st_ino) < 8 ? sizeof(st.st_ino) : 8);
}

bool coll_node_fits(const struct coll_node *node)
{
	if (node->fabric_id < 0 || node->port_count > 16 ||
	    !coll_forced_fits(node->algo))
		return false;
	for (uint32_t p = 0; p < node->port_count; p++)
		if (node->neighbour[p] < -1)
			return false;
	return true;
}

static void coll_hello_init(struct coll_hello *h, int rank, int nranks,
			    const struct coll_rank_info *info)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, COLL_HELLO_MAGIC, sizeof(h->magic));
	h->rank = rank;
	h->nranks = nranks;
	h->info = *info;
}

static bool coll_hello_fits(const struct coll_hello *h, int nranks)
{
	return memcmp(h->magic, COLL_HELLO_MAGIC, sizeof(h->magic)) == 0 &&
	       h->nranks == nranks && h->rank >= 0 && h->rank < nranks &&
	       h->verdict >= TERN_SUCCESS && h->verdict <= COLL_STATUS_LAST &&
	       coll_node_fits(&h->info.node);
}

/* A status a peer sent: one of ours, or a lie taken as its failure. */
static tern_status_t coll_status_said(int32_t said)
{
	return said >= TERN_SUCCESS && said <= COLL_STATUS_LAST ?
	       (tern_status_t)said : TERN_ERROR_PEER_FAILED;
}

/*
 * A digest of the table a rank plans with, field by field (no padding
 * bytes): ranks that plan from different tables would never meet.
 */
static void coll_table_digest(const struct coll_rank_info *info, int nranks,
			      uint8_t out[COLL_MAC_BYTES])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL);

	for (int r = 0; ok && r < nranks; r++) {
		const struct coll_node *n = &info[r].node;

		ok = EVP_DigestUpdate(md, &n->fabric_id, sizeof(n->fabric_id)) &&
		     EVP_DigestUpdate(md, &n->port_count,
				      sizeof(n->port_count)) &&
		     EVP_DigestUpdate(md, n->neighbour, sizeof(n->neighbour)) &&
		     EVP_DigestUpdate(md, n->latency_ns,
				      sizeof(n->latency_ns)) &&
		     EVP_DigestUpdate(md, n->bandwidth, sizeof(n->bandwidth)) &&
		     EVP_DigestUpdate(md, &n->algo, sizeof(n->algo)) &&
		     EVP_DigestUpdate(md, info[r].host, sizeof(info[r].host)) &&
		     EVP_DigestUpdate(md, info[r].handoff,
				      sizeof(info[r].handoff));
	}
	if (!ok || !EVP_DigestFinal_ex(md, out, NULL))
		memset(out, 0, COLL_MAC_BYTES);
	EVP_MD_CTX_free(md);
}

/* A rank's status for rank 0, and the digest of the table it holds. */
struct coll_verdict {
	int32_t status;
	int32_t reserved;
	uint8_t table[COLL_MAC_BYTES];
};

tern_status_t coll_agree(int rank, int nranks, struct coll_chan *chan,
			 tern_status_t status,
			 const struct coll_rank_info *table, int64_t deadline)
{
	struct coll_verdict mine = { .status = (int32_t)status }, said;
	int32_t verdict = (int32_t)status;

	if (table)
		coll_table_digest(table, nranks, mine.table);
	if (rank != 0) {
		if (!coll_chan_send(&chan[rank], &mine, sizeof(mine)) ||
		    !coll_chan_recv(&chan[rank], &said.status,
				    sizeof(said.status), deadline))
			said.status = TERN_ERROR_PEER_FAILED;
		/* Our own failure stands whatever rank 0 says. */
		if (status)
			return status;
		if (said.status != TERN_SUCCESS)
			tern_set_last_error("bootstrap: rank %d: init failed elsewhere (%s); see that rank's error",
					    rank, tern_status_name(coll_status_said(said.status)));
		return coll_status_said(said.status);
	}
	for (int r = 1; r < nranks; r++) {
		bool tampered = false;

		if (!coll_chan_recv(&chan[r], &said, sizeof(said), deadline))
			said.status = TERN_ERROR_PEER_FAILED;
		else if (table && said.status == TERN_SUCCESS &&
			 memcmp(said.table, mine.table, sizeof(mine.table)))
			tampered = true;
		if (verdict != TERN_SUCCESS ||
		    (said.status == TERN_SUCCESS && !tampered))
			continue;
		/* The first failure is the one every rank returns: say it. */
		verdict = tampered ? TERN_ERROR_PEER_FAILED :
			  (int32_t)coll_status_said(said.status);
		if (tampered)
			tern_set_last_error("bootstrap: rank %d holds another table of the ranks than rank 0: its connection was tampered with",
					    r);
		else
			tern_set_last_error("bootstrap: rank %d failed its init (%s); see that rank's error",
					    r, tern_status_name((tern_status_t)verdict));
	}
	/* A rank gone by now learns nothing: the others still agree. */
	for (int r = 1; r < nranks; r++)
		coll_chan_send(&chan[r], &verdict, sizeof(verdict));
	return (tern_status_t)verdict;
}

tern_status_t coll_star_allgather(int rank, int nranks, struct coll_chan *chan,
				  void *all, size_t len, int64_t deadline)
{
	uint8_t *at = all;

	if (rank != 0) {
		if (!coll_chan_send(&chan[rank], at + (size_t)rank * len, len) ||
		    !coll_chan_recv(&chan[rank], all, (size_t)nranks * len,
				    deadline))
			return TERN_ERROR_PEER_FAILED;
		return TERN_SUCCESS;
	}
	for (int r = 1; r < nranks; r++)
		if (!coll_chan_recv(&chan[r], at + (size_t)r * len, len,
				    deadline))
			return TERN_ERROR_PEER_FAILED;
	for (int r = 1; r < nranks; r++)
		if (!coll_chan_send(&chan[r], all, (size_t)nranks * len))
			return TERN_ERROR_PEER_FAILED;
	return TERN_SUCCESS;
}

static void coll_tune_connection(int fd)
{
	const int64_t cut = coll_cut_ms();
	const unsigned int user_ms = (unsigned int)(cut > 0 ? cut : COLL_CUT_MS);
	/* probes from half the bound on, a second apart */
	int on = 1, idle = (int)(user_ms / 2000), interval = 1;
	int probes = (int)(user_ms / 2000) + 1;

	/* Link messages are small and mean "now". */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	/*
	 * An idle link carries nothing: keepalives, which the peer's kernel
	 * answers however busy its process, tell a host cut off from one
	 * that is quiet; TCP_USER_TIMEOUT bounds both them and unacked data.
	 */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval,
		   sizeof(interval));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms,
		   sizeof(user_ms));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

/* ---- rank 0 ---- */

/*
 * A connection rank 0 has accepted and not yet trusted: it reads the
 * joiner's challenge, answers with its own proof, then reads the joiner's
 * proof and hello with its MAC, all in one buffer, never waiting on it.
 */
struct coll_pending {
	int fd;
	int64_t since;			/* when accepted: the oldest goes */
	bool answered;
	size_t got;
	struct coll_auth_state auth;
	union {
		struct coll_auth_hello hello;
		struct {
			uint8_t proof[COLL_MAC_BYTES];
			struct coll_hello h;
			uint8_t tag[COLL_MAC_BYTES];
		} joined;
	} in;
};

/* The joiner sends them as one run of bytes. */
_Static_assert(sizeof(((struct coll_pending *)0)->in.joined) ==
	       2 * COLL_MAC_BYTES + sizeof(struct coll_hello),
	       "a joiner's proof, hello and tag, unpadded");

struct coll_gathering {
	const uint8_t *key;
	int nranks, joined;
	struct coll_rank_info *info;
	struct coll_chan *chan;
	struct coll_pending pend[COLL_PENDING_MAX];
	int npend;
	unsigned int refused;		/* connections that proved nothing */
};

static void coll_pending_drop(struct coll_gathering *g, int i, bool refuse)
{
	if (refuse) {
		close(g->pend[i].fd);
		g->refused++;
	}
	g->pend[i] = g->pend[--g->npend];
}

/* The joiner's proof and hello have come: adopts it, or refuses it. */
static void coll_pending_adopt(struct coll_gathering *g, int i)
{
	struct coll_pending *p = &g->pend[i];
	struct coll_chan ch;
	const struct coll_hello *h = &p->in.joined.h;

	if (!coll_auth_check_join(&p->auth, g->key, p->in.joined.proof, p->fd,
				  &ch) ||
	    !coll_chan_open(&ch, h, sizeof(*h), p->in.joined.tag) ||
	    !coll_hello_fits(h, g->nranks) || h->rank == 0 ||
	    g->chan[h->rank].fd >= 0) {
		coll_pending_drop(g, i, true);	/* not one of ours */
		return;
	}
	g->chan[h->rank] = ch;
	g->info[h->rank] = h->info;
	g->joined++;
	coll_tune_connection(p->fd);
	coll_pending_drop(g, i, false);
}

/* Reads what pending connection @i sent, and answers its challenge. */
static void coll_pending_read(struct coll_gathering *g, int i)
{
	struct coll_pending *p = &g->pend[i];
	size_t want = p->answered ? sizeof(p->in.joined) :
		      sizeof(p->in.hello);
	ssize_t got = recv(p->fd, (char *)&p->in + p->got, want - p->got,
			   MSG_DONTWAIT);

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		coll_pending_drop(g, i, true);
		return;
	}
	p->got += (size_t)got;
	if (p->got < want)
		return;
	if (p->answered) {
		coll_pending_adopt(g, i);
		return;
	}
	/* A new socket's buffer takes the answer whole, or it is refused. */
	if (!coll_auth_answer(&p->auth, g->key, &p->in.hello) ||
	    send(p->fd, &p->auth.reply, sizeof(p->auth.reply),
		 MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(p->auth.reply)) {
		coll_pending_drop(g, i, true);
		return;
	}
	p->answered = true;
	p->got = 0;
}

/* Takes a connection waiting at @listener; false if none was. */
static bool coll_accept(struct coll_gathering *g, int listener)
{
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int oldest = 0;

	if (fd < 0)
		return false;
	/*
	 * Full: the oldest that has not even sent a challenge goes first; a
	 * rank answered is one round trip from proving itself.
	 */
	if (g->npend == COLL_PENDING_MAX) {
		for (int i = 1; i < g->npend; i++) {
			const struct coll_pending *p = &g->pend[i];
			const struct coll_pending *o = &g->pend[oldest];

			if (p->answered != o->answered ? !p->answered :
			    p->since < o->since)
				oldest = i;
		}
		coll_pending_drop(g, oldest, true);
	}
	g->pend[g->npend] = (struct coll_pending){ .fd = fd,
						   .since = coll_now_ms() };
	coll_auth_greet(&g->pend[g->npend].auth, COLL_AUTH_BOOTSTRAP);
	g->npend++;
	return true;
}

/* Polls the listener and every pending connection until all have joined. */
static bool coll_gather_hellos(struct coll_gathering *g, int listener,
			       int64_t deadline)
{
	struct pollfd pfd[1 + COLL_PENDING_MAX];

	while (g->joined < g->nranks - 1) {
		int64_t left = deadline - coll_now_ms();
		int n = g->npend, ret;

		if (left <= 0)
			return false;
		pfd[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
		for (int i = 0; i < n; i++)
			pfd[1 + i] = (struct pollfd){ .fd = g->pend[i].fd,
						      .events = POLLIN };
		ret = poll(pfd, (nfds_t)(1 + n), (int)left);
		if (ret < 0 && errno != EINTR)
			return false;
		if (ret <= 0)
			continue;
		/* Backwards: dropping i moves the last one into its place. */
		for (int i = n - 1; i >= 0; i--)
			if (pfd[1 + i].revents)
				coll_pending_read(g, i);
		/* Several a turn, so that a flood cannot starve the rest. */
		for (int k = 0; k < 8 && (pfd[0].revents & POLLIN); k++)
			if (!coll_accept(g, listener))
				break;
	}
	return true;
}

void coll_map_hosts(int nranks, const struct coll_rank_info *info,
		    struct coll_hostmap *map)
{
	int first[COLL_MAX_RANKS], count[COLL_MAX_RANKS] = { 0 };

	map->nhosts = 0;
	for (int r = 0; r < nranks; r++) {
		int h = 0;

		while (h < map->nhosts &&
		       memcmp(info[first[h]].host, info[r].host,
			      COLL_HOST_BYTES) != 0)
			h++;
		if (h == map->nhosts)
			first[map->nhosts++] = r;
		map->host_of[r] = h;
		map->local_rank[r] = count[h]++;
	}
	map->local_size = count[0];
	for (int h = 1; h < map->nhosts; h++)
		if (count[h] != map->local_size)
			map->local_size = 0;
}

/*
 * SUCCESS if the ranks are on one host, or on hosts that each hold as
 * many: the shards of a collective across hosts go between the ranks at
 * one position on each (rails), so every host needs every position.
 */
static tern_status_t coll_verdict(struct coll_gathering *g)
{
	struct coll_hostmap map;

	coll_map_hosts(g->nranks, g->info, &map);
	if (map.local_size)
		return TERN_SUCCESS;
	for (int r = 1; r < g->nranks; r++) {
		if (map.host_of[r] == 0)
			continue;
		tern_set_last_error("bootstrap: rank %d's host holds another number of ranks than rank 0's; a communicator across hosts needs as many on each",
				    r);
		break;
	}
	return TERN_ERROR_NOT_SUPPORTED;
}

tern_status_t coll_meet_root(const struct coll_id *cid,
			     const uint8_t key[COLL_KEY_BYTES], int nranks,
			     struct coll_rank_info *info,
			     struct coll_chan *chan, int64_t deadline)
{
	struct coll_gathering *g = calloc(1, sizeof(*g));
	tern_status_t status = TERN_ERROR_PEER_FAILED;
	int listener;

	if (!g)
		return TERN_ERROR_OUT_OF_MEMORY;
	listener = coll_id_listen(cid);
	if (listener < 0) {
		free(g);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	/* Accepts until none is left, never waiting for one. */
	fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);
	g->key = key;
	g->nranks = nranks;
	g->info = info;
	g->chan = chan;
	coll_host_key(info[0].host);
	if (!coll_gather_hellos(g, listener, deadline)) {
		tern_set_last_error("bootstrap: %d of %d ranks came to rank 0 in time (%u other connections did not prove they hold the id's secret); " COLL_INIT_TIMEOUT_HINT,
				    g->joined + 1, nranks, g->refused);
		goto out;
	}
	if (g->refused)
		tern_debug("bootstrap: rank 0 refused %u connections that did not prove the id's secret",
			   g->refused);
	status = coll_verdict(g);
	for (int p = 1; p < nranks; p++) {
		for (int q = 0; q < nranks; q++) {
			struct coll_hello h;

			coll_hello_init(&h, q, nranks, &info[q]);
			h.verdict = status;
			if (!coll_chan_send(&chan[p], &h, sizeof(h))) {
				status = TERN_ERROR_PEER_FAILED;
				break;
			}
		}
	}
out:
	while (g->npend)
		coll_pending_drop(g, 0, true);
	close(listener);
	free(g);
	return status;
}

/* ---- every other rank ---- */

/* Connects to rank 0, which may not be listening yet. */
static int coll_connect(const struct coll_id *cid, int64_t deadline)
{
	struct sockaddr_storage ss;
	socklen_t len = coll_id_sockaddr(cid, &ss);

	while (coll_now_ms() < deadline) {
		int fd = socket(cid->family, SOCK_STREAM | SOCK_CLOEXEC |
					     SOCK_NONBLOCK, 0);
		int err = 0;
		socklen_t err_len = sizeof(err);

		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&ss, len) == 0 ||
		    (errno == EINPROGRESS &&
		     coll_wait_fd(fd, POLLOUT, deadline) &&
		     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) == 0 &&
		     err == 0)) {
			coll_tune_connection(fd);
			return fd;
		}
		close(fd);
		usleep(10000);
	}
	return -1;
}

/*
 * Connects and proves, again while rank 0 closes the connection before
 * proving itself (a flood may have pushed ours out); PERMISSION, said,
 * when what answers cannot prove it holds the secret.
 */
static tern_status_t coll_reach_root(const struct coll_id *cid,
				     const uint8_t key[COLL_KEY_BYTES],
				     int rank, struct coll_chan *chan,
				     int64_t deadline)
{
	tern_status_t status = TERN_ERROR_PEER_FAILED;
	char where[64];

	coll_id_format(cid, where, sizeof(where));
	while (status == TERN_ERROR_PEER_FAILED && coll_now_ms() < deadline) {
		int fd = coll_connect(cid, deadline);

		if (fd < 0)
			break;
		status = coll_auth_join(fd, key, COLL_AUTH_BOOTSTRAP, chan,
					deadline);
		if (status)
			close(fd);
	}
	if (status == TERN_ERROR_PERMISSION)
		tern_set_last_error("bootstrap: rank %d: what answers at %s cannot prove it holds the id's secret: another process has rank 0's port, or the id is not this job's",
				    rank, where);
	else if (status)
		tern_set_last_error("bootstrap: rank %d found no rank 0 at %s in time; " COLL_INIT_TIMEOUT_HINT,
				    rank, where);
	return status;
}

/*
 * Says hello on a proven @chan and reads the table's first entry; false
 * when the connection ends first (a flood may have pushed it out).
 */
static bool coll_say_hello(struct coll_chan *chan, int rank, int nranks,
			   const struct coll_rank_info *info,
			   struct coll_hello *first, int64_t deadline)
{
	struct coll_hello h;

	coll_hello_init(&h, rank, nranks, &info[rank]);
	return coll_chan_send(chan, &h, sizeof(h)) &&
	       coll_chan_recv(chan, first, sizeof(*first), deadline);
}

tern_status_t coll_meet_peer(const struct coll_id *cid,
			     const uint8_t key[COLL_KEY_BYTES], int rank,
			     int nranks, struct coll_rank_info *info,
			     struct coll_chan *chan, int64_t deadline)
{
	struct coll_hello h;
	tern_status_t status;
	char where[64];
	bool said = false;

	coll_id_format(cid, where, sizeof(where));
	coll_host_key(info[rank].host);
	while (!said) {
		status = coll_reach_root(cid, key, rank, chan, deadline);
		if (status)
			return status;
		said = coll_say_hello(chan, rank, nranks, info, &h, deadline);
		if (!said) {
			coll_chan_close(chan);
			if (coll_now_ms() >= deadline) {
				tern_set_last_error("bootstrap: rank %d: rank 0 at %s did not answer in time; " COLL_INIT_TIMEOUT_HINT,
						    rank, where);
				return TERN_ERROR_PEER_FAILED;
			}
		}
	}
	for (int q = 0; q < nranks; q++) {
		if (q && !coll_chan_recv(chan, &h, sizeof(h), deadline)) {
			tern_set_last_error("bootstrap: rank %d: rank 0 at %s stopped answering",
					    rank, where);
			return TERN_ERROR_PEER_FAILED;
		}
		if (!coll_hello_fits(&h, nranks) || h.rank != q) {
			tern_set_last_error("bootstrap: rank %d: rank 0 at %s sent a table no rank 0 makes (entry %d)",
					    rank, where, q);
			return TERN_ERROR_PEER_FAILED;
		}
		if (h.verdict != TERN_SUCCESS) {
			tern_set_last_error("bootstrap: rank %d: rank 0 refused the communicator with %s",
					    rank, tern_status_name((tern_status_t)h.verdict));
			return (tern_status_t)h.verdict;
		}
		if (q != rank)
			info[q] = h.info;
	}
	return TERN_SUCCESS;
}
