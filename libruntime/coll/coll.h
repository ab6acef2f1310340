/* SPDX-License-Identifier: MIT */
/*
 * Collectives inside libtern (not installed): communicators, the ring
 * orders chosen from the topology, the choice of algorithm, and the packet
 * programs a collective enqueues on one rank's stream.
 *
 * The path of a call: api.c checks the arguments and describes the
 * operation (struct coll_op); launch.c refuses it if the communicator is
 * in error, defers it inside a group (group.c), or builds it: tune.c
 * chooses the algorithm, which emits the program (local.c, direct.c,
 * ring.c, chain.c, p2p.c), and prog.c submits it in communicator order.
 * monitor.c watches the work in flight; team.c and link.c carry a
 * failure to the ranks in this process and in others.
 *
 * Every rank owns a scratch area (device memory) holding, for each peer, a
 * few chunk-sized slots the peer writes into, and a semaphore area with two
 * u64 counters per peer: "ready" (chunks the peer has put into our slots)
 * and "credit" (chunks of ours the peer has consumed). Every rank imports
 * every peer's two areas, so a send is a remote COPY or REDUCE into the
 * peer's slot followed by a remote SEM_SIGNAL, and a receive is a local
 * SEM_WAIT followed by a remote credit SEM_SIGNAL once the slot is used.
 * Counters only grow, so nothing is reset between collectives.
 *
 * A third area, the control words (host memory, mapped), holds the
 * communicator's job counter and its abort word: every job of the
 * communicator first waits for the counter to show that the job before it
 * ran to its end, and bumps it as its last packet. A job that failed
 * midway therefore stops every later one at its first packet, where the
 * abort word (stored by the host once the failure is known) fails it.
 */
#ifndef TERN_COLL_H
#define TERN_COLL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "internal.h"
#include "net/net.h"
#include "tern_accel.h"

/*
 * Bytes of one slot: the unit a send moves, and the most the one-step
 * path takes.
 */
#define COLL_CHUNK_BYTES	(256u << 10)
/*
 * A ring step's chunk, in the wider slots a rank keeps for its previous
 * rank on each ring. It must keep a link busy past the packets around it
 * and, with two blocks in flight, cover a hop's latency and the step's
 * own packets: 512 KiB is 2 us on a 256 GB/s link, against 1.5 us a hop
 * and 0.3 us of packets.
 */
#define COLL_RING_CHUNK_BYTES	(512u << 10)
/* Slots per sender: how far a sender may run ahead of its receiver. */
#define COLL_SLOTS		4u
#define COLL_MAX_RANKS		64
/* A torus runs four rings (two cycles or snakes, both directions). */
#define COLL_MAX_CHANNELS	4
/* Dimensions of a torus an all-reduce may run by, and its parts. */
#define COLL_TORUS_DIMS		3
#define COLL_TORUS_PARTS	(2 * COLL_TORUS_DIMS)

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
 * The comm's fabric as the cost model sees it (cost.c): the least latency
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
	 * at a time (coll_torus_run), 0 where they cannot run. slow_last:
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
	int forced_algo;		/* TERN_ALGO's enum coll_algo, or -1 */
	/*
	 * A comm across hosts has no areas of its own: its ranks on this
	 * host form @local (fabric, peer memory), the rest is reached over
	 * the network (@hosts). @local's failures are @parent's.
	 */
	struct tern_comm *local, *parent;
	struct coll_hosts *hosts;
};

/* What a collective call asks for, once its arguments are checked. */
enum coll_kind {
	COLL_ALL_REDUCE,
	COLL_REDUCE_SCATTER,
	COLL_ALL_GATHER,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_ALL_TO_ALL,
	COLL_SEND,
	COLL_RECV,
};

struct coll_op {
	enum coll_kind kind;
	tern_dtype_t dtype;
	tern_redop_t redop;
	uint64_t send, recv;		/* device addresses; 0 where unused */
	uint64_t count;			/* elements, as the public call counts */
	int root;			/* broadcast, reduce: root; send, recv: peer */
};

static inline bool coll_kind_is_p2p(enum coll_kind kind)
{
	return kind == COLL_SEND || kind == COLL_RECV;
}

/* ---- comm.c ---- */

struct coll_node;
struct coll_id;

bool coll_comm_valid(const struct tern_comm *comm);
/* A communicator with its own areas allocated, peers not yet imported. */
tern_status_t coll_comm_create(struct tern_device *dev, int rank, int nranks,
			       struct tern_comm **out);
/* Frees a communicator that is not (or no longer) registered. */
void coll_comm_free(struct tern_comm *comm);
void coll_register(struct tern_comm *comm);
/* Calls @visit on every registered comm; false if there is none. */
bool coll_registry_visit(void (*visit)(struct tern_comm *comm));
/* What the ring planner needs from @dev: its fabric id and neighbours. */
tern_status_t coll_describe(struct tern_device *dev, struct coll_node *node);
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

/* ---- auth.c: every connection proves the id's secret ---- */

#define COLL_KEY_BYTES		32
#define COLL_TAG_BYTES		16
#define COLL_MAC_BYTES		32
#define COLL_CHALLENGE_BYTES	32

/* What a connection is for: a proof for one is no proof for another. */
enum coll_auth_purpose {
	COLL_AUTH_BOOTSTRAP = 1,	/* a rank to rank 0, over TCP */
	COLL_AUTH_HANDOFF = 2,		/* a rank to its host's first rank */
};

/* An authenticated connection: its session key, messages each way. */
struct coll_chan {
	int fd;
	bool lead;			/* the side that proved first */
	uint8_t key[COLL_KEY_BYTES];
	uint64_t sent, got;
};

/* The joiner's first message: a fresh challenge. */
struct coll_auth_hello {
	char magic[8];
	uint32_t version, purpose;
	uint8_t challenge[COLL_CHALLENGE_BYTES];
};

/* The leader's answer: its challenge, and its proof over both. */
struct coll_auth_reply {
	uint8_t challenge[COLL_CHALLENGE_BYTES];
	uint8_t mac[COLL_MAC_BYTES];
};

/* One side's part of a handshake in progress. */
struct coll_auth_state {
	uint32_t purpose;
	bool ok;			/* the random challenge was had */
	struct coll_auth_hello hello;
	struct coll_auth_reply reply;
	uint8_t proof[COLL_MAC_BYTES];	/* the joiner's, once it has one */
};

/* The comm's key: from the secret (16 to 32 bytes) and the id's address. */
bool coll_auth_key(const uint8_t *secret, size_t secret_len,
		   const struct coll_id *cid, uint8_t key[COLL_KEY_BYTES]);
/* Both sides: a fresh challenge in @st->hello (@st->ok if one was had). */
void coll_auth_greet(struct coll_auth_state *st, uint32_t purpose);
/* The leader: checks the joiner's @hello and fills @st->reply. */
bool coll_auth_answer(struct coll_auth_state *st,
		      const uint8_t key[COLL_KEY_BYTES],
		      const struct coll_auth_hello *hello);
/* The joiner: checks the leader's @reply and fills @st->proof. */
bool coll_auth_check_lead(struct coll_auth_state *st,
			  const uint8_t key[COLL_KEY_BYTES],
			  const struct coll_auth_reply *reply);
/* The leader: checks the joiner's @proof; then @ch is the channel. */
bool coll_auth_check_join(struct coll_auth_state *st,
			  const uint8_t key[COLL_KEY_BYTES],
			  const uint8_t proof[COLL_MAC_BYTES], int fd,
			  struct coll_chan *ch);
/* The joiner, once its proof is sent: the channel. */
bool coll_auth_chan_join(struct coll_auth_state *st,
			 const uint8_t key[COLL_KEY_BYTES], int fd,
			 struct coll_chan *ch);
/*
 * The whole handshake on a blocking connection, by @deadline: SUCCESS,
 * PERMISSION when the other side does not prove the secret, PEER_FAILED
 * when it stops answering.
 */
tern_status_t coll_auth_join(int fd, const uint8_t key[COLL_KEY_BYTES],
			     uint32_t purpose, struct coll_chan *ch,
			     int64_t deadline);
tern_status_t coll_auth_lead(int fd, const uint8_t key[COLL_KEY_BYTES],
			     uint32_t purpose, struct coll_chan *ch,
			     int64_t deadline);
/*
 * A network connection's first message: @from's proof, for @to, over the
 * nonces both drew for this comm.
 */
bool coll_auth_rail(const uint8_t key[COLL_KEY_BYTES], int32_t from,
		    int32_t to, const uint8_t nonce_to[COLL_TAG_BYTES],
		    const uint8_t nonce_from[COLL_TAG_BYTES],
		    uint8_t mac[COLL_MAC_BYTES]);
bool coll_auth_rail_check(const uint8_t key[COLL_KEY_BYTES], int32_t from,
			  int32_t to, const uint8_t nonce_to[COLL_TAG_BYTES],
			  const uint8_t nonce_from[COLL_TAG_BYTES],
			  const uint8_t mac[COLL_MAC_BYTES]);
/* @len bytes and their tag: the next message's, each way. */
bool coll_chan_seal(struct coll_chan *ch, const void *buf, size_t len,
		    uint8_t tag[COLL_MAC_BYTES]);
bool coll_chan_open(struct coll_chan *ch, const void *buf, size_t len,
		    const uint8_t tag[COLL_MAC_BYTES]);
/* A message of @len bytes and its tag; false on any failure or forgery. */
bool coll_chan_send(struct coll_chan *ch, const void *buf, size_t len);
bool coll_chan_recv(struct coll_chan *ch, void *buf, size_t len,
		    int64_t deadline);
/* Closes the connection and forgets the key. */
void coll_chan_close(struct coll_chan *ch);
bool coll_send_all(int fd, const void *buf, size_t len);
bool coll_recv_all(int fd, void *buf, size_t len, int64_t deadline);

/* ---- id.c: the unique id, its port and its secret ---- */

#define COLL_ID_MAGIC		"ternuid3"
#define COLL_SECRET_BYTES	32
#define COLL_HOST_BYTES		48

/* Where a rank finds an id's secret (tern_unique_id_public). */
enum coll_secret_from {
	COLL_SECRET_IN_ID = 0,		/* the id carries it */
	COLL_SECRET_ENV = 1,		/* TERN_COMM_SECRET */
	COLL_SECRET_FILE = 2,		/* the user's run directory, by tag */
};

/*
 * What tern_unique_id_t holds: the secret every rank proves it holds
 * (auth.c), a tag that names the id inside a process and in the user's
 * own files, and rank 0's TCP address. Neither secret nor tag is sent.
 */
struct coll_id {
	char magic[8];
	uint8_t secret[COLL_SECRET_BYTES];
	uint8_t tag[COLL_TAG_BYTES];
	uint16_t family;		/* AF_INET or AF_INET6 */
	uint16_t port;			/* network order */
	uint8_t addr[16];
	uint32_t secret_from;		/* enum coll_secret_from */
};

/* What a rank's devices look like to the others: its fabric id, ports. */
struct coll_node {
	int fabric_id;
	uint32_t port_count;
	int neighbour[16];		/* fabric id on each port, -1 if none */
	uint32_t latency_ns[16];	/* each port's link: ns per hop */
	uint64_t bandwidth[16];		/* and bytes/s each way; 0: down */
	int algo;			/* its TERN_ALGO: all ranks must agree */
};

/* "address:port" of @cid, for messages. */
void coll_id_format(const struct coll_id *cid, char *buf, size_t len);
/*
 * Gives up the port @id holds, if this process made it and still holds
 * it, and the secret kept for it in the user's files.
 */
void coll_id_release(const tern_unique_id_t *id);
/* Rank 0's address, for bind and connect. */
socklen_t coll_id_sockaddr(const struct coll_id *cid,
			   struct sockaddr_storage *ss);
/* Rank 0's listening socket at @cid's address; -1, said, if none. */
int coll_id_listen(const struct coll_id *cid);
/* The comm's key, from wherever @cid says its secret is. */
tern_status_t coll_id_key(const struct coll_id *cid,
			  uint8_t key[COLL_KEY_BYTES]);

/* ---- bootstrap.c: where ranks in other processes meet ---- */

/* What each rank tells the others through rank 0. */
struct coll_rank_info {
	struct coll_node node;
	uint8_t host[COLL_HOST_BYTES];	/* who shares its memory */
	uint8_t handoff[COLL_TAG_BYTES]; /* its hand-off socket's name */
};

/* The last status a peer may send: any other is taken as its failure. */
#define COLL_STATUS_LAST	TERN_ERROR_PEER_FAILED

int64_t coll_now_ms(void);
/* Waits for @events on @fd; false at @deadline (coll_now_ms). */
bool coll_wait_fd(int fd, short events, int64_t deadline);
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

/* Which ranks share a host: hosts numbered by their first rank. */
struct coll_hostmap {
	int nhosts;
	int local_size;			/* ranks on each host; 0 if they differ */
	int host_of[COLL_MAX_RANKS];
	int local_rank[COLL_MAX_RANKS];	/* its place among its host's ranks */
};

void coll_map_hosts(int nranks, const struct coll_rank_info *info,
		    struct coll_hostmap *map);
/* The rank at @local_rank on @host; -1 if none. */
int coll_host_member(const struct coll_hostmap *map, int nranks, int host,
		     int local_rank);

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

/* ---- rank.c: one rank per process ---- */

/* TERN_COMM_INIT_TIMEOUT_MS, or -1 if it is not a number in range. */
int64_t coll_init_timeout_ms(void);
/*
 * A link whose keepalives or data go unanswered this long is closed by
 * the kernel (TCP keepalive and TCP_USER_TIMEOUT), which fails the comm
 * as a peer gone: a host cut off from the network is found within it
 * (TERN_COMM_CUT_MS). -1: the setting is bad.
 */
#define COLL_CUT_MS		10000
int64_t coll_cut_ms(void);

/* ---- split.c ---- */

/* Communicators of @n distinct devices in this process, as one team. */
tern_status_t coll_init_team(struct tern_comm **comms, int n,
			     struct tern_device *const *devices);
/*
 * A split of a team's comm, in two halves so that one thread can enter
 * every rank's (in a group) before any waits: enter records ours, and the
 * last rank to enter builds the new comms; wait waits for that.
 */
tern_status_t coll_split_enter(struct tern_comm *comm, int color, int key,
			       tern_comm_t *out, uint64_t *round);
tern_status_t coll_split_wait(struct tern_comm *comm, uint64_t round);
/* Keeps a split for the group's end. */
tern_status_t coll_group_add_split(struct tern_comm *comm, int color, int key,
				   tern_comm_t *out);

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

/* ---- hosts.c, proxy.c, rail.c, hier.c: communicators across hosts ---- */

/*
 * Staging between a rank's device and the network: the shards of a
 * collective cross in chunks of COLL_STAGE_BYTES through COLL_STAGE_SLOTS
 * slots of host memory the device reaches and the network has registered.
 */
#define COLL_STAGE_BYTES	(1u << 20)
#define COLL_STAGE_SLOTS	4u

/* How a chunk is all-reduced along the rail (rail.c; tune.c chooses). */
enum coll_rail_algo {
	COLL_RAIL_RING,			/* reduce-scatter, all-gather round the hosts */
	COLL_RAIL_HALVING,		/* recursive halving, then doubling */
	COLL_RAIL_DOUBLING,		/* recursive doubling of the whole chunk */
	COLL_RAIL_COUNT
};

/* What the proxy does with a staged chunk's slot. */
enum coll_stage_kind {
	COLL_STAGE_ALL_REDUCE,		/* all-reduce it along the rail */
	COLL_STAGE_REDUCE_SCATTER,	/* reduce-scatter it along the rail */
	COLL_STAGE_SEND,		/* send it to @peer */
	COLL_STAGE_RECV,		/* fill it from @peer */
};

struct coll_stage_chunk {
	uint64_t seq;			/* the staged word's value that marks it */
	enum coll_stage_kind kind;
	uint64_t count;			/* elements (along the rail), else bytes */
	tern_dtype_t dtype;
	tern_redop_t redop;
	int peer;			/* send, recv: the rank */
	enum coll_rail_algo algo;	/* along the rail how */
};

/* Whether a chunk of @kind runs along the rail (rail.c), alone. */
static inline bool coll_stage_on_rail(enum coll_stage_kind kind)
{
	return kind == COLL_STAGE_ALL_REDUCE ||
	       kind == COLL_STAGE_REDUCE_SCATTER;
}

/*
 * The device's side of the stage (stage.c): a chunk's copy into its slot
 * (send, all-reduce), the staged word, and later, once the done word
 * says so, its copy out (recv, all-reduce). A slot is used again only
 * after the done word has passed its last chunk.
 */
struct coll_stager {
	struct coll_call *call;
	struct coll_hosts *h;
	struct {
		uint64_t seq;		/* 0: none */
		uint64_t dst, bytes;	/* its copy out; 0 bytes: none */
		uint64_t from;		/* where in the slot that starts */
	} pending[COLL_STAGE_SLOTS];
};

void coll_stage_begin(struct coll_stager *st, struct coll_call *call,
		      struct coll_hosts *h);
/*
 * One chunk (at most COLL_STAGE_BYTES) of @kind: copied in from @src
 * (send, all-reduce), out to @dst (recv, all-reduce), @bytes long.
 */
void coll_stage_push(struct coll_stager *st, enum coll_stage_kind kind,
		     uint64_t src, uint64_t dst, uint64_t bytes, int peer);
/*
 * One chunk of a reduce-scatter along the rail: @bytes from each of the
 * hosts' @src[k] (host k's piece) in, our host's piece's sums out to
 * @dst; at most COLL_STAGE_BYTES in all.
 */
void coll_stage_push_scatter(struct coll_stager *st, const uint64_t *src,
			     uint64_t dst, uint64_t bytes);
/* Waits for every chunk pushed and copies the results out. */
void coll_stage_end(struct coll_stager *st);

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

/* A network connection's first message: who, to whom, the proof. */
struct coll_rail_hello {
	int32_t rank, to;
	uint8_t mac[COLL_MAC_BYTES];
};

struct tern_net_stats;

struct coll_hosts {
	int nhosts, host;		/* hosts, and ours */
	int host_of[COLL_MAX_RANKS];	/* each rank's host */
	int lrank_of[COLL_MAX_RANKS];	/* each rank's place on its host */
	int member[COLL_MAX_RANKS];	/* by place: our host's ranks */
	/* by host and place: every rank (a host holds at most all ranks) */
	int8_t host_member[COLL_MAX_RANKS][COLL_MAX_RANKS];
	int rail[COLL_MAX_RANKS];	/* by host: its rank at our position */
	/* The network: this process's transport, and the rail's ends. */
	const struct tern_net_ops *ops;
	struct tern_net *net;
	struct tern_net_listen *listen;
	/*
	 * By rank: connections to the ranks on other hosts, the rail's made
	 * at init, the others' when a send or recv first needs them (each
	 * side's first message says who it is, from @hello).
	 */
	struct tern_net_comm *to[COLL_MAX_RANKS], *from[COLL_MAX_RANKS];
	struct tern_net_handle handle[COLL_MAX_RANKS];
	struct tern_net_comm *accepting;	/* its hello not yet in */
	struct tern_net_req *accepting_req;
	/* By rank: our hellos to each; then the one accepting's. */
	struct coll_rail_hello *hello_out, *hello_in;
	uint8_t key[COLL_KEY_BYTES];	/* the comm's: rail proofs */
	unsigned int refused;		/* connections that proved nothing */
	uint8_t nonce[COLL_MAX_RANKS][COLL_TAG_BYTES];	/* each rank's */
	uint8_t *tmp;			/* COLL_STAGE_BYTES a receive reduces from */
	struct tern_net_mr *stage_mr, *tmp_mr;
	/* The counters per peer host, for tern-inspect (net/stats.h). */
	struct tern_net_stats *stats;
	size_t stats_bytes;
	char stats_path[128];
	/* Host memory: the slots, and the words device and proxy meet at. */
	tern_buffer_t stage, words;
	uint8_t *stage_cpu;
	volatile uint64_t *words_cpu;	/* COLL_WORD_STAGED, COLL_WORD_DONE */
	uint64_t built;			/* chunks the programs have staged */
	/* The network's figures and TERN_NET_ALGO, as rank 0 gave them. */
	double net_bandwidth, net_latency_ns;
	int forced_rail;
	/* Device memory a collective composed of all-reduce works in. */
	tern_buffer_t temp;
	uint64_t temp_bytes;
	/* The proxy thread and the chunks it has to do, in order. */
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct coll_stage_chunk *queue;
	size_t head, published, tail, cap;
};

enum { COLL_WORD_STAGED, COLL_WORD_DONE, COLL_WORDS };

/*
 * The comm across hosts over @local (our host's ranks, made), rank @rank
 * of @nranks placed by @map: its network listen is open, its handle and
 * host name in *@card for the others. It owns @local, even when it fails.
 */
tern_status_t coll_hosts_create(struct tern_comm *local, int rank, int nranks,
				const struct coll_hostmap *map,
				struct coll_net_card *card,
				struct tern_comm **top);
/*
 * Connects @top to every rank on another host, given every rank's
 * @cards; opens its counters' file and starts its proxy.
 */
/* Whether every rank's card is one a rank makes; ends their names. */
tern_status_t coll_cards_fit(struct coll_net_card *cards, int nranks);
tern_status_t coll_hosts_connect(struct tern_comm *top,
				 const struct coll_net_card *cards,
				 const uint8_t key[COLL_KEY_BYTES],
				 int64_t deadline);
/*
 * The connection a send to (@send) or a recv from @peer goes on, made if
 * need be: NOT_READY while the peer's has not come in yet (the proxy).
 */
tern_status_t coll_hosts_reach(struct tern_comm *top, int peer, bool send);
/* Brings @top's counters' file up to date (the proxy, as it moves). */
void coll_hosts_count(struct tern_comm *top);
/* Stops the proxy and closes the network side of @top. */
void coll_hosts_free(struct tern_comm *top);

/* The proxy (proxy.c): starts it; queues chunks; publishes or drops them. */
tern_status_t coll_proxy_start(struct tern_comm *top);
void coll_proxy_stop(struct tern_comm *top);
bool coll_proxy_queue(struct coll_hosts *h, const struct coll_stage_chunk *c);
void coll_proxy_publish(struct coll_hosts *h, bool keep);

/*
 * rail.c: all-reduces @count elements at @buf (in the stage) with the
 * rail over the network by @algo; the last reduction of an average
 * divides by @divisor.
 */
tern_status_t coll_rail_all_reduce(struct tern_comm *top, uint8_t *buf,
				   uint64_t count, tern_dtype_t dtype,
				   tern_redop_t op, uint32_t divisor,
				   enum coll_rail_algo algo);
/*
 * Reduce-scatters @count elements at @buf, one piece a host (coll_split),
 * along the rail by @algo (ring or halving): host q's piece q holds the
 * sums after it.
 */
tern_status_t coll_rail_reduce_scatter(struct tern_comm *top, uint8_t *buf,
				       uint64_t count, tern_dtype_t dtype,
				       tern_redop_t op, uint32_t divisor,
				       enum coll_rail_algo algo);

/* hier.c: builds and submits @n operations of a comm across hosts. */
tern_status_t coll_hier_run_locked(struct tern_comm *top,
				   struct tern_stream *stream,
				   const struct coll_op *ops, size_t n);

/* ---- team.c: the ranks of one communicator that share this process ---- */

/* Ties @comms together so that a failure of one reaches the others. */
tern_status_t coll_team_create(struct tern_comm **comms, int n);
/* Tells @comm's teammates that it failed. */
void coll_team_tell(struct tern_comm *comm);
/* Takes @comm out of its team (it is being freed). */
void coll_team_leave(struct tern_comm *comm);

/* ---- group.c: tern_group_start() / tern_group_end() ---- */

/* Nesting depth of the calling thread's group; 0 outside one. */
int coll_group_depth(void);
/* Keeps @op for the group's end. */
tern_status_t coll_group_add(struct tern_comm *comm, struct tern_stream *stream,
			     const struct coll_op *op);

/* ---- topo.c ---- */

/* What the ring planner needs to know about one rank's device. */

/*
 * Fills comm->nchannels and comm->ring[][] for @nodes (one per rank): the
 * physical ring both ways on a ring, four snakes (row and column, both
 * ways) on a complete 2D torus, else a walk over direct links where it can
 * and jumps where it cannot, both ways; then the ring blocks in flight and
 * where each sender's slots lie (coll_plan_slots).
 */
void coll_plan_rings(struct tern_comm *comm, const struct coll_node *nodes);

/*
 * Bytes of a comm's scratch: COLL_SLOTS slots for each sender, the wide
 * ones of a ring's previous rank for at most COLL_MAX_CHANNELS of them.
 */
size_t coll_scratch_bytes(int nranks);
/* Lays out every rank's scratch for the comm's rings (prog.c). */
void coll_plan_slots(struct tern_comm *comm);
/* Whether @sender has ring-chunk slots in @receiver's scratch. */
bool coll_wide_slots(const struct tern_comm *comm, int sender, int receiver);

/* ---- prog.c: one rank's packet program ---- */

struct coll_prog {
	struct tern_comm *comm;
	uint8_t *buf;
	size_t size, capacity;
	bool failed;			/* out of memory while building */
	uint64_t scratch_va, sem_va;	/* ours, as our device sees them */
};

void coll_prog_init(struct coll_prog *p, struct tern_comm *comm);
void coll_prog_free(struct coll_prog *p);

void coll_emit_copy(struct coll_prog *p, uint64_t dst, uint64_t src,
		    uint64_t bytes);
void coll_emit_reduce(struct coll_prog *p, uint64_t dst, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op);
/* The reduction that completes an element: where TERN_AVG divides. */
void coll_emit_reduce_last(struct coll_prog *p, uint64_t dst, uint64_t src0,
			   uint64_t src1, uint64_t count, tern_dtype_t dtype,
			   tern_redop_t op);

/* Sets the u64 at @addr to @value. */
void coll_emit_signal(struct coll_prog *p, uint64_t addr, uint64_t value);
/* Waits for the u64 at @addr to reach @value, or the comm's abort. */
void coll_emit_wait(struct coll_prog *p, uint64_t addr, uint64_t value);

/*
 * A send of one chunk (<= COLL_CHUNK_BYTES) to rank @peer: waits for a free
 * slot there, COPYs @bytes from @src into it (or, with coll_send_reduce,
 * REDUCEs @src0 and @src1 into it), then signals the peer.
 */
void coll_send_copy(struct coll_prog *p, int peer, uint64_t src,
		    uint64_t bytes);
void coll_send_reduce(struct coll_prog *p, int peer, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op);
/*
 * A receive of the next chunk from @peer: waits until it is there and
 * returns its address; coll_recv_done() hands the slot back once the
 * packets that read it have been emitted.
 */
uint64_t coll_recv_wait(struct coll_prog *p, int peer);
void coll_recv_done(struct coll_prog *p, int peer);
/* A slot of our own scratch that nobody sends into: for staging. */
uint64_t coll_self_slot(struct coll_prog *p);

/*
 * Submits the program on @stream as one or more jobs (split at packet
 * boundaries to fit the device's submission limit), each gated on the
 * comm's job before it and the first one ordered after the comm's newest
 * job on any stream. *@submitted counts the jobs that went in. Comm lock
 * held.
 */
tern_status_t coll_prog_submit(struct coll_prog *p, struct tern_stream *stream,
			       uint32_t *submitted);

/* Host bookkeeping to restore if a program is dropped before submission. */
struct coll_seq_snapshot {
	uint64_t sent[COLL_MAX_RANKS], received[COLL_MAX_RANKS];
};

void coll_seq_save(const struct tern_comm *comm, struct coll_seq_snapshot *s);
void coll_seq_restore(struct tern_comm *comm,
		      const struct coll_seq_snapshot *s);

/* ---- api.c checks, launch.c runs ---- */

struct coll_call {
	struct tern_comm *comm;
	struct tern_stream *stream;
	struct coll_op op;
	size_t esize;			/* bytes per element */
	size_t chunk_elems;		/* elements per ring chunk */
	struct coll_prog prog;
};

/*
 * Enqueues @op (checked) on @stream through @comm: the comm's error if it
 * has one (nothing enqueued), deferred until tern_group_end() inside a
 * group, else built and submitted.
 */
tern_status_t coll_launch(struct tern_comm *comm, struct tern_stream *stream,
			  const struct coll_op *op);
/* Emits @call->op (a collective, not send or recv) by the tuner's choice. */
void coll_build(struct coll_call *call);
/*
 * Builds and submits @n operations of @comm on @stream as one program:
 * collectives in order, then the point-to-point ones interleaved chunk by
 * chunk so that any exchange between them makes progress. Comm lock held.
 */
tern_status_t coll_run_locked(struct tern_comm *comm, struct tern_stream *stream,
			      const struct coll_op *ops, size_t n);

/* ---- tune.c: the one place an algorithm is chosen ---- */

enum coll_algo {
	COLL_ALGO_LOCAL,		/* one rank: a copy */
	COLL_ALGO_DIRECT,		/* one step, every piece straight to its rank */
	COLL_ALGO_RING,			/* pipelined rings, reduce-scatter + all-gather */
	COLL_ALGO_TORUS,		/* all-reduce by the dimensions of a torus */
	COLL_ALGO_CHAIN,		/* rooted: pipelined chains along the rings */
	COLL_ALGO_PAIRWISE,		/* all-to-all: n-1 rounds of pairs */
	COLL_ALGO_P2P,			/* send, recv: chunks through the slots */
	COLL_ALGO_COUNT
};

struct coll_plan {
	enum coll_algo algo;
	int nch;			/* rings used */
};

/* An algorithm that can run an operation, and what the model expects. */
struct coll_candidate {
	enum coll_algo algo;
	double ns;
};

struct coll_plan coll_tune(const struct coll_call *call);
/* The same choice for @kind over @bytes (the call's count, as bytes). */
struct coll_plan coll_tune_kind(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes);
/* Fills @out (COLL_ALGO_COUNT entries) with the candidates; their count. */
int coll_tune_candidates(const struct tern_comm *comm, enum coll_kind kind,
			 uint64_t bytes, struct coll_candidate *out);
/* tern.h's @coll as the tuner's kind; false if it is none. */
bool coll_public_kind(tern_collective_t coll, enum coll_kind *kind);
/* TERN_ALGO: the algorithm forced, -1 for none, or INVALID_ARGUMENT. */
tern_status_t coll_forced_algo(int *algo);
const char *coll_algo_name(enum coll_algo algo);

/*
 * The rail's algorithm for a chunk of @bytes (to reduce-scatter if
 * @scatter, else all-reduce): the cheapest that can run on the comm's
 * hosts, or TERN_NET_ALGO's where it can.
 */
enum coll_rail_algo coll_tune_rail(const struct coll_hosts *h,
				   uint64_t bytes, bool scatter);
const char *coll_rail_algo_name(enum coll_rail_algo algo);
/* TERN_NET_ALGO: the rail's algorithm forced, -1, or INVALID_ARGUMENT. */
tern_status_t coll_forced_rail(int *algo);
/* What this process takes the network to be (TERN_NET_GBPS, ..._US). */
tern_status_t coll_net_figures(const char *provider, uint64_t *bandwidth,
			       uint32_t *latency_ns);

/* ---- cost.c: the cost model ---- */

/*
 * The ns the model expects the rail's @algo to take over a chunk of
 * @bytes, all-reducing it or (@scatter) reduce-scattering it; a negative
 * figure where it cannot run (hosts not a power of two; doubling has no
 * reduce-scatter).
 */
double coll_cost_rail(const struct coll_hosts *h, enum coll_rail_algo algo,
		      uint64_t bytes, bool scatter);
/* Fills comm->fabric from @nodes (one per rank). */
void coll_measure_fabric(struct tern_comm *comm, const struct coll_node *nodes);
/*
 * The least time, in ns, any schedule of @kind over @bytes (the whole
 * message, as tern-bench counts it) can take on the comm's fabric.
 * TERN_ERROR_NO_ROUTE if some rank reaches no other.
 */
tern_status_t coll_cost_bound(const struct tern_comm *comm,
			      enum coll_kind kind, uint64_t bytes, int root,
			      double *ns);
/*
 * The time, in ns, the model expects @algo to take for @kind over @bytes
 * (the call's count, as bytes, as the tuner sees it).
 */
double coll_cost_estimate(const struct tern_comm *comm, enum coll_kind kind,
			  enum coll_algo algo, uint64_t bytes);

/* ---- the algorithms: each emits one rank's part of @call->op ---- */

void coll_local_run(struct coll_call *call);
/* The copy of our own piece into our output, where the op has one. */
void coll_own_piece(struct coll_call *call);
void coll_direct_run(struct coll_call *call);
void coll_ring_run(struct coll_call *call, int nch);
/*
 * Half an all-reduce round the comm's first @nch rings: the reduce-scatter
 * that leaves each rank the (unfinished: an average not yet divided) sums
 * of its shard, coll_split(count, nranks, rank), in recv; or, @gather, the
 * all-gather of every rank's shard from recv.
 */
void coll_ring_shards(struct coll_call *call, int nch, bool gather);
/* All-reduce by the torus's dimensions (comm->torus_chunk). */
void coll_torus_run(struct coll_call *call);
/*
 * The torus all-reduce's parts (coll_torus_run), and the dimension part
 * @p runs along in phase @k (0 to dims-1: reduce-scatter along the first
 * dims-1, all-reduce along the last; the gathers mirror them). topo.c.
 */
int coll_torus_parts(const struct tern_comm *comm);
/* The ranks of the grid's line along dimension @d through us, in its
 * order; returns how many. topo.c. */
int coll_grid_line(const struct tern_comm *comm, int d, int *group);
int coll_torus_dim(const struct tern_comm *comm, int p, int k);
/* Whether a torus phase may run @o blocks in flight (ring.c). */
bool coll_phase_fits(int steps, int o, int m, int first, int ring_steps,
		     int share);
void coll_chain_run(struct coll_call *call, int nch);
void coll_pairwise_run(struct coll_call *call);
/* Send and recv ops, interleaved chunk by chunk (chunk k of every op in turn). */
void coll_p2p_run(struct coll_call *call, const struct coll_op *ops, size_t n);

/* Part @i of @parts of @total, as even as can be. */
static inline void coll_split(uint64_t total, uint64_t parts, uint64_t i,
			      uint64_t *start, uint64_t *len)
{
	uint64_t base = total / parts, rem = total % parts;

	*start = i * base + (i < rem ? i : rem);
	*len = base + (i < rem ? 1 : 0);
}

static inline int coll_mod(int a, int n)
{
	return ((a % n) + n) % n;
}

#endif /* TERN_COLL_H */
