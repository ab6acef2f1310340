// SPDX-License-Identifier: MIT
/*
 * A run's plan, from the seed and the run's number alone (so that
 * --seed S --run N replays it), and what the ranks must end with.
 *
 * The expectations follow what the ranks check: a stream broken before
 * init's last message fails every rank's init (each rank sends rank 0 its
 * verdict, and rank 0 fails all when one failed); the last, rank 0's
 * verdict to rank k, only rank k's. A change to what a rank learns of
 * another (a table entry, area ids, the fds handed over) fails every
 * rank too: rank 0 compares digests of the tables, each rank the files
 * it was handed with what their owners said. A change the ranks never
 * read (a reserved field, padding, rank k's own entry) changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static const char *const fz_where_name[W_COUNT] = {
	"relay", "auth-k", "auth-0", "handoff-auth-k", "handoff-auth-0",
	"k->0", "0->k", "handoff k->0", "handoff 0->k",
};

const char *fz_where_str(enum fz_where where)
{
	return fz_where_name[where];
}

const char *fz_expect_name(enum fz_expect e)
{
	static const char *const name[] = {
		"success", "any end", "rank k's init to fail",
		"every init to fail",
	};

	return name[e];
}

static bool fz_tcp(enum fz_where where)
{
	return where == W_K2R || where == W_R2K;
}

int fz_init_messages(const struct fz_plan *p, enum fz_where where)
{
	return where == W_K2R ? 3 : where == W_R2K ? p->nranks + 2 :
	       where == W_HK2F ? 1 : where == W_HF2K ? p->nranks : 0;
}

/* What a stream broken at message @index (or a packet lost) does. */
enum fz_expect fz_broken_at(const struct fz_plan *p, enum fz_where where,
			    int index)
{
	if (index >= fz_init_messages(p, where))
		return fz_tcp(where) ? E_ANY : E_SUCCESS;
	return where == W_R2K && index == p->nranks + 1 ? E_FAIL_K : E_FAIL_ALL;
}

static void fz_expect(struct fz_plan *p)
{
	const enum fz_fds how = p->fds;

	p->expect = E_SUCCESS;
	if (p->where == W_NONE || p->pushed_out)
		return;
	if (p->where == W_AUTH_K) {
		/* closed before proving: rank k connects again */
		if (p->kind != K_DROP && p->kind != K_TRUNC)
			p->expect = E_FAIL_ALL;
	} else if (p->where == W_AUTH_0 || p->where == W_AUTH_H0) {
		if (p->kind == K_STALL || !p->retry)
			p->expect = E_FAIL_ALL;
	} else if (p->where == W_AUTH_HK) {
		p->expect = E_FAIL_ALL;
	} else if (p->index >= fz_init_messages(p, p->where)) {
		p->expect = E_ANY;	/* the link's: after init */
	} else if (p->kind == K_FIELD || p->kind == K_BITFLIP ||
		   p->kind == K_INJECT) {
		p->by_content = true;	/* until then, it only relayed */
	} else if (p->kind == K_REPLAY) {
		/* the copy is read as the next message */
		p->expect = fz_broken_at(p, p->where, p->index + 1);
	} else if (p->kind == K_EXTEND) {
		/* over TCP the bytes begin the next; a packet is too long */
		p->expect = fz_broken_at(p, p->where, p->index +
					 fz_tcp(p->where));
	} else if (p->kind != K_FDS) {
		p->expect = fz_broken_at(p, p->where, p->index);
	} else if (how == FDS_NONE || how == FDS_ONE || how == FDS_THREE) {
		p->expect = E_FAIL_ALL;		/* not two: refused */
	} else if (!(p->where == W_HF2K && p->index == p->k) &&
		   !(how == FDS_PREV && (p->where == W_HK2F || !p->index))) {
		/* but rank k's own, closed unread; none before: the same */
		p->expect = E_FAIL_ALL;
	}
}

/* An index drawn by the weights @w[0..n). */
static int fz_pick(struct fz_rng *r, const int *w, int n)
{
	int total = 0, pick, i;

	for (i = 0; i < n; i++)
		total += w[i];
	pick = (int)fz_below(r, (uint32_t)total);
	for (i = 0; pick >= w[i]; i++)
		pick -= w[i];
	return i;
}

void fz_make_plan(uint64_t seed, uint64_t run, int timeout_ms,
		  struct fz_plan *p)
{
	static const int where_weight[W_COUNT] = {
		[W_NONE] = 6, [W_AUTH_K] = 6, [W_AUTH_0] = 8, [W_AUTH_HK] = 4,
		[W_AUTH_H0] = 6, [W_K2R] = 18, [W_R2K] = 24, [W_HK2F] = 10,
		[W_HF2K] = 18,
	};
	int kind_weight[K_COUNT] = {
		[K_FIELD] = 22, [K_BITFLIP] = 14, [K_BADTAG] = 8,
		[K_SKIPSEQ] = 5, [K_REPLAY] = 6, [K_TRUNC] = 7,
		[K_EXTEND] = 6, [K_WRONGLEN] = 6, [K_DROP] = 8,
		[K_STALL] = 4, [K_INJECT] = 8, [K_FDS] = 20,
	};
	static const enum fz_kind auth_kinds[] = {
		K_BITFLIP, K_BITFLIP, K_TRUNC, K_DROP, K_STALL,
	};
	struct fz_rng r = { fz_mix(seed ^ fz_mix(run + 1)) };
	bool handoff;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->run = run;
	p->nranks = 2 + (int)fz_below(&r, FZ_MAX_RANKS - 1);
	p->attack = fz_chance(&r, 40) ? FZ_OUTSIDE : FZ_MEMBER;
	p->sub = fz_next(&r);
	p->timeout_ms = 3 * timeout_ms;
	p->cover = getenv("FUZZ_BOOTSTRAP_COVER") != NULL;
	if (p->attack == FZ_OUTSIDE)
		return;
	p->k = 1 + (int)fz_below(&r, (uint32_t)p->nranks - 1);
	p->where = fz_pick(&r, where_weight, W_COUNT);
	p->retry = fz_chance(&r, 80);
	p->proof_bits = fz_chance(&r, 50);
	p->then_stall = fz_chance(&r, 50);
	p->fds = fz_below(&r, FDS_COUNT);
	handoff = p->where == W_HK2F || p->where == W_HF2K;
	if (p->where >= W_AUTH_K && p->where <= W_AUTH_H0) {
		p->kind = auth_kinds[fz_below(&r, sizeof(auth_kinds) /
						  sizeof(auth_kinds[0]))];
	} else if (p->where != W_NONE) {
		/* one past the init's TCP messages: the link's first */
		p->index = (int)fz_below(&r, (uint32_t)fz_init_messages(p,
					 p->where) + !handoff);
		kind_weight[K_FDS] *= handoff;
		p->kind = fz_pick(&r, kind_weight, K_COUNT);
	}
	if (fz_chance(&r, 5)) {
		/* rank k pushed out after proving, before its hello */
		p->where = W_K2R;
		p->index = 0;
		p->kind = K_DROP;
		p->pushed_out = true;
	}
	fz_expect(p);
	/* Runs that must fail may wait out the timeout: a short one. */
	if (p->expect >= E_FAIL_K && !p->by_content)
		p->timeout_ms = timeout_ms;
}

void fz_describe(const struct fz_plan *p, char *buf, size_t len)
{
	static const char *const kind[K_COUNT] = {
		"field", "bitflip", "badtag", "skipseq", "replay", "trunc",
		"extend", "wronglen", "drop", "stall", "inject", "fds",
	};
	static const char *const fds[FDS_COUNT] = {
		"none", "one", "three", "/dev/null", "memfd", "pipe",
		"swapped", "same twice", "previous message's",
	};
	const int i = p->index, n = p->nranks;
	size_t at;

	if (p->attack == FZ_OUTSIDE) {
		snprintf(buf, len, "outside, %d ranks; expect success", n);
		return;
	}
	at = (size_t)snprintf(buf, len, "member before rank %d of %d, %s",
			      p->k, n, fz_where_name[p->where]);
#define FZ_ADD(...) (at += (size_t)snprintf(buf + at, at < len ? len - at : 0, \
					    __VA_ARGS__))
	if (p->where == W_HK2F || p->where == W_HF2K)
		FZ_ADD("[%d] (rank %d's areas)", i,
		       p->where == W_HK2F ? p->k : i);
	else if (i >= fz_init_messages(p, p->where) && p->where >= W_K2R)
		FZ_ADD("[%d] (link)", i);
	else if (p->where == W_K2R)
		FZ_ADD("[%d] (%s)", i, i == 0 ? "hello" : i == 1 ?
		       "area ids" : "verdict");
	else if (p->where == W_R2K && i < n)
		FZ_ADD("[%d] (rank %d's entry)", i, i);
	else if (p->where == W_R2K)
		FZ_ADD("[%d] (%s)", i, i == n ? "all area ids" : "verdict");
	if (p->where != W_NONE)
		FZ_ADD(" %s", kind[p->kind]);
	if (p->kind == K_FDS)
		FZ_ADD(" (%s)", fds[p->fds]);
	if (p->pushed_out)
		FZ_ADD(" (pushed out)");
	if ((p->where == W_AUTH_0 || p->where == W_AUTH_H0) &&
	    p->kind != K_STALL)
		FZ_ADD(p->retry ? ", then properly" : ", no retry");
	if (p->cover)
		FZ_ADD(", covered");
	FZ_ADD("; expect %s", p->by_content ? "by what changes" :
	       fz_expect_name(p->expect));
#undef FZ_ADD
}

/* ---- what a change to a message does ---- */

enum fz_msg fz_msg_of(const struct fz_plan *p, enum fz_where where,
		      int index, size_t len)
{
	if (!fz_tcp(where))
		return len == sizeof(struct fz_handoff) ? M_HANDOFF : M_OTHER;
	if (index >= fz_init_messages(p, where) ||
	    len == sizeof(struct fz_link))
		return M_LINK;
	if (len == sizeof(struct fz_hello))
		return M_HELLO;
	if (where == W_K2R)
		return len == sizeof(struct fz_area_ids) ? M_IDS :
		       len == sizeof(struct fz_verdict) ? M_VERDICT_K : M_OTHER;
	return len == (size_t)p->nranks * sizeof(struct fz_area_ids) ?
	       M_ALL_IDS : len == sizeof(int32_t) ? M_VERDICT_0 : M_OTHER;
}

#define FZ_FIELD(type, name, member, elem, cls) \
	{ name, offsetof(type, member), sizeof(((type *)0)->member), elem, cls }
#define H(name, member, elem, cls) \
	FZ_FIELD(struct fz_hello, name, member, elem, cls)

static const struct fz_field fz_hello_fields[] = {
	H("magic", magic, 1, C_HEADER), H("rank", rank, 4, C_HEADER),
	H("nranks", nranks, 4, C_HEADER), H("verdict", verdict, 4, C_VERDICT),
	H("reserved", reserved, 4, C_RESERVED),
	H("fabric_id", info.node.fabric_id, 4, C_INFO),
	H("port_count", info.node.port_count, 4, C_INFO),
	H("neighbour", info.node.neighbour, 4, C_INFO),
	H("latency_ns", info.node.latency_ns, 4, C_INFO),
	H("bandwidth", info.node.bandwidth, 8, C_INFO),
	H("algo", info.node.algo, 4, C_INFO), H("host", info.host, 1, C_INFO),
	H("handoff name", info.handoff, 1, C_INFO),
};

static const struct fz_field fz_ids_fields[] = {
	FZ_FIELD(struct fz_area_ids, "dev", dev, 8, C_IDS),
	FZ_FIELD(struct fz_area_ids, "ino", ino, 8, C_IDS),
};

static const struct fz_field fz_all_ids_fields[FZ_MAX_RANKS] = {
	{ "rank 0's ids", 0, 32, 8, C_IDS },
	{ "rank 1's ids", 32, 32, 8, C_IDS },
	{ "rank 2's ids", 64, 32, 8, C_IDS },
};

static const struct fz_field fz_verdict_fields[] = {
	FZ_FIELD(struct fz_verdict, "status", status, 4, C_STATUS),
	FZ_FIELD(struct fz_verdict, "reserved", reserved, 4, C_RESERVED),
	FZ_FIELD(struct fz_verdict, "table digest", table, 1, C_DIGEST),
};

static const struct fz_field fz_handoff_fields[] = {
	FZ_FIELD(struct fz_handoff, "magic", magic, 1, C_HEADER),
	FZ_FIELD(struct fz_handoff, "rank", rank, 4, C_HEADER),
	FZ_FIELD(struct fz_handoff, "nranks", nranks, 4, C_HEADER),
};

static const struct fz_field fz_link_fields[] = {
	FZ_FIELD(struct fz_link, "magic", magic, 1, C_HEADER),
	FZ_FIELD(struct fz_link, "kind", kind, 4, C_HEADER),
	FZ_FIELD(struct fz_link, "rank", rank, 4, C_HEADER),
};

const struct fz_field *fz_fields(enum fz_msg m, int nranks, size_t *n)
{
	static const struct {
		const struct fz_field *f;
		size_t n;
	} table[] = {
#define T(t) { t, sizeof(t) / sizeof(t[0]) }
		[M_HELLO] = T(fz_hello_fields), [M_IDS] = T(fz_ids_fields),
		[M_ALL_IDS] = T(fz_all_ids_fields),
		[M_VERDICT_K] = T(fz_verdict_fields),
		[M_VERDICT_0] = { fz_verdict_fields, 1 },
		[M_HANDOFF] = T(fz_handoff_fields), [M_LINK] = T(fz_link_fields),
		[M_OTHER] = { NULL, 0 },
#undef T
	};

	*n = m == M_ALL_IDS ? (size_t)nranks : table[m].n;
	return table[m].f;
}

/* What changing field @f of message @m (at @index of @where) does. */
static enum fz_expect fz_judge_field(const struct fz_plan *p,
				     enum fz_where where, int index,
				     enum fz_msg m, const struct fz_field *f,
				     const uint8_t *got)
{
	struct fz_hello h;

	switch (f->cls) {
	case C_VERDICT:
		/* rank 0 reads a joiner's only to check it is a status */
		memcpy(&h, got, sizeof(h));
		return where == W_K2R && h.verdict >= TERN_SUCCESS &&
		       h.verdict <= COLL_STATUS_LAST ? E_SUCCESS : E_FAIL_ALL;
	case C_RESERVED:
		return E_SUCCESS;
	case C_INFO:
		/* rank k keeps its own entry, once it fits */
		memcpy(&h, got, sizeof(h));
		return where == W_R2K && index == p->k &&
		       coll_node_fits(&h.info.node) ? E_SUCCESS : E_FAIL_ALL;
	case C_STATUS:
		return m == M_VERDICT_0 ? E_FAIL_K : E_FAIL_ALL;
	case C_IDS:
		/* a rank checks every rank's ids but its own */
		return m == M_ALL_IDS && f->at / sizeof(struct fz_area_ids) ==
		       (size_t)p->k ? E_SUCCESS : E_FAIL_ALL;
	default:	/* C_HEADER, C_DIGEST */
		return E_FAIL_ALL;
	}
}

enum fz_expect fz_judge_change(const struct fz_plan *p, enum fz_where where,
			       int index, const void *sent, const void *got,
			       size_t len, char *what, size_t wlen)
{
	const enum fz_msg m = fz_msg_of(p, where, index, len);
	const uint8_t *a = sent, *b = got;
	enum fz_expect e = E_SUCCESS, fe;
	size_t nf, w = 0;
	const struct fz_field *f = fz_fields(m, p->nranks, &nf);

	what[0] = 0;
	for (size_t i = 0; i < nf; i++) {
		if (!memcmp(a + f[i].at, b + f[i].at, f[i].size))
			continue;
		fe = fz_judge_field(p, where, index, m, &f[i], b);
		e = fe > e ? fe : e;
		w += (size_t)snprintf(what + w, w < wlen ? wlen - w : 0,
				      "%s%s", w ? ", " : "", f[i].name);
	}
	/* Bytes in no field are padding, read by none. */
	if (!w && memcmp(a, b, len))
		snprintf(what, wlen, "padding");
	/* Of a link message, or one unknown, no claim. */
	return m == M_LINK || m == M_OTHER ? E_ANY : e;
}
