/* SPDX-License-Identifier: MIT */
/*
 * The member: a proxy that holds the secret, between rank k and rank 0
 * (member.c relays, misdeed.c misbehaves).
 */
#ifndef FUZZ_BOOTSTRAP_MEMBER_H
#define FUZZ_BOOTSTRAP_MEMBER_H

#include "wire.h"

#define FZ_MSG_MAX	4096		/* the largest message it frames */

/* One TCP side: its channel, and what has come of its next message. */
struct fz_stream {
	struct coll_chan ch;
	uint8_t buf[2 * FZ_MSG_MAX];
	size_t got;
};

struct fz_proxy {
	struct fz_plan plan;
	struct fz_rng rng;
	struct coll_id cid, cid2;	/* rank 0's id; rank k's, our port */
	uint8_t key[COLL_KEY_BYTES], key2[COLL_KEY_BYTES];
	int64_t end;
	int tcp_listen;
	struct fz_stream tk, t0;	/* rank k's connection; ours to rank 0 */
	/* The hand-off: rank 0's name, ours in its place, either side. */
	int ho_listen;
	bool ho_renamed;
	uint8_t ho_real[COLL_TAG_BYTES], ho_ours[COLL_TAG_BYTES];
	struct coll_chan hk, h0;
	int count[W_COUNT];		/* messages relayed, by direction */
	int prev_fds[2];		/* the last hand-off packet's, 0->k */
	struct coll_rank_info table[FZ_MAX_RANKS];	/* as rank 0 sent it */
	/* --cover: which files the fds we handed rank k for each rank are. */
	struct fz_area_ids handed[FZ_MAX_RANKS];
	bool applied;
	/* A link message of ours, while the ranks all-reduce: when, to. */
	int64_t link_at;
	struct coll_chan *link_to;
	bool again;			/* rank k comes again: serve it */
};

/* member.c */
void fz_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool fz_hit(struct fz_proxy *p, enum fz_where where, int index);
void fz_stall(struct fz_proxy *p) __attribute__((noreturn));
void fz_die(void) __attribute__((noreturn));
void fz_close_tcp(struct fz_proxy *p);
void fz_note_handed(struct fz_proxy *p, enum fz_where where, int index,
		    const int *fds, int nfds);
size_t fz_seal(struct coll_chan *ch, const void *body, size_t len,
	       uint8_t *wire);

/* misdeed.c */
int fz_lead(struct fz_proxy *p, int fd, const uint8_t *key,
	    uint32_t purpose, struct coll_chan *ch, enum fz_where where);
int fz_join(struct fz_proxy *p, bool handoff, struct coll_chan *ch);
void fz_misdeed(struct fz_proxy *p, enum fz_where where, int index,
		uint8_t *body, size_t len, struct coll_chan *to,
		const int *fds, int nfds);
void fz_link_event(struct fz_proxy *p);

#endif
