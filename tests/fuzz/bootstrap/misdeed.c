// SPDX-License-Identifier: MIT
/*
 * What the member does wrong, once a run, where the plan says: in its own
 * handshakes (a proof spoiled, cut, never sent, a stall; towards rank 0
 * then done again properly), or to one message it relays, sealed as an
 * honest member would seal it (a field at or past its bounds, bits
 * flipped, a message of its own first) or not (a bad tag, a sequence
 * number skipped, the message twice, cut, grown, sealed at another
 * length), the fds of a hand-off packet, or its own death or stall. A
 * change it seals properly is judged by what it changed (plan.c), and the
 * verdict reported as "expect=N" for the harness.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "member.h"

/*
 * The plan's misdeed to @len bytes of a handshake, @buf, due to go to
 * @fd: true, to send them, when only bits of the first @flip are flipped;
 * false when they were cut short or not sent (the caller closes); or the
 * member stalls there.
 */
static bool fz_spoil(struct fz_proxy *p, int fd, void *buf, size_t len,
		     size_t flip, const char *what)
{
	size_t cut = fz_below(&p->rng, (uint32_t)len);

	switch (p->plan.kind) {
	case K_BITFLIP:
		fz_flip(&p->rng, buf, flip, 1 + (int)fz_below(&p->rng, 3));
		fz_report("applied: %s with bits flipped", what);
		return true;
	case K_TRUNC:
		fz_report("applied: %s cut at %zu, closed", what, cut);
		coll_send_all(fd, buf, cut);
		return false;
	case K_DROP:
		fz_report("applied: %s never sent, closed", what);
		return false;
	default:
		fz_report("applied: %s never sent: the member stalls", what);
		fz_stall(p);
	}
}

/*
 * The proxy as the side that proves first (to rank k, over TCP or the
 * hand-off), misbehaving if the plan says so: 0 and @ch, or -1 (the
 * connection is the caller's to close).
 */
int fz_lead(struct fz_proxy *p, int fd, const uint8_t *key,
	    uint32_t purpose, struct coll_chan *ch, enum fz_where where)
{
	struct coll_auth_state st;
	struct coll_auth_hello hello;
	struct coll_auth_reply reply;
	uint8_t proof[COLL_MAC_BYTES];

	coll_auth_greet(&st, purpose);
	if (!coll_recv_all(fd, &hello, sizeof(hello), p->end) ||
	    !coll_auth_answer(&st, key, &hello))
		return -1;
	reply = st.reply;
	if (fz_hit(p, where, 0) &&
	    !fz_spoil(p, fd, &reply, sizeof(reply), sizeof(reply),
		      "our proof to rank k"))
		return -1;
	if (!coll_send_all(fd, &reply, sizeof(reply)) ||
	    !coll_recv_all(fd, proof, sizeof(proof), p->end))
		return -1;
	return coll_auth_check_join(&st, key, proof, fd, ch) ? 0 : -1;
}

/*
 * The proxy as the joiner (to rank 0), once, @spoil-ing its challenge
 * (mostly the header: magic, version, purpose) or its proof: 0 and @ch,
 * or -1.
 */
static int fz_join_once(struct fz_proxy *p, int fd, uint32_t purpose,
			struct coll_chan *ch, bool spoil)
{
	const bool proof_bits = spoil && p->plan.kind == K_BITFLIP &&
				p->plan.proof_bits;
	struct coll_auth_state st;
	struct coll_auth_reply reply;
	struct fz_hello h = { .rank = p->plan.k, .nranks = p->plan.nranks };

	coll_auth_greet(&st, purpose);
	if (spoil && !proof_bits &&
	    !fz_spoil(p, fd, &st.hello, sizeof(st.hello),
		      fz_chance(&p->rng, 70) ? 16 : sizeof(st.hello),
		      "our challenge to rank 0"))
		return -1;
	if (!coll_send_all(fd, &st.hello, sizeof(st.hello)) ||
	    !coll_recv_all(fd, &reply, sizeof(reply), p->end) ||
	    !coll_auth_check_lead(&st, p->key, &reply))
		return -1;
	if (proof_bits)
		fz_spoil(p, fd, st.proof, sizeof(st.proof), sizeof(st.proof),
			 "our proof to rank 0");
	if (!coll_send_all(fd, st.proof, sizeof(st.proof)) ||
	    !coll_auth_chan_join(&st, p->key, fd, ch))
		return -1;
	if (!proof_bits)
		return 0;
	/* rank 0 judges a proof with the hello after it */
	memcpy(h.magic, FZ_HELLO_MAGIC, sizeof(h.magic));
	if (purpose == COLL_AUTH_BOOTSTRAP)
		coll_chan_send(ch, &h, sizeof(h));
	fz_sleep_ms(5);
	return -1;
}

/* Joins rank 0, over TCP or its hand-off, spoiling it first if planned. */
int fz_join(struct fz_proxy *p, bool handoff, struct coll_chan *ch)
{
	const uint32_t purpose = handoff ? COLL_AUTH_HANDOFF :
				 COLL_AUTH_BOOTSTRAP;
	const bool spoil = fz_hit(p, handoff ? W_AUTH_H0 : W_AUTH_0, 0);
	int fd;

	for (int i = !spoil; i < 2; i++) {
		fd = handoff ? fz_connect_unix(p->ho_real, p->end) :
		     fz_connect_tcp(&p->cid, p->end);
		if (fd < 0)
			return -1;
		/* a spoiled one that got through is not used */
		if (!fz_join_once(p, fd, purpose, ch, !i) && i)
			return 0;
		/*
		 * Over TCP a spoiled connection may stay, as rank 0 reads
		 * all at once; a hand-off's first rank takes one at a time.
		 */
		if (i || handoff || p->plan.kind != K_TRUNC)
			close(fd);
		ch->fd = -1;
		if (!i && !p->plan.retry) {
			fz_report("no retry: the member gives up");
			return -1;
		}
	}
	return -1;
}

/* Sets one field of @body, a message @m, to a value at or past its bounds. */
static void fz_mutate(struct fz_proxy *p, enum fz_msg m, uint8_t *body,
		      size_t len)
{
	const uint64_t wide[] = { 0, 1, UINT32_MAX, UINT64_MAX,
				  fz_next(&p->rng) };
	struct fz_rng *r = &p->rng;
	uint8_t before[FZ_MSG_MAX];
	size_t nf, at;
	const struct fz_field *f = fz_fields(m, p->plan.nranks, &nf), *fl;

	memcpy(before, body, len);
	/* The value it had may come up: another try. */
	for (int i = 0; i < 8 && !memcmp(before, body, len); i++) {
		if (!nf) {
			at = fz_below(r, (uint32_t)len);
			fz_fill(r, body + at, 1 + fz_below(r, (uint32_t)(len - at)));
			continue;
		}
		fl = &f[fz_below(r, (uint32_t)nf)];
		at = fl->at + fl->elem * fz_below(r, (uint32_t)(fl->size /
							      fl->elem));
		if (fl->elem == 1) {
			body[at] ^= (uint8_t)(1 + fz_below(r, 255));
		} else if (fl->elem == 4) {
			int32_t v = fz_edge_int(r, p->plan.nranks);

			memcpy(body + at, &v, sizeof(v));
		} else {
			memcpy(body + at, &wide[fz_below(r, 5)], sizeof(wide[0]));
		}
	}
}

/* Fds of no buffer, or the packet's own rearranged, per the plan. */
static int fz_bad_fds(struct fz_proxy *p, const int *in, int nin, int *out)
{
	const int a = in[0], b = nin > 1 ? in[1] : in[0];
	int pipefd[2], n = 0;

	switch (p->plan.fds) {
	case FDS_NONE:
		break;
	case FDS_ONE:
		out[n++] = dup(a);
		break;
	case FDS_THREE:
		out[n++] = dup(a);
		out[n++] = dup(b);
		out[n++] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	case FDS_DEVNULL:
		out[n++] = open("/dev/null", O_RDWR | O_CLOEXEC);
		out[n++] = dup(b);
		break;
	case FDS_MEMFD:
		out[n++] = dup(a);
		out[n] = memfd_create("fuzz", MFD_CLOEXEC);
		if (out[n] >= 0 && ftruncate(out[n], 4096))
			(void)0;
		n++;
		break;
	case FDS_PIPE:
		if (pipe2(pipefd, O_CLOEXEC))
			break;
		out[n++] = pipefd[0];
		out[n++] = pipefd[1];
		break;
	case FDS_SWAP:
		out[n++] = dup(b);
		out[n++] = dup(a);
		break;
	case FDS_SAME:
		out[n++] = dup(a);
		out[n++] = dup(a);
		break;
	default:	/* FDS_PREV: another rank's */
		out[n++] = dup(p->prev_fds[0] >= 0 ? p->prev_fds[0] : a);
		out[n++] = dup(p->prev_fds[1] >= 0 ? p->prev_fds[1] : b);
		break;
	}
	return n;
}

/* Sends @n bytes of @wire: a packet with @nfds fds, or TCP (@nfds < 0). */
static void fz_emit(struct coll_chan *to, const uint8_t *wire, size_t n,
		    const int *fds, int nfds)
{
	if (nfds >= 0)
		fz_sendmsg(to->fd, wire, n, fds, nfds);
	else
		coll_send_all(to->fd, wire, n);
}

/*
 * Message @index of @where, @body of @len bytes, to @to as the plan's
 * misdeed; @fds and @nfds a hand-off packet's, -1 over TCP.
 */
void fz_misdeed(struct fz_proxy *p, enum fz_where where, int index,
		uint8_t *body, size_t len, struct coll_chan *to,
		const int *fds, int nfds)
{
	static uint8_t wire[4 * FZ_MSG_MAX];
	const struct fz_plan *plan = &p->plan;
	const enum fz_msg m = fz_msg_of(plan, where, index, len);
	const bool packet = nfds >= 0;
	struct fz_rng *r = &p->rng;
	uint8_t before[FZ_MSG_MAX], junk[FZ_MSG_MAX], tag[COLL_MAC_BYTES];
	char what[256] = "", at[32];
	enum fz_expect e = E_SUCCESS, next;
	size_t n, other = len;
	int bad[3], nbad;

	snprintf(at, sizeof(at), "%s[%d]", fz_where_str(where), index);
	memcpy(before, body, len);
	switch (plan->kind) {
	case K_FIELD:
	case K_BITFLIP:
		if (plan->kind == K_FIELD)
			fz_mutate(p, m, body, len);
		else
			fz_flip(r, body, len, 1 + (int)fz_below(r, 4));
		e = fz_judge_change(plan, where, index, before, body, len,
				    what, sizeof(what));
		fz_report("applied: %s (%zu bytes) %s: %s; expect=%d (%s)", at,
			  len, plan->kind == K_FIELD ? "a field set" :
			  "bits flipped", what, e, fz_expect_name(e));
		break;
	case K_BADTAG:
		n = fz_seal(to, body, len, wire);
		if (fz_chance(r, 50))	/* in the tag, or what it covers */
			fz_flip(r, wire + len, COLL_MAC_BYTES, 1);
		else
			fz_flip(r, wire, len, 1);
		fz_report("applied: %s a bit flipped after sealing", at);
		fz_emit(to, wire, n, fds, nfds);
		return;
	case K_SKIPSEQ:
		coll_chan_seal(to, body, len, tag);
		fz_report("applied: %s sealed one number ahead", at);
		break;
	case K_REPLAY:
		n = fz_seal(to, body, len, wire);
		fz_report("applied: %s sent twice", at);
		fz_emit(to, wire, n, fds, nfds);
		fz_emit(to, wire, n, fds, nfds);
		return;
	case K_TRUNC:
		n = fz_below(r, (uint32_t)fz_seal(to, body, len, wire));
		fz_report("applied: %s cut at %zu bytes, then the member %s", at,
			  n, plan->then_stall ? "stalls" : "dies");
		fz_emit(to, wire, n, fds, nfds);
		if (plan->then_stall)
			fz_stall(p);
		fz_die();
	case K_EXTEND:
		n = fz_seal(to, body, len, wire);
		other = 1 + fz_below(r, 64);
		fz_fill(r, wire + n, other);
		fz_report("applied: %s %zu random bytes after it", at, other);
		fz_emit(to, wire, n + other, fds, nfds);
		return;
	case K_WRONGLEN:
		while (other == len)
			other = fz_chance(r, 50) ? fz_below(r, (uint32_t)len) :
				len + 1 + fz_below(r, 64);
		if (other > len)
			fz_fill(r, body + len, other - len);
		fz_report("applied: %s sealed at %zu bytes, not %zu", at, other,
			  len);
		fz_emit(to, wire, fz_seal(to, body, other, wire), fds, nfds);
		return;
	case K_DROP:
		if (plan->pushed_out) {
			/* as a flood would: rank 0 never had the hello */
			fz_report("applied: %s not forwarded, both connections closed; rank %d served when it comes again",
				  at, plan->k);
			fz_close_tcp(p);
			p->again = true;
			return;
		}
		fz_report("applied: the member dies at %s", at);
		fz_die();
	case K_STALL:
		fz_report("applied: the member stalls at %s", at);
		fz_stall(p);
	case K_INJECT:
		/* a copy changed, or bytes of any length, sealed as ours */
		if (fz_chance(r, 50))
			other = 1 + fz_below(r, packet ? 64 : 600);
		memcpy(junk, body, len);
		if (other == len && fz_chance(r, 60))
			fz_mutate(p, m, junk, len);
		else
			fz_fill(r, junk, other);
		e = other == len ? fz_judge_change(plan, where, index, body,
						   junk, len, what,
						   sizeof(what)) :
		    fz_broken_at(plan, where, index);
		/* ours is read in its place; it is read as the next */
		next = fz_broken_at(plan, where, index + 1);
		e = next > e ? next : e;
		fz_report("applied: %s after a message of ours (%zu bytes%s%s); expect=%d (%s)",
			  at, other, what[0] ? ": " : "", what, e,
			  fz_expect_name(e));
		fz_emit(to, wire, fz_seal(to, junk, other, wire), fds, nfds);
		break;
	default:	/* K_FDS */
		nbad = fz_bad_fds(p, fds, nfds, bad);
		fz_note_handed(p, where, index, bad, nbad);
		fz_report("applied: %s with %d other fds", at, nbad);
		fz_emit(to, wire, fz_seal(to, body, len, wire), bad, nbad);
		for (int i = 0; i < nbad; i++)
			if (bad[i] >= 0)
				close(bad[i]);
		return;
	}
	fz_emit(to, wire, fz_seal(to, body, len, wire), fds, nfds);
}

/*
 * While the ranks all-reduce: the member's end, or a link message of its
 * own (a failure, a goodbye, kinds and ranks past their bounds) as the
 * plan's misdeed would send it.
 */
void fz_link_event(struct fz_proxy *p)
{
	const int32_t kinds[] = { 1, 2, 0, 3, -1, INT32_MAX };
	struct fz_rng *r = &p->rng;
	struct fz_link msg = {
		.kind = fz_chance(r, 60) ? 1 : kinds[fz_below(r, 6)],
		.rank = fz_chance(r, 60) ?
			(int32_t)fz_below(r, (uint32_t)p->plan.nranks) :
			fz_edge_int(r, p->plan.nranks),
	};

	p->link_at = 0;
	memcpy(msg.magic, FZ_LINK_MAGIC, sizeof(msg.magic));
	if (p->link_to->fd < 0 || !fz_hit(p, p->plan.where, p->plan.index))
		return;
	fz_report("during the all-reduce, a link message of ours: kind %d, rank %d",
		  msg.kind, msg.rank);
	fz_misdeed(p, p->plan.where, p->plan.index, (uint8_t *)&msg,
		   sizeof(msg), p->link_to, NULL, -1);
}
