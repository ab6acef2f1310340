// SPDX-License-Identifier: MIT
/*
 * Communicators across hosts: what tern_comm_init_rank makes when the
 * bootstrap finds its ranks on several hosts, each holding as many.
 *
 * The ranks of one host form a comm of their own (the "local" comm, over
 * the chip fabric and peer memory, as on one host); the comm the caller
 * gets wraps it with its place among the hosts. Between hosts, each rank
 * talks only to its rail: the ranks at its own position on the other
 * hosts, as a Trn2 UltraServer joins same-coordinate chips; all-to-all,
 * send and recv reach any rank on another host. Each rank opens one
 * network listen; the bootstrap carries every rank's handle to every
 * rank; each connects to its rail and accepts the rail's connections,
 * which say who they are in their first message. Connections to the
 * other ranks on other hosts are made when a send or recv first needs
 * them, so that a process holds what it uses (over tcp a connection
 * becomes a socket). A proxy thread (proxy.c) then moves the chunks the
 * device stages (stage.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "coll/hosts/internal.h"
#include "net/stats.h"
#include "submit.h"

/* The transport, opened once per process and kept while a comm uses it. */
static pthread_mutex_t coll_net_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tern_net *coll_net;
static int coll_net_users;

static tern_status_t coll_net_get(struct coll_hosts *h)
{
	tern_status_t status = TERN_SUCCESS;

	h->ops = &tern_net_ofi;
	pthread_mutex_lock(&coll_net_lock);
	if (!coll_net)
		status = h->ops->open(&coll_net);
	if (status == TERN_SUCCESS) {
		coll_net_users++;
		h->net = coll_net;
	}
	pthread_mutex_unlock(&coll_net_lock);
	return status;
}

static void coll_net_put(struct coll_hosts *h)
{
	if (!h->net)
		return;
	pthread_mutex_lock(&coll_net_lock);
	if (--coll_net_users == 0) {
		h->ops->close(coll_net);
		coll_net = NULL;
	}
	pthread_mutex_unlock(&coll_net_lock);
	h->net = NULL;
}

/* Stops the proxy and closes the network side of @top (its free_hosts). */
static void coll_hosts_free(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;

	if (!h)
		return;
	coll_proxy_stop(top);
	if (h->stats) {
		munmap(h->stats, h->stats_bytes);
		unlink(h->stats_path);
	}
	for (int r = 0; r < COLL_MAX_RANKS; r++) {
		if (h->to[r])
			h->ops->close_comm(h->to[r]);
		if (h->from[r])
			h->ops->close_comm(h->from[r]);
	}
	if (h->accepting)
		h->ops->close_comm(h->accepting);
	if (h->listen)
		h->ops->close_listen(h->listen);
	if (h->stage_mr)
		h->ops->dereg_mr(h->net, h->stage_mr);
	if (h->tmp_mr)
		h->ops->dereg_mr(h->net, h->tmp_mr);
	coll_net_put(h);
	free(h->tmp);
	if (h->stage)
		tern_buffer_free(h->stage);
	if (h->words)
		tern_buffer_free(h->words);
	if (h->temp)
		tern_buffer_free(h->temp);
	free(h->queue);
	OPENSSL_cleanse(h->key, sizeof(h->key));
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
	top->hosts = NULL;
}

/* The host memory of the stage, mapped for us and for the device. */
static tern_status_t coll_hosts_memory(struct tern_device *dev,
				       struct coll_hosts *h)
{
	tern_status_t status;
	void *cpu = NULL;

	status = tern_buffer_alloc_internal(dev, TERN_MEMORY_HOST,
					    COLL_STAGE_SLOTS * COLL_STAGE_BYTES,
					    &h->stage, &cpu);
	h->stage_cpu = cpu;
	if (status == TERN_SUCCESS)
		status = tern_buffer_alloc_internal(dev, TERN_MEMORY_HOST,
						    COLL_WORDS * sizeof(uint64_t),
						    &h->words, &cpu);
	if (status)
		return status;
	h->words_cpu = cpu;
	memset((void *)h->words_cpu, 0, COLL_WORDS * sizeof(uint64_t));
	/* The hellos after the receive area, in one registration. */
	h->tmp = aligned_alloc(4096, COLL_STAGE_BYTES + 4096);
	if (!h->tmp)
		return TERN_ERROR_OUT_OF_MEMORY;
	h->hello_out = (struct coll_rail_hello *)(h->tmp + COLL_STAGE_BYTES);
	h->hello_in = h->hello_out + COLL_MAX_RANKS;
	status = h->ops->reg_mr(h->net, h->stage_cpu,
				COLL_STAGE_SLOTS * COLL_STAGE_BYTES,
				&h->stage_mr);
	if (status == TERN_SUCCESS)
		status = h->ops->reg_mr(h->net, h->tmp,
					COLL_STAGE_BYTES + 4096, &h->tmp_mr);
	return status;
}

/*
 * Our host's name for the tools: the computer's, and the simulated
 * machine's where there is one (several may share a computer).
 */
static void coll_host_name(char *buf, size_t len)
{
	const struct tern_backend_ops *ops;
	char machine[192] = "";
	const char *base;
	size_t used;

	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "?");
	buf[len - 1] = 0;
	if (tern_backend_ops_get(&ops) == TERN_SUCCESS && ops->machine_name)
		ops->machine_name(machine, sizeof(machine));
	base = strrchr(machine, '/');
	base = base ? base + 1 : machine;
	used = strlen(buf);
	if (*base && used + 1 + strlen(base) < len) {
		buf[used] = '/';
		memcpy(buf + used + 1, base, strlen(base) + 1);
	}
}

int coll_host_member(const struct coll_hostmap *map, int nranks, int host,
		     int local_rank)
{
	for (int r = 0; r < nranks; r++)
		if (map->host_of[r] == host && map->local_rank[r] == local_rank)
			return r;
	return -1;
}

tern_status_t coll_hosts_create(struct tern_comm *local, int rank, int nranks,
				const struct coll_hostmap *map,
				struct coll_net_card *card,
				struct tern_comm **out)
{
	struct tern_comm *top = calloc(1, sizeof(*top));
	struct coll_hosts *h = calloc(1, sizeof(*h));
	tern_status_t status;

	if (!top || !h) {
		free(top);
		free(h);
		coll_comm_free(local);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_init(&top->lock, NULL);
	atomic_init(&top->error, TERN_SUCCESS);
	top->rank = rank;
	top->nranks = nranks;
	top->dev = local->dev;
	top->ops = local->ops;
	top->forced_algo = local->forced_algo;
	top->local = local;
	top->hosts = h;
	top->free_hosts = coll_hosts_free;
	local->parent = top;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	h->nhosts = map->nhosts;
	h->host = map->host_of[rank];
	for (int r = 0; r < nranks; r++) {
		h->host_of[r] = map->host_of[r];
		h->lrank_of[r] = map->local_rank[r];
		h->host_member[map->host_of[r]][map->local_rank[r]] =
			(int8_t)r;
		if (map->host_of[r] == h->host)
			h->member[map->local_rank[r]] = r;
	}
	for (int j = 0; j < h->nhosts; j++)
		h->rail[j] = coll_host_member(map, nranks, j,
					      map->local_rank[rank]);
	status = coll_net_get(h);
	if (status == TERN_SUCCESS)
		status = coll_hosts_memory(local->dev, h);
	if (status == TERN_SUCCESS)
		status = h->ops->listen(h->net, &card->handle, &h->listen);
	if (status == TERN_SUCCESS)
		status = coll_net_figures(h->ops->describe(h->net),
					  &card->net_bandwidth,
					  &card->net_latency_ns);
	if (status == TERN_SUCCESS)
		status = coll_forced_rail(&h->forced_rail);
	card->rail_algo = h->forced_rail;
	if (status == TERN_SUCCESS &&
	    getrandom(card->nonce, sizeof(card->nonce), 0) !=
	    sizeof(card->nonce))
		status = TERN_ERROR_BACKEND;
	coll_host_name(card->host, sizeof(card->host));
	if (status) {
		coll_comm_free(top);	/* and @local with it */
		return status;
	}
	*out = top;
	return TERN_SUCCESS;
}

tern_status_t coll_cards_fit(struct coll_net_card *cards, int nranks)
{
	for (int r = 0; r < nranks; r++) {
		/* a name for the tools, whatever the peer sent */
		cards[r].host[sizeof(cards[r].host) - 1] = 0;
		if (!coll_forced_rail_fits(cards[r].rail_algo) ||
		    cards[r].net_bandwidth == 0) {
			tern_set_last_error("bootstrap: rank %d's network card is not one a rank makes",
					    r);
			return TERN_ERROR_PEER_FAILED;
		}
	}
	return TERN_SUCCESS;
}

/*
 * Sends our proof to @to on @comm, its first message: the acceptor learns
 * who, and that we are of this comm.
 */
static tern_status_t coll_hosts_hello(struct tern_comm *top,
				      struct tern_net_comm *comm, int to,
				      struct tern_net_req **req)
{
	struct coll_hosts *h = top->hosts;
	struct coll_rail_hello *at = &h->hello_out[to];
	tern_status_t status;

	at->rank = top->rank;
	at->to = to;
	if (!coll_auth_rail(h->key, top->rank, to, h->nonce[to],
			    h->nonce[top->rank], at->mac))
		return TERN_ERROR_BACKEND;
	do {
		status = h->ops->isend(comm, at, sizeof(*at), h->tmp_mr,
				       req);
		if (status == TERN_ERROR_NOT_READY)
			h->ops->wait(h->net, 1);
	} while (status == TERN_ERROR_NOT_READY);
	return status;
}

/* Waits for @req by @deadline; NULLs it once done. */
static tern_status_t coll_hosts_finish(struct coll_hosts *h,
				       struct tern_net_req **req,
				       int64_t deadline)
{
	tern_status_t status = TERN_SUCCESS;
	bool done = false;
	size_t len;

	while (*req && status == TERN_SUCCESS) {
		status = h->ops->test(*req, &done, &len);
		if (status || done) {
			*req = NULL;
			break;
		}
		if (coll_now_ms() >= deadline)
			return TERN_ERROR_PEER_FAILED;
		h->ops->wait(h->net, 10);
	}
	return status;
}

/*
 * Whose connection a first message of @len bytes says it is: a rank on
 * another host, not yet connected, that proved it is of this comm and
 * meant us; -1 for anything else.
 */
static int coll_hosts_whose(struct tern_comm *top,
			    const struct coll_rail_hello *hello, size_t len)
{
	struct coll_hosts *h = top->hosts;
	const int who = hello->rank;

	if (len != sizeof(*hello) || who < 0 || who >= top->nranks ||
	    hello->to != top->rank || h->host_of[who] == h->host ||
	    h->from[who] ||
	    !coll_auth_rail_check(h->key, who, top->rank, h->nonce[top->rank],
				  h->nonce[who], hello->mac)) {
		h->refused++;
		return -1;
	}
	return who;
}

/* Accepts a connection and learns, from its hello, whose it is. */
static tern_status_t coll_hosts_accept(struct tern_comm *top,
				       struct coll_rail_hello *slot,
				       int64_t deadline)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_comm *comm = NULL;
	struct tern_net_req *req = NULL;
	tern_status_t status;
	bool done = false;
	size_t len = 0;
	int who;

	while ((status = h->ops->accept(h->listen, &comm)) ==
	       TERN_ERROR_NOT_READY) {
		if (coll_now_ms() >= deadline) {
			tern_set_last_error("bootstrap: rank %d: a rank on another host did not connect over the network in time (%u connections did not prove they are of this comm)",
					    top->rank, h->refused);
			return TERN_ERROR_PEER_FAILED;
		}
		h->ops->wait(h->net, 10);
	}
	if (status)
		return status;
	do {
		status = h->ops->irecv(comm, slot, sizeof(*slot), h->tmp_mr,
				       &req);
		if (status == TERN_ERROR_NOT_READY)
			h->ops->wait(h->net, 1);
	} while (status == TERN_ERROR_NOT_READY);
	while (status == TERN_SUCCESS && !done) {
		status = h->ops->test(req, &done, &len);
		if (status == TERN_SUCCESS && !done) {
			if (coll_now_ms() >= deadline)
				status = TERN_ERROR_PEER_FAILED;
			else
				h->ops->wait(h->net, 10);
		}
	}
	who = status == TERN_SUCCESS ? coll_hosts_whose(top, slot, len) : -1;
	if (who < 0) {
		h->ops->close_comm(comm);
		/* Not one of ours: the next connection may be. */
		return status == TERN_ERROR_PEER_FAILED ? status :
		       TERN_ERROR_NOT_READY;
	}
	h->from[who] = comm;
	return TERN_SUCCESS;
}

/* Takes the next connection in, a step at a time. Proxy thread. */
static tern_status_t coll_hosts_take(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	tern_status_t status;
	bool done = false;
	size_t len = 0;
	int who;

	if (!h->accepting) {
		status = h->ops->accept(h->listen, &h->accepting);
		if (status)
			return status;
		status = h->ops->irecv(h->accepting, h->hello_in,
				       sizeof(*h->hello_in), h->tmp_mr,
				       &h->accepting_req);
		if (status) {
			h->ops->close_comm(h->accepting);
			h->accepting = NULL;
			return status == TERN_ERROR_NOT_READY ?
			       TERN_ERROR_PEER_FAILED : status;
		}
	}
	status = h->ops->test(h->accepting_req, &done, &len);
	if (status == TERN_SUCCESS && !done)
		return TERN_ERROR_NOT_READY;
	who = status == TERN_SUCCESS ? coll_hosts_whose(top, h->hello_in, len) :
	      -1;
	if (who < 0) {
		h->ops->close_comm(h->accepting);
		h->accepting = NULL;
		/* A stranger fails nothing: the next connection may be ours. */
		return status ? status : TERN_ERROR_NOT_READY;
	}
	h->from[who] = h->accepting;
	h->accepting = NULL;
	return TERN_SUCCESS;
}

tern_status_t coll_hosts_reach(struct tern_comm *top, int peer, bool send)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_req *req = NULL;
	tern_status_t status;

	if (send) {
		if (h->to[peer])
			return TERN_SUCCESS;
		status = h->ops->connect(h->net, &h->handle[peer],
					 &h->to[peer]);
		/* Its hello ends with the connection; nobody waits for it. */
		if (status == TERN_SUCCESS)
			status = coll_hosts_hello(top, h->to[peer], peer, &req);
		return status;
	}
	while (!h->from[peer]) {
		status = coll_hosts_take(top);
		if (status)
			return status;
	}
	return TERN_SUCCESS;
}

/*
 * The counters' file: made in the user's directory, sized for a record
 * per other host, named by the hosts' cards. A process that cannot make
 * it still runs, uncounted.
 */
static void coll_hosts_stats_open(struct tern_comm *top,
				  const struct coll_net_card *cards)
{
	static unsigned int serial;
	struct coll_hosts *h = top->hosts;
	struct tern_net_stats *s;
	char dir[96];
	struct stat st;
	uint32_t i = 0;
	int fd;

	if (tern_net_stats_dir(dir, sizeof(dir)) < 0 ||
	    (mkdir(dir, 0700) && errno != EEXIST) || stat(dir, &st) ||
	    st.st_uid != getuid())
		return;
	snprintf(h->stats_path, sizeof(h->stats_path), "%s/net-%d-%u", dir,
		 (int)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
	h->stats_bytes = sizeof(*s) +
			 (size_t)(h->nhosts - 1) * sizeof(s->peer[0]);
	fd = open(h->stats_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	s = ftruncate(fd, (off_t)h->stats_bytes) ? MAP_FAILED :
	    mmap(NULL, h->stats_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	close(fd);
	if (s == MAP_FAILED) {
		unlink(h->stats_path);
		return;
	}
	s->pid = (int32_t)getpid();
	s->rank = top->rank;
	s->nranks = top->nranks;
	s->nhosts = h->nhosts;
	s->npeers = (uint32_t)h->nhosts - 1;
	snprintf(s->host, sizeof(s->host), "%s", cards[top->rank].host);
	snprintf(s->provider, sizeof(s->provider), "%s",
		 h->ops->describe(h->net));
	for (int j = 0; j < h->nhosts; j++) {
		if (j == h->host)
			continue;
		snprintf(s->peer[i].host, sizeof(s->peer[i].host), "%s",
			 cards[h->rail[j]].host);
		s->peer[i++].ranks = (uint32_t)(top->nranks / h->nhosts);
	}
	/* The magic last: a reader takes the file once it is whole. */
	__atomic_store_n((uint64_t *)s->magic,
			 *(const uint64_t *)TERN_NET_STATS_MAGIC,
			 __ATOMIC_RELEASE);
	h->stats = s;
}

void coll_hosts_count(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_stats_peer sum[COLL_MAX_RANKS];
	struct tern_net_counters c;
	uint32_t i = 0;

	if (!h->stats)
		return;
	memset(sum, 0, sizeof(sum));
	for (int r = 0; r < top->nranks; r++) {
		struct tern_net_stats_peer *p = &sum[h->host_of[r]];

		if (h->to[r]) {
			h->ops->counters(h->to[r], &c);
			p->tx_bytes += c.bytes;
			p->tx_messages += c.messages;
			p->errors += c.errors;
		}
		if (h->from[r]) {
			h->ops->counters(h->from[r], &c);
			p->rx_bytes += c.bytes;
			p->rx_messages += c.messages;
			p->errors += c.errors;
		}
	}
	for (int j = 0; j < h->nhosts; j++) {
		struct tern_net_stats_peer *p = &h->stats->peer[i];

		if (j == h->host)
			continue;
		__atomic_store_n(&p->tx_bytes, sum[j].tx_bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&p->tx_messages, sum[j].tx_messages,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&p->rx_bytes, sum[j].rx_bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&p->rx_messages, sum[j].rx_messages,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&p->errors, sum[j].errors, __ATOMIC_RELAXED);
		i++;
	}
}

tern_status_t coll_hosts_connect(struct tern_comm *top,
				 const struct coll_net_card *cards,
				 const uint8_t key[COLL_KEY_BYTES],
				 int64_t deadline)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_req *req[COLL_MAX_RANKS] = { NULL };
	/* The rail's hellos land in the receive area, one a host. */
	struct coll_rail_hello *in = (struct coll_rail_hello *)h->tmp;
	tern_status_t status = TERN_SUCCESS;

	/* Rank 0's view of the network, so that every rank chooses alike. */
	h->net_bandwidth = (double)cards[0].net_bandwidth;
	h->net_latency_ns = cards[0].net_latency_ns;
	h->forced_rail = cards[0].rail_algo;
	memcpy(h->key, key, sizeof(h->key));
	for (int r = 0; r < top->nranks; r++) {
		h->handle[r] = cards[r].handle;
		memcpy(h->nonce[r], cards[r].nonce, sizeof(h->nonce[r]));
	}
	for (int j = 0; j < h->nhosts && status == TERN_SUCCESS; j++) {
		const int r = h->rail[j];

		if (j == h->host)
			continue;
		status = h->ops->connect(h->net, &cards[r].handle, &h->to[r]);
		if (status == TERN_SUCCESS)
			status = coll_hosts_hello(top, h->to[r], r, &req[r]);
	}
	/* Strangers' connections are closed, and the next one taken. */
	for (int i = 1; i < h->nhosts && (status == TERN_SUCCESS ||
					   status == TERN_ERROR_NOT_READY);) {
		status = coll_hosts_accept(top, &in[i], deadline);
		if (status == TERN_SUCCESS)
			i++;
	}
	for (int r = 0; r < top->nranks; r++) {
		tern_status_t done = coll_hosts_finish(h, &req[r], deadline);

		if (status == TERN_SUCCESS)
			status = done;
	}
	if (status == TERN_SUCCESS) {
		coll_hosts_stats_open(top, cards);
		coll_hosts_count(top);
		status = coll_proxy_start(top);
	}
	return status;
}
