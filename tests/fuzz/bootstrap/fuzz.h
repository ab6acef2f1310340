/* SPDX-License-Identifier: MIT */
/*
 * fuzz_bootstrap: the bootstrap of tern_comm_init_rank under attack. What
 * the files share: a run's plan, what it expects, and small helpers.
 * Documentation/fuzzing.rst says what it does and how to run it.
 */
#ifndef FUZZ_BOOTSTRAP_H
#define FUZZ_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tern.h"
#include "coll/init/internal.h"

#define FZ_MAX_RANKS	3
#define FZ_JOB_MS	1000		/* TERN_SIM_JOB_TIMEOUT_MS */
#define FZ_MARGIN_MS	4000		/* past the timeouts, a rank hangs */

/* A rank's exit status is its verdict. */
#define FZ_EXIT_SETUP	80		/* no device, buffers, id: the harness's */
#define FZ_EXIT_LEAK	85		/* more fds open after than before init */
#define FZ_EXIT_WRONG	90		/* the all-reduce returned wrong data */
#define FZ_EXIT_INIT	100		/* + tern_comm_init_rank's status */
#define FZ_EXIT_REDUCE	140		/* + the all-reduce's status */

enum fz_attack { FZ_OUTSIDE, FZ_MEMBER };

/* Where the member misbehaves. */
enum fz_where {
	W_NONE,		/* nowhere: it only relays */
	W_AUTH_K,	/* its TCP proof to rank k */
	W_AUTH_0,	/* its TCP handshake with rank 0 (then again, properly) */
	W_AUTH_HK,	/* its hand-off proof to rank k */
	W_AUTH_H0,	/* its hand-off handshake with rank 0 (then again) */
	W_K2R,		/* TCP, rank k to rank 0 */
	W_R2K,		/* TCP, rank 0 to rank k */
	W_HK2F,		/* hand-off, rank k to its host's first rank (rank 0) */
	W_HF2K,		/* hand-off, the first rank to rank k */
	W_COUNT
};

enum fz_kind {
	K_FIELD,	/* a field set to an edge value, sealed again */
	K_BITFLIP,	/* bits flipped, sealed again */
	K_BADTAG,	/* the tag wrong */
	K_SKIPSEQ,	/* sealed one sequence number ahead */
	K_REPLAY,	/* the sealed message twice */
	K_TRUNC,	/* cut short, then closed or stalled */
	K_EXTEND,	/* random bytes after it */
	K_WRONGLEN,	/* sealed at another length */
	K_DROP,		/* the member dies there */
	K_STALL,	/* the member stops there */
	K_INJECT,	/* a sealed message of its own first */
	K_FDS,		/* a hand-off's fds */
	K_COUNT
};

/* What K_FDS does to a hand-off's two fds. */
enum fz_fds {
	FDS_NONE, FDS_ONE, FDS_THREE, FDS_DEVNULL, FDS_MEMFD, FDS_PIPE,
	FDS_SWAP, FDS_SAME, FDS_PREV, FDS_COUNT
};

/*
 * What a run must end with: every rank succeeds exactly; no claim (the
 * link breaks after init); rank k's init fails; every rank's init fails.
 * Two misdeeds together do what the later of them in this order does.
 * Wrong data, a crash, a hang or a leak fail any run.
 */
enum fz_expect { E_SUCCESS, E_ANY, E_FAIL_K, E_FAIL_ALL };

struct fz_plan {
	uint64_t seed, run;
	enum fz_attack attack;
	int nranks, k;			/* member: the rank behind the proxy */
	enum fz_where where;
	int index;			/* which message of the direction */
	enum fz_kind kind;
	enum fz_fds fds;		/* K_FDS: what becomes of them */
	bool retry;			/* a spoiled handshake done again */
	bool pushed_out;		/* K_DROP of the hello: rank k comes again */
	bool proof_bits;		/* auth K_BITFLIP: the proof, not the hello */
	bool then_stall;		/* K_TRUNC: the member stalls, or dies */
	uint64_t sub;			/* the attacker's own random choices */
	int timeout_ms;			/* TERN_COMM_INIT_TIMEOUT_MS */
	enum fz_expect expect;
	bool by_content;		/* the proxy judges what it changed */
	bool cover;			/* it hides that from the ranks' checks */
};

/* plan.c */
void fz_make_plan(uint64_t seed, uint64_t run, int timeout_ms,
		  struct fz_plan *p);
void fz_describe(const struct fz_plan *p, char *buf, size_t len);
const char *fz_expect_name(enum fz_expect e);
const char *fz_where_str(enum fz_where where);
int fz_init_messages(const struct fz_plan *p, enum fz_where where);
enum fz_expect fz_broken_at(const struct fz_plan *p, enum fz_where where,
			    int index);

/* util.c: a random stream from a seed, alike in every process */
struct fz_rng {
	uint64_t s;
};

uint64_t fz_mix(uint64_t z);
uint64_t fz_next(struct fz_rng *r);
uint32_t fz_below(struct fz_rng *r, uint32_t n);
bool fz_chance(struct fz_rng *r, unsigned int percent);
void fz_fill(struct fz_rng *r, void *buf, size_t len);
void fz_flip(struct fz_rng *r, void *buf, size_t len, int bits);
int32_t fz_edge_int(struct fz_rng *r, int nranks);

int64_t fz_now_ms(void);
void fz_sleep_ms(int ms);
void fz_hex(const void *buf, size_t len, char *out);
bool fz_unhex(const char *hex, void *buf, size_t len);
bool fz_write(int fd, const void *buf, size_t len);
bool fz_read_line(int fd, char *buf, size_t len, int64_t deadline);
int fz_connect_tcp(const struct coll_id *cid, int64_t deadline);
int fz_connect_unix(const uint8_t name[COLL_TAG_BYTES], int64_t deadline);
bool fz_sendmsg(int fd, const void *buf, size_t len, const int *fds,
		int nfds);
/* A process's id argument, and the run's plan from its seed and number. */
bool fz_child_args(char **argv, tern_unique_id_t *id, struct fz_plan *p);

/* The processes this program runs as, besides the fuzzer itself. */
int fz_rank_main(const char *idhex, int rank, int nranks);
int fz_hold_main(void);
int fz_proxy_main(char **argv);
int fz_outside_main(char **argv);

/* run.c: one slot's runs; what each did, for the summary. */
struct fz_options {
	uint64_t seed;
	int seconds, jobs, timeout_ms;
	long runs;			/* at most, -1 none */
	long only;			/* this run alone, -1 none */
	bool verbose;
	const char *logdir;
};

enum { OUT_ALL_OK, OUT_ALL_FAILED, OUT_MIXED };

struct fz_result {
	uint64_t run;
	uint8_t attack, failed, outcome, applied;
	uint8_t crashes, hangs, wrong, leaks, unmet, harness;
	uint32_t ms;
};

int fz_slot_main(const struct fz_options *opt, int index, int out,
		 int64_t end);

#endif
