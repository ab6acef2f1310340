/* SPDX-License-Identifier: MIT */
/*
 * What hosts/ gives the rest of the collectives: communicators across
 * hosts. The ranks of each host form a comm of their own over the fabric
 * (fabric/); between hosts each rank talks over the network to its rail,
 * the ranks at its own position on the other hosts. init/rank.c makes
 * them; launch.c hands them their operations.
 */
#ifndef TERN_COLL_HOSTS_HOSTS_H
#define TERN_COLL_HOSTS_HOSTS_H

#include "coll/fabric/fabric.h"
#include "net/net.h"

/* Which ranks share a host: hosts numbered by their first rank. */
struct coll_hostmap {
	int nhosts;
	int local_size;			/* ranks on each host; 0 if they differ */
	int host_of[COLL_MAX_RANKS];
	int local_rank[COLL_MAX_RANKS];	/* its place among its host's ranks */
};

/* The rank at @local_rank on @host; -1 if none. */
int coll_host_member(const struct coll_hostmap *map, int nranks, int host,
		     int local_rank);

/* What the bootstrap carries of each rank across hosts. */
#define COLL_HOSTNAME_BYTES	64

struct coll_net_card {
	struct tern_net_handle handle;	/* its network listen */
	char host[COLL_HOSTNAME_BYTES];	/* its host's name, for the tools */
	/* The network as its process sees it; rank 0's rule for all. */
	uint64_t net_bandwidth;		/* bytes/s each way, a rank's share */
	uint32_t net_latency_ns;	/* a message's, end to end */
	int32_t rail_algo;		/* TERN_NET_ALGO, or -1 */
	uint8_t nonce[COLL_TAG_BYTES];	/* drawn for this comm: rail proofs */
};

/*
 * The comm across hosts over @local (our host's ranks, made), rank @rank
 * of @nranks placed by @map: its network listen is open, its handle and
 * host name in *@card for the others. It owns @local, even when it fails.
 */
tern_status_t coll_hosts_create(struct tern_comm *local, int rank, int nranks,
				const struct coll_hostmap *map,
				struct coll_net_card *card,
				struct tern_comm **top);
/* Whether every rank's card is one a rank makes; ends their names. */
tern_status_t coll_cards_fit(struct coll_net_card *cards, int nranks);
/*
 * Connects @top to every rank on another host, given every rank's
 * @cards; opens its counters' file and starts its proxy.
 */
tern_status_t coll_hosts_connect(struct tern_comm *top,
				 const struct coll_net_card *cards,
				 const uint8_t key[COLL_KEY_BYTES],
				 int64_t deadline);

/*
 * hier.c: builds and submits @n operations of a comm across hosts. Comm
 * lock held.
 */
tern_status_t coll_hier_run_locked(struct tern_comm *top,
				   struct tern_stream *stream,
				   const struct coll_op *ops, size_t n);
/*
 * tern_comm_algorithms() across hosts (tune.c): all-reduce's candidates
 * along the rail, the one its first chunk runs first.
 */
tern_status_t coll_hosts_algorithms(const struct tern_comm *top,
				    enum coll_kind kind, uint64_t bytes,
				    tern_algo_estimate_t *out,
				    uint32_t capacity, uint32_t *count);

#endif /* TERN_COLL_HOSTS_HOSTS_H */
