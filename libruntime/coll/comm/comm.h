/* SPDX-License-Identifier: MIT */
/*
 * What comm/ gives the rest of the collectives: a communicator, its
 * areas, its jobs in flight and its failure.
 *
 * Every rank owns a scratch area (device memory) holding, for each peer, a
 * few chunk-sized slots the peer writes into, and a semaphore area with two
 * u64 counters per peer: "ready" (chunks the peer has put into our slots)
 * and "credit" (chunks of ours the peer has consumed). Every rank imports
 * every peer's two areas, so a send is a remote COPY or REDUCE into the
 * peer's slot followed by a remote SEM_SIGNAL, and a receive is a local
 * SEM_WAIT followed by a remote credit SEM_SIGNAL once the slot is used
 * (fabric/prog.c). Counters only grow, so nothing is reset between
 * collectives.
 *
 * A third area, the control words (host memory, mapped), holds the
 * communicator's job counter and its abort word: every job of the
 * communicator first waits for the counter to show that the job before it
 * ran to its end, and bumps it as its last packet. A job that failed
 * midway therefore stops every later one at its first packet, where the
 * abort word (stored by the host once the failure is known) fails it.
 *
 * A failure reaches every rank: the watchdog (monitor.c) finds failed
 * jobs and peers gone, a rank tells its teammates in this process
 * (team.c) and the ranks in other processes (link.c).
 */
#ifndef TERN_COLL_COMM_COMM_H
#define TERN_COLL_COMM_COMM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/trust/trust.h"
#include "tern_accel.h"

/* A torus runs four rings (two cycles or snakes, both directions). */
#define COLL_MAX_CHANNELS	4
/* Dimensions of a torus an all-reduce may run by. */
#define COLL_TORUS_DIMS		3

/* Values of the abort word: why the communicator's jobs must stop. */
#define COLL_ABORT_LOCAL	DRM_TERN_SEM_ABORT_CANCEL	/* ours failed or were cancelled */
#define COLL_ABORT_PEER		2	/* a peer failed */

struct coll_peer {
	tern_buffer_t scratch;		/* the peer's scratch, imported; NULL for self */
	tern_buffer_t sem;		/* the peer's semaphores, imported */
	uint64_t sent;			/* chunks we have sent it */
	uint64_t received;		/* chunks we have taken from it */
	/* Our slots in its scratch, and its slots in ours: where, how wide. */
	uint64_t slots_there, slot_there_bytes;
	uint64_t slots_here, slot_here_bytes;
};

/* The control words, in host memory the device reaches. */
struct coll_ctl {
	uint64_t chain;			/* jobs of the comm that ran to their end */
	uint64_t abort;			/* COLL_ABORT_* once the comm must stop */
};

/* Jobs enqueued through the comm and not yet seen complete, oldest first. */
struct coll_inflight {
	struct tern_fence **fences;
	size_t head, count, cap;
};

struct coll_link;
struct coll_hosts;

/* A split's contribution from one rank (split.c). */
struct coll_split_entry {
	bool entered;
	int color, key;
	tern_comm_t *out;
};

/* The ranks of one communicator that live in this process (team.c). */
struct coll_team {
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;		/* a split round ended */
	int n, left;			/* members, and those still in */
	uint64_t round;			/* split rounds completed */
	int arrived;			/* entries of the current round */
	tern_status_t round_status;	/* how the last round ended */
	struct coll_split_entry entry[COLL_MAX_RANKS];
	struct tern_comm *members[];	/* by rank; NULL once freed */
};

/*
 * The comm's fabric as the cost model sees it (fabric/cost.c): the least latency
 * between every pair of ranks over the comm's links (UINT32_MAX: none),
 * and the bytes per second each rank's links to the others carry.
 */
struct coll_fabric {
	uint32_t latency_ns[COLL_MAX_RANKS][COLL_MAX_RANKS];
	uint64_t out[COLL_MAX_RANKS];
	uint64_t link;			/* the slowest link between two ranks */
	/*
	 * Seconds a byte a pair costs the busiest link when every rank
	 * sends to every other at once (the one-step path), routed the
	 * least-latency way.
	 */
	double every_pair_s;
};

struct tern_comm {
	struct tern_comm *next;		/* the registry of live communicators */
	pthread_mutex_t lock;		/* enqueueing and everything below */
	int rank, nranks;
	struct tern_device *dev;
	tern_buffer_t scratch, sem, ctl;
	volatile struct coll_ctl *ctl_cpu;
	struct coll_peer *peers;	/* nranks entries */
	/* Ring orders (ranks by position); pos[c] is our position in ring c. */
	int nchannels;
	int ring[COLL_MAX_CHANNELS][COLL_MAX_RANKS];
	int pos[COLL_MAX_CHANNELS];
	int ring_overlap;		/* ring blocks in flight at once */
	/*
	 * A complete torus of 2 or 3 dimensions (ports 0, 2 and 4 step +1
	 * along each): rank at (x, y, z) is grid[x + side[0] * (y +
	 * side[1] * z)]; each dimension's slowest link (bytes/s each way)
	 * and latency. torus_chunk: the bytes its rings by dimension send
	 * at a time (fabric/torus.c), 0 where they cannot run. slow_last:
	 * the last dimension's links are the slowest (the UltraServer's
	 * between instances), so the all-reduce goes hierarchical.
	 */
	int grid[COLL_MAX_RANKS];
	int dims, side[COLL_TORUS_DIMS];
	uint64_t dim_bandwidth[COLL_TORUS_DIMS];
	uint32_t dim_latency_ns[COLL_TORUS_DIMS];
	uint64_t torus_chunk;
	bool slow_last;
	uint64_t jobs;			/* jobs submitted: the chain's value */
	/* The newest job, and its stream (only compared, never used). */
	struct tern_fence *last;
	const struct tern_stream *last_stream;
	struct coll_inflight inflight;
	_Atomic int error;		/* tern_status_t; sticky once set */
	struct coll_team *team;		/* the ranks in this process, or NULL */
	struct coll_link *link;		/* the ranks in other processes, or NULL */
	const struct tern_backend_ops *ops;	/* outlives a closed device */
	struct coll_fabric fabric;
	int forced_algo;		/* TERN_ALGO's row of the tuner's table, or -1 */
	/*
	 * A comm across hosts has no areas of its own: its ranks on this
	 * host form @local (fabric, peer memory), the rest is reached over
	 * the network (@hosts, which @free_hosts frees with the comm:
	 * hosts/ sits above comm/). @local's failures are @parent's.
	 */
	struct tern_comm *local, *parent;
	struct coll_hosts *hosts;
	void (*free_hosts)(struct tern_comm *top);
};

/* ---- comm.c: a communicator's life ---- */

bool coll_comm_valid(const struct tern_comm *comm);
/*
 * A communicator with its own areas allocated (@scratch_bytes of scratch,
 * fabric/prog.c's coll_scratch_bytes), peers not yet imported, no
 * algorithm forced.
 */
tern_status_t coll_comm_create(struct tern_device *dev, int rank, int nranks,
			       size_t scratch_bytes, struct tern_comm **out);
/* Frees a communicator that is not (or no longer) registered. */
void coll_comm_free(struct tern_comm *comm);
void coll_register(struct tern_comm *comm);
/* Calls @visit on every registered comm; false if there is none. */
bool coll_registry_visit(void (*visit)(struct tern_comm *comm));
/*
 * Puts @comm in error with @status (if it is not already): its jobs stop
 * at their next wait and, unless @from_peer, its peers learn of it.
 */
void coll_comm_fail(struct tern_comm *comm, tern_status_t status,
		    bool from_peer);
static inline tern_status_t coll_comm_error(struct tern_comm *comm)
{
	return (tern_status_t)atomic_load(&comm->error);
}

/* ---- monitor.c: the communicators' watchdog thread ---- */

/*
 * Pops @comm's completed jobs; the first failure puts the comm in error.
 * Comm lock held.
 */
void coll_inflight_reap(struct tern_comm *comm);
/*
 * Keeps @fence (our reference) as a job of @comm in flight; without memory
 * to keep it, waits for it instead. Comm lock held.
 */
void coll_inflight_push(struct tern_comm *comm, struct tern_fence *fence);
/* Waits up to @timeout_ns for every job in flight; false if some remain. */
bool coll_inflight_drain(struct tern_comm *comm, int64_t timeout_ns);
/*
 * Starts the watchdog (once), which checks the comms every interval:
 * TERN_ERROR_INVALID_ARGUMENT for a bad TERN_COMM_DETECT_MS.
 */
tern_status_t coll_monitor_start(void);
/* Tells a sleeping watchdog that there is a comm to watch. */
void coll_monitor_wake(void);
/* Hands an aborted comm whose jobs are still ending to the watchdog. */
void coll_monitor_adopt(struct tern_comm *comm);
/* The detection interval, in ns. */
int64_t coll_monitor_interval_ns(void);

/* ---- team.c: the ranks of one communicator that share this process ---- */

/* Ties @comms together so that a failure of one reaches the others. */
tern_status_t coll_team_create(struct tern_comm **comms, int n);
/* Tells @comm's teammates that it failed. */
void coll_team_tell(struct tern_comm *comm);
/* Takes @comm out of its team (it is being freed). */
void coll_team_leave(struct tern_comm *comm);

/* ---- link.c: the ranks in other processes (tern_comm_init_rank) ---- */

/*
 * Keeps the bootstrap's channels for @comm: rank 0's to each peer,
 * @chan[peer]; another rank's to rank 0, *@chan.
 */
tern_status_t coll_link_create(struct tern_comm *comm, struct coll_chan *chan);
/* Reads what the peers have said; a peer gone puts @comm in error. */
void coll_link_poll(struct tern_comm *comm);
/* Tells the ranks in other processes that @comm failed with @status. */
void coll_link_tell(struct tern_comm *comm, tern_status_t status);
/* Says goodbye and closes @comm's connections. */
void coll_link_close(struct tern_comm *comm);

#endif /* TERN_COLL_COMM_COMM_H */
