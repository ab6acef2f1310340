/* SPDX-License-Identifier: MIT */
/*
 * What the files of init/ share among themselves: the bootstrap where
 * ranks in other processes meet (bootstrap.c), and what tern_comm_init_rank
 * (rank.c) and the hand-off of the areas' fds (handoff.c) know between
 * them.
 */
#ifndef TERN_COLL_INIT_INTERNAL_H
#define TERN_COLL_INIT_INTERNAL_H

#include <sys/socket.h>
#include <sys/un.h>

#include "coll/hosts/hosts.h"
#include "coll/init/init.h"

/* ---- bootstrap.c: where ranks in other processes meet ---- */

/* Bytes that say which host a rank is on (who shares its memory). */
#define COLL_HOST_BYTES		48

/* What each rank tells the others through rank 0. */
struct coll_rank_info {
	struct coll_node node;
	uint8_t host[COLL_HOST_BYTES];	/* who shares its memory */
	uint8_t handoff[COLL_TAG_BYTES]; /* its hand-off socket's name */
};

/* The last status a peer may send: any other is taken as its failure. */
#define COLL_STATUS_LAST	TERN_ERROR_PEER_FAILED

/* Whether a peer's @node is one this rank can plan with. */
bool coll_node_fits(const struct coll_node *node);
/*
 * Rank 0: waits for the other ranks at @cid's address, each proving it
 * holds @key, answers each with everyone's @info, and leaves each rank's
 * channel in @chan[rank]. NOT_SUPPORTED (every rank's answer) when the
 * hosts hold different numbers of ranks; PEER_FAILED when one does not
 * come by @deadline.
 */
tern_status_t coll_meet_root(const struct coll_id *cid,
			     const uint8_t key[COLL_KEY_BYTES], int nranks,
			     struct coll_rank_info *info,
			     struct coll_chan *chan, int64_t deadline);
/*
 * Any other rank: once rank 0 has proved it holds @key, says hello with
 * @info[@rank] and learns everyone's; PERMISSION if rank 0 cannot prove it.
 */
tern_status_t coll_meet_peer(const struct coll_id *cid,
			     const uint8_t key[COLL_KEY_BYTES], int rank,
			     int nranks, struct coll_rank_info *info,
			     struct coll_chan *chan, int64_t deadline);

void coll_map_hosts(int nranks, const struct coll_rank_info *info,
		    struct coll_hostmap *map);

/*
 * Over the star: every rank's @len bytes at @all + rank * @len reach
 * every rank.
 */
tern_status_t coll_star_allgather(int rank, int nranks, struct coll_chan *chan,
				  void *all, size_t len, int64_t deadline);

/*
 * Over the connections coll_meet_* left: each rank gives rank 0 its
 * @status, and every rank returns the first failure of any (its own, if
 * it failed). Ends init, so that no rank goes on, or away, while another
 * still takes in its areas; PEER_FAILED where rank 0 or a rank cannot be
 * heard. With @table, also where a rank's table of the ranks differs
 * from rank 0's.
 */
tern_status_t coll_agree(int rank, int nranks, struct coll_chan *chan,
			 tern_status_t status,
			 const struct coll_rank_info *table, int64_t deadline);

/* ---- rank.c, handoff.c: one rank per process ---- */

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
 * Every rank binds a hand-off socket at a name of its own before it meets
 * rank 0, so that the name, once told, is already taken; the host's first
 * rank keeps it, the others close it.
 */
tern_status_t coll_handoff_listen(struct coll_table *t, int rank);
/* Trades the areas' fds among our host's ranks. */
tern_status_t coll_handoff(struct coll_table *t, int64_t deadline);
/* The abstract socket address of the hand-off socket named @name. */
socklen_t coll_handoff_address(const uint8_t name[COLL_TAG_BYTES],
			       struct sockaddr_un *addr);

#endif /* TERN_COLL_INIT_INTERNAL_H */
