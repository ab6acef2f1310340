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
 * network listen, whose handle the bootstrap carries to every rank in
 * its card; the connections follow (connect.c), and the counters' file
 * the tools read (counters.c). A proxy thread (proxy.c) then moves the
 * chunks the device stages (stage.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "coll/hosts/internal.h"
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
