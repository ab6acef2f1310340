/* SPDX-License-Identifier: MIT */
/*
 * What the files of hosts/ (and hosts/rail/) share among themselves: a
 * comm across hosts's network side (struct coll_hosts), the stage between
 * the device and the proxy, and the rail's algorithms.
 */
#ifndef TERN_COLL_HOSTS_INTERNAL_H
#define TERN_COLL_HOSTS_INTERNAL_H

#include "coll/hosts/hosts.h"

/*
 * Staging between a rank's device and the network: the shards of a
 * collective cross in chunks of COLL_STAGE_BYTES through COLL_STAGE_SLOTS
 * slots of host memory the device reaches and the network has registered.
 */
#define COLL_STAGE_BYTES	(1u << 20)
#define COLL_STAGE_SLOTS	4u

struct coll_rail_algo;

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
	const struct coll_rail_algo *algo;	/* along the rail how */
};

/* Whether a chunk of @kind runs along the rail (rail/rail.c), alone. */
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
 * The connection a send to (@send) or a recv from @peer goes on, made if
 * need be: NOT_READY while the peer's has not come in yet (the proxy).
 */
tern_status_t coll_hosts_reach(struct tern_comm *top, int peer, bool send);
/*
 * The counters' file (counters.c): opened once @top is connected, named
 * by the hosts' @cards; brought up to date by the proxy, as it moves.
 */
void coll_hosts_counters_open(struct tern_comm *top,
			      const struct coll_net_card *cards);
void coll_hosts_count(struct tern_comm *top);

/* The proxy (proxy.c): starts it; queues chunks; publishes or drops them. */
tern_status_t coll_proxy_start(struct tern_comm *top);
void coll_proxy_stop(struct tern_comm *top);
bool coll_proxy_queue(struct coll_hosts *h, const struct coll_stage_chunk *c);
void coll_proxy_publish(struct coll_hosts *h, bool keep);

/* ---- rail/: a chunk's all-reduce along the rail ---- */

/*
 * An algorithm along the rail, described once, in its own file in rail/;
 * the rail's tuner (tune.c) runs, among the rows of its table that can
 * run, the one whose estimate is least, chunk by chunk.
 */
struct coll_rail_algo {
	/* As TERN_NET_ALGO names it. */
	const char *name;
	/* As tern_comm_algorithms() lists it, apart from the fabric's. */
	const char *listed_as;
	/* Whether it can run on @h's hosts, to reduce-scatter (@scatter). */
	bool (*can_run)(const struct coll_hosts *h, bool scatter);
	/*
	 * The ns the model expects it to take over a chunk of @bytes,
	 * all-reducing it or (@scatter) reduce-scattering it.
	 */
	double (*estimate)(const struct coll_hosts *h, uint64_t bytes,
			   bool scatter);
	/*
	 * All-reduces @count elements at @buf (in the stage) with the rail
	 * over the network; the last reduction of an average divides by
	 * @divisor.
	 */
	tern_status_t (*all_reduce)(struct tern_comm *top, uint8_t *buf,
				    uint64_t count, tern_dtype_t dtype,
				    tern_redop_t op, uint32_t divisor);
	/*
	 * Reduce-scatters them, one piece a host (coll_split): host q's
	 * piece q holds the sums after it. NULL where it has none.
	 */
	tern_status_t (*reduce_scatter)(struct tern_comm *top, uint8_t *buf,
					uint64_t count, tern_dtype_t dtype,
					tern_redop_t op, uint32_t divisor);
};

/* The rows of the rail's tuner's table, each in its file in rail/. */
extern const struct coll_rail_algo coll_rail_ring, coll_rail_halving,
	coll_rail_doubling;

/*
 * One step (rail/rail.c): @rlen bytes from host @from into @rbuf (of
 * @rmr), @slen from @sbuf (in the stage) to host @to (hosts by number;
 * their ranks on our rail).
 */
tern_status_t coll_rail_step(struct tern_comm *top, int to,
			     const void *sbuf, size_t slen, int from,
			     void *rbuf, size_t rlen, struct tern_net_mr *rmr);
/* @dst = @dst op @in, the last reduction of an average dividing. */
void coll_rail_reduce(uint8_t *dst, const uint8_t *in, uint64_t count,
		      tern_dtype_t dtype, tern_redop_t op, bool last,
		      uint32_t divisor);
/* Pieces [@a, @b) of the chunk's @n: where they start and their elements. */
void coll_rail_range(uint64_t count, int n, int a, int b, uint64_t *start,
		     uint64_t *len);

/* What an estimate along the rail is made of, for a chunk. */
struct coll_rail_cost {
	double n, b;			/* hosts, and the chunk's bytes */
	double alpha;			/* ns a message takes */
	double beta, gamma;		/* ns a byte takes to send, to reduce */
	double steps;			/* log2 of the hosts, rounded up */
	double halves;			/* 1 to reduce-scatter, 2 to all-reduce */
};

void coll_rail_cost(const struct coll_hosts *h, uint64_t bytes, bool scatter,
		    struct coll_rail_cost *c);
/* Whether the hosts are a power of two. */
bool coll_rail_pow2(const struct coll_hosts *h);

/* ---- tune.c: the rail's tuner ---- */

/*
 * The rail's algorithm for a chunk of @bytes (to reduce-scatter if
 * @scatter, else all-reduce): the cheapest that can run on the comm's
 * hosts, or TERN_NET_ALGO's where it can.
 */
const struct coll_rail_algo *coll_tune_rail(const struct coll_hosts *h,
					    uint64_t bytes, bool scatter);
/*
 * TERN_NET_ALGO: the row of the rail's table it forces, -1, or
 * INVALID_ARGUMENT where it is none of the setting's choices.
 */
tern_status_t coll_forced_rail(int *algo);
/* Whether @algo is a TERN_NET_ALGO a rank may say: -1, or a row. */
bool coll_forced_rail_fits(int algo);
/* What this process takes the network to be (TERN_NET_GBPS, ..._US). */
tern_status_t coll_net_figures(const char *provider, uint64_t *bandwidth,
			       uint32_t *latency_ns);

#endif /* TERN_COLL_HOSTS_INTERNAL_H */
