// SPDX-License-Identifier: MIT
/*
 * The tuner: which algorithm a collective runs, and on how many rings.
 * Every entry point comes through here, so this is the one place the
 * choice is made: among the algorithms that can run the operation, the
 * one the cost model (cost.c) expects to finish first on the comm's
 * fabric. TERN_ALGO forces one where it can run.
 *
 * - One rank: a local copy; send and recv: chunks through the peer's
 *   slots. Nothing to choose.
 * - The candidates: direct (one step, every piece straight to every rank
 *   that needs it; only while a rank's piece fits one slot), rings
 *   (all-reduce, reduce-scatter, all-gather), on a torus an all-reduce
 *   by its dimensions, or chains along the rings
 *   (broadcast, reduce) on all of the comm's rings, and pairwise rounds
 *   (all-to-all).
 * - Across hosts, each chunk's all-reduce along the rail: ring,
 *   halving-doubling or doubling (rail.c), by the network's latency and
 *   bandwidth (TERN_NET_LATENCY_US, TERN_NET_GBPS, else the provider's
 *   figures below); TERN_NET_ALGO forces one where it can run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "settings.h"

static const char *const coll_algo_names[] = {
	[COLL_ALGO_LOCAL] = "local",
	[COLL_ALGO_DIRECT] = "direct",
	[COLL_ALGO_RING] = "ring",
	[COLL_ALGO_TORUS] = "torus",
	[COLL_ALGO_CHAIN] = "chain",
	[COLL_ALGO_PAIRWISE] = "pairwise",
	[COLL_ALGO_P2P] = "p2p",
};

const char *coll_algo_name(enum coll_algo algo)
{
	return (unsigned int)algo < sizeof(coll_algo_names) /
				    sizeof(coll_algo_names[0]) ?
	       coll_algo_names[algo] : "unknown";
}

tern_status_t coll_forced_algo(int *algo)
{
	const char *name = NULL;
	tern_status_t status = tern_setting_choice("TERN_ALGO", &name);

	*algo = -1;
	for (int a = COLL_ALGO_DIRECT; name && a <= COLL_ALGO_PAIRWISE; a++)
		if (strcmp(name, coll_algo_names[a]) == 0)
			*algo = a;
	return status;
}

/* Whether @algo can run @kind over @bytes (the call's count, as bytes). */
static bool coll_algo_fits(const struct tern_comm *comm, enum coll_algo algo,
			   enum coll_kind kind, uint64_t bytes)
{
	bool rooted = kind == COLL_BROADCAST || kind == COLL_REDUCE;

	switch (algo) {
	case COLL_ALGO_DIRECT:
		return kind != COLL_ALL_TO_ALL && bytes <= COLL_CHUNK_BYTES;
	case COLL_ALGO_RING:
		return kind != COLL_ALL_TO_ALL && !rooted;
	case COLL_ALGO_TORUS:
		return kind == COLL_ALL_REDUCE && comm->torus_chunk;
	case COLL_ALGO_CHAIN:
		return rooted;
	case COLL_ALGO_PAIRWISE:
		return kind == COLL_ALL_TO_ALL;
	default:
		return false;
	}
}

int coll_tune_candidates(const struct tern_comm *comm, enum coll_kind kind,
			 uint64_t bytes, struct coll_candidate *out)
{
	int count = 0;

	for (int a = COLL_ALGO_DIRECT; a <= COLL_ALGO_PAIRWISE; a++) {
		if (!coll_algo_fits(comm, (enum coll_algo)a, kind, bytes))
			continue;
		out[count].algo = (enum coll_algo)a;
		out[count].ns = coll_cost_estimate(comm, kind,
						   (enum coll_algo)a, bytes);
		count++;
	}
	return count;
}

struct coll_plan coll_tune_kind(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes)
{
	struct coll_candidate cand[COLL_ALGO_COUNT];
	struct coll_plan plan = { COLL_ALGO_LOCAL, 1 };
	int count, best = 0;

	if (coll_kind_is_p2p(kind)) {
		plan.algo = COLL_ALGO_P2P;
		return plan;
	}
	if (comm->nranks == 1)
		return plan;
	count = coll_tune_candidates(comm, kind, bytes, cand);
	for (int i = 1; i < count; i++)
		if (cand[i].ns < cand[best].ns)
			best = i;
	for (int i = 0; i < count; i++)
		if ((int)cand[i].algo == comm->forced_algo)
			best = i;
	plan.algo = cand[best].algo;
	if (plan.algo == COLL_ALGO_RING || plan.algo == COLL_ALGO_CHAIN)
		plan.nch = comm->nchannels;
	return plan;
}

struct coll_plan coll_tune(const struct coll_call *call)
{
	return coll_tune_kind(call->comm, call->op.kind,
			      call->op.count * call->esize);
}

/* tern.h's collectives as the tuner knows them, and their call's bytes. */
static const enum coll_kind coll_public_kinds[] = {
	[TERN_COLL_ALL_REDUCE] = COLL_ALL_REDUCE,
	[TERN_COLL_REDUCE_SCATTER] = COLL_REDUCE_SCATTER,
	[TERN_COLL_ALL_GATHER] = COLL_ALL_GATHER,
	[TERN_COLL_BROADCAST] = COLL_BROADCAST,
	[TERN_COLL_REDUCE] = COLL_REDUCE,
	[TERN_COLL_ALL_TO_ALL] = COLL_ALL_TO_ALL,
};

bool coll_public_kind(tern_collective_t coll, enum coll_kind *kind)
{
	if ((unsigned int)coll >= sizeof(coll_public_kinds) /
				  sizeof(coll_public_kinds[0]))
		return false;
	*kind = coll_public_kinds[coll];
	return true;
}

static const char *const coll_rail_public[COLL_RAIL_COUNT] = {
	[COLL_RAIL_RING] = "rail-ring",
	[COLL_RAIL_HALVING] = "rail-halving",
	[COLL_RAIL_DOUBLING] = "rail-doubling",
};

/*
 * An all-reduce across hosts of @bytes, all its chunks along the rail by
 * @algo: the host's rings' reduce-scatter and all-gather, the copies
 * through the stage, and the rail. Negative where @algo cannot run.
 */
static double coll_hosts_estimate(const struct tern_comm *top,
				  enum coll_rail_algo algo, uint64_t bytes)
{
	const struct tern_comm *local = top->local;
	const uint64_t shard = bytes / (uint64_t)local->nranks;
	double ns = 0;

	if (coll_cost_rail(top->hosts, algo, COLL_STAGE_BYTES, false) < 0)
		return -1;
	if (local->nranks > 1)
		ns = coll_cost_estimate(local, COLL_ALL_REDUCE, COLL_ALGO_RING,
					bytes);
	for (uint64_t at = 0; at < shard; at += COLL_STAGE_BYTES)
		ns += coll_cost_rail(top->hosts, algo,
				     shard - at < COLL_STAGE_BYTES ?
				     shard - at : COLL_STAGE_BYTES, false);
	return ns;
}

/*
 * tern_comm_algorithms() across hosts: all-reduce's candidates along the
 * rail, the one its first chunk runs first (the tuner chooses per chunk).
 */
static tern_status_t coll_tune_hosts(const struct tern_comm *top,
				     enum coll_kind kind, uint64_t bytes,
				     tern_algo_estimate_t *out,
				     uint32_t capacity, uint32_t *count)
{
	const uint64_t first = bytes / (uint64_t)top->local->nranks;
	enum coll_rail_algo chosen;
	uint32_t n = 0;

	if (kind != COLL_ALL_REDUCE) {
		tern_set_last_error("across hosts the tuner models all-reduce only");
		return TERN_ERROR_NOT_SUPPORTED;
	}
	chosen = coll_tune_rail(top->hosts, first < COLL_STAGE_BYTES ?
					    first : COLL_STAGE_BYTES, false);
	for (int i = -1; i < COLL_RAIL_COUNT; i++) {
		/* the chosen first, then the others that can run */
		enum coll_rail_algo a = i < 0 ? chosen : (enum coll_rail_algo)i;
		double ns = coll_hosts_estimate(top, a, bytes);

		if ((i >= 0 && a == chosen) || ns < 0)
			continue;
		if (n < capacity) {
			snprintf(out[n].name, sizeof(out[n].name), "%s",
				 coll_rail_public[a]);
			out[n].us = ns / 1000.0;
		}
		n++;
	}
	*count = n;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_algorithms(tern_comm_t comm,
					    tern_collective_t coll,
					    size_t bytes,
					    tern_algo_estimate_t *out,
					    uint32_t capacity, uint32_t *count)
{
	struct coll_candidate cand[COLL_ALGO_COUNT];
	struct coll_plan plan;
	enum coll_kind kind;
	uint64_t call_bytes = bytes;
	int n, first = 0;

	if (!count || (!out && capacity) || !coll_comm_valid(comm) ||
	    !coll_public_kind(coll, &kind))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (comm->hosts)
		return coll_tune_hosts(comm, kind, bytes, out, capacity, count);
	/* a call counts a rank's piece where nccl-tests counts the array */
	if (kind == COLL_ALL_GATHER || kind == COLL_REDUCE_SCATTER ||
	    kind == COLL_ALL_TO_ALL)
		call_bytes = bytes / (uint64_t)comm->nranks;
	plan = coll_tune_kind(comm, kind, call_bytes);
	if (plan.algo == COLL_ALGO_LOCAL) {
		cand[0].algo = COLL_ALGO_LOCAL;
		cand[0].ns = 0;
		n = 1;
	} else {
		n = coll_tune_candidates(comm, kind, call_bytes, cand);
	}
	for (int i = 0; i < n; i++)
		if (cand[i].algo == plan.algo)
			first = i;
	*count = (uint32_t)n;
	for (int i = 0; i < n && (uint32_t)i < capacity; i++) {
		/* the chosen first, the others in their order */
		int from = i == 0 ? first : (i <= first ? i - 1 : i);

		snprintf(out[i].name, sizeof(out[i].name), "%s",
			 coll_algo_name(cand[from].algo));
		out[i].us = cand[from].ns / 1000.0;
	}
	return TERN_SUCCESS;
}

static const char *const coll_rail_names[COLL_RAIL_COUNT] = {
	[COLL_RAIL_RING] = "ring",
	[COLL_RAIL_HALVING] = "halving-doubling",
	[COLL_RAIL_DOUBLING] = "doubling",
};

const char *coll_rail_algo_name(enum coll_rail_algo algo)
{
	return (unsigned int)algo < COLL_RAIL_COUNT ? coll_rail_names[algo] :
						       "unknown";
}

tern_status_t coll_forced_rail(int *algo)
{
	const char *name = NULL;
	tern_status_t status = tern_setting_choice("TERN_NET_ALGO", &name);

	*algo = -1;
	for (int a = 0; name && a < COLL_RAIL_COUNT; a++)
		if (strcmp(name, coll_rail_names[a]) == 0)
			*algo = a;
	return status;
}

enum coll_rail_algo coll_tune_rail(const struct coll_hosts *h, uint64_t bytes,
				   bool scatter)
{
	enum coll_rail_algo best = COLL_RAIL_RING;
	double best_ns = coll_cost_rail(h, COLL_RAIL_RING, bytes, scatter);

	if (h->forced_rail >= 0 &&
	    coll_cost_rail(h, (enum coll_rail_algo)h->forced_rail, bytes,
			   scatter) >= 0)
		return (enum coll_rail_algo)h->forced_rail;
	for (int a = 1; a < COLL_RAIL_COUNT; a++) {
		double ns = coll_cost_rail(h, (enum coll_rail_algo)a, bytes,
					   scatter);

		if (ns >= 0 && ns < best_ns) {
			best = (enum coll_rail_algo)a;
			best_ns = ns;
		}
	}
	return best;
}

/*
 * What the model takes a provider's network to be, per rank, where
 * TERN_NET_GBPS and TERN_NET_LATENCY_US do not say: a Trn2 instance's
 * EFA shared by its 16 chips, InfiniBand's HDR, TCP on a 25 GbE port, and
 * memory between processes.
 */
static const struct {
	const char *prefix;
	double gbps, latency_us;
} coll_net_defaults[] = {
	{ "efa", 200, 15 }, { "verbs", 200, 3 }, { "shm", 40, 1 },
	{ "tcp", 25, 30 },
};

tern_status_t coll_net_figures(const char *provider, uint64_t *bandwidth,
			       uint32_t *latency_ns)
{
	double gbps = 25, us = 30;
	tern_status_t status;

	for (size_t i = 0; i < sizeof(coll_net_defaults) /
			       sizeof(coll_net_defaults[0]); i++) {
		if (strncmp(provider, coll_net_defaults[i].prefix,
			    strlen(coll_net_defaults[i].prefix)) == 0) {
			gbps = coll_net_defaults[i].gbps;
			us = coll_net_defaults[i].latency_us;
			break;
		}
	}
	status = tern_setting_real("TERN_NET_GBPS", &gbps);
	if (status == TERN_SUCCESS)
		status = tern_setting_real("TERN_NET_LATENCY_US", &us);
	*bandwidth = (uint64_t)(gbps * 1e9 / 8);
	*latency_ns = (uint32_t)(us * 1000);
	return status;
}
