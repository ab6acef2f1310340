// SPDX-License-Identifier: MIT
/*
 * The member (--proxy): a process that holds the secret and sits between
 * rank k and rank 0. Rank k is given an id that names the proxy's port
 * (its key differs with the port), so the proxy proves itself to rank k
 * under that key and to rank 0 under the real one, and relays every
 * message, its MAC checked and sealed again for the other side: the TCP
 * channel and, as it puts its own hand-off socket's name in rank 0's
 * entry of the table, the hand-off of the areas' fds. Rank k's digest of
 * the table then gives that name away, so the proxy corrects the digest
 * for it, and for it alone: what it changes on purpose (misdeed.c) stays
 * for the ranks to find.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "member.h"

void fz_report(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fz_write(10, line, strlen(line));
	fprintf(stderr, "proxy: %s", line);
}

/* Whether the plan's misdeed is here, once. */
bool fz_hit(struct fz_proxy *p, enum fz_where where, int index)
{
	if (p->applied || p->plan.where != where || p->plan.index != index)
		return false;
	p->applied = true;
	return true;
}

/* A member that stopped: its connections open, saying nothing. */
void fz_stall(struct fz_proxy *p)
{
	while (fz_now_ms() < p->end)
		fz_sleep_ms(20);
	_exit(0);
}

/* A member that died: every connection closes at once. */
void fz_die(void)
{
	_exit(0);
}

size_t fz_seal(struct coll_chan *ch, const void *body, size_t len,
	       uint8_t *wire)
{
	memmove(wire, body, len);
	coll_chan_seal(ch, wire, len, wire + len);
	return len + COLL_MAC_BYTES;
}

/* Everything TCP closed: rank k and rank 0 see the other go. */
void fz_close_tcp(struct fz_proxy *p)
{
	coll_chan_close(&p->tk.ch);
	coll_chan_close(&p->t0.ch);
}

static void fz_close_handoff(struct fz_proxy *p)
{
	coll_chan_close(&p->hk);
	coll_chan_close(&p->h0);
	if (p->ho_listen >= 0)
		close(p->ho_listen);
	p->ho_listen = -1;
}

/* bootstrap.c's digest of a table, field by field. */
static void fz_table_digest(const struct coll_rank_info *info, int n,
			    uint8_t out[COLL_MAC_BYTES])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	for (int r = 0; r < n; r++) {
		const struct coll_node *nd = &info[r].node;

		EVP_DigestUpdate(md, &nd->fabric_id, sizeof(nd->fabric_id));
		EVP_DigestUpdate(md, &nd->port_count, sizeof(nd->port_count));
		EVP_DigestUpdate(md, nd->neighbour, sizeof(nd->neighbour));
		EVP_DigestUpdate(md, nd->latency_ns, sizeof(nd->latency_ns));
		EVP_DigestUpdate(md, nd->bandwidth, sizeof(nd->bandwidth));
		EVP_DigestUpdate(md, &nd->algo, sizeof(nd->algo));
		EVP_DigestUpdate(md, info[r].host, sizeof(info[r].host));
		EVP_DigestUpdate(md, info[r].handoff, sizeof(info[r].handoff));
	}
	EVP_DigestFinal_ex(md, out, NULL);
	EVP_MD_CTX_free(md);
}

/*
 * Rank k's verdict: where its digest is of rank 0's table with our name
 * in it, rank 0's own digest instead. One that differs otherwise (a
 * table we changed) goes as it is, unless we --cover that too.
 */
static void fz_correct_digest(struct fz_proxy *p, uint8_t *body)
{
	struct coll_rank_info seen[FZ_MAX_RANKS];
	struct fz_verdict v;
	uint8_t want[COLL_MAC_BYTES];

	if (!p->ho_renamed && !p->plan.cover)
		return;
	memcpy(&v, body, sizeof(v));
	memcpy(seen, p->table, sizeof(seen));
	memcpy(seen[0].handoff, p->ho_ours, sizeof(seen[0].handoff));
	fz_table_digest(seen, p->plan.nranks, want);
	if (!p->plan.cover && memcmp(v.table, want, sizeof(want))) {
		fz_report("rank %d's digest is not of rank 0's table: left as it is",
			  p->plan.k);
		return;
	}
	fz_table_digest(p->table, p->plan.nranks, v.table);
	memcpy(body, &v, sizeof(v));
}

/* --cover: the ids of what we handed rank k, whatever it was. */
void fz_note_handed(struct fz_proxy *p, enum fz_where where, int index,
		    const int *fds, int nfds)
{
	struct fz_area_ids *ids;
	struct stat st;

	if (where != W_HF2K || index >= p->plan.nranks)
		return;
	ids = &p->handed[index];
	memset(ids, 0, sizeof(*ids));
	for (int i = 0; i < 2 && i < nfds; i++) {
		if (fds[i] >= 0 && fstat(fds[i], &st) == 0) {
			ids->dev[i] = st.st_dev;
			ids->ino[i] = st.st_ino;
		}
	}
}

/* Rank 0's own entry: our hand-off socket's name in place of its. */
static void fz_take_handoff(struct fz_proxy *p, uint8_t *body)
{
	struct sockaddr_un addr;
	struct fz_hello h;
	socklen_t alen;

	memcpy(&h, body, sizeof(h));
	memcpy(p->ho_real, h.info.handoff, sizeof(p->ho_real));
	if (getrandom(p->ho_ours, sizeof(p->ho_ours), 0) !=
	    (ssize_t)sizeof(p->ho_ours))
		return;
	alen = coll_handoff_address(p->ho_ours, &addr);
	p->ho_listen = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (p->ho_listen < 0 ||
	    bind(p->ho_listen, (struct sockaddr *)&addr, alen) ||
	    listen(p->ho_listen, 4)) {
		fz_report("drift: cannot bind a hand-off socket: %s",
			  strerror(errno));
		return;
	}
	memcpy(h.info.handoff, p->ho_ours, sizeof(h.info.handoff));
	memcpy(body, &h, sizeof(h));
	p->ho_renamed = true;
}

/* Relays a whole TCP message of @where, or does the plan's misdeed. */
static void fz_tcp_forward(struct fz_proxy *p, enum fz_where where,
			   uint8_t *body, size_t len, struct coll_chan *to)
{
	const int index = p->count[where]++;
	const enum fz_msg m = fz_msg_of(&p->plan, where, index, len);
	static uint8_t wire[FZ_MSG_MAX + COLL_MAC_BYTES];
	struct fz_hello h = { .rank = 0 };

	if (m == M_HELLO)
		memcpy(&h, body, sizeof(h));
	if ((index == 0 && m != M_HELLO) || m == M_OTHER ||
	    (m == M_HELLO && memcmp(h.magic, FZ_HELLO_MAGIC, 8)))
		fz_report("drift: %s message %d is %zu bytes, none this fuzzer knows there: update wire.h",
			  where == W_K2R ? "k->0" : "0->k", index, len);
	if (where == W_R2K && m == M_HELLO && index < p->plan.nranks) {
		p->table[index] = h.info;
		if (index == 0)
			fz_take_handoff(p, body);
	}
	if (where == W_K2R && m == M_VERDICT_K)
		fz_correct_digest(p, body);
	/* --cover: the ids of every rank but k's as what we handed k. */
	for (int q = 0; p->plan.cover && where == W_R2K && m == M_ALL_IDS &&
	     q < p->plan.nranks; q++)
		if (q != p->plan.k)
			memcpy(body + q * sizeof(p->handed[q]), &p->handed[q],
			       sizeof(p->handed[q]));
	if (fz_hit(p, where, index)) {
		fz_misdeed(p, where, index, body, len, to, NULL, -1);
		return;
	}
	coll_send_all(to->fd, wire, fz_seal(to, body, len, wire));
	/*
	 * The init's last message of the direction has gone: a link message
	 * of ours (or the member's end) comes while the ranks all-reduce,
	 * rather than at their goodbye.
	 */
	if (p->plan.where == where && p->plan.index == index + 1 &&
	    p->plan.index == fz_init_messages(&p->plan, where) &&
	    (p->plan.kind == K_INJECT || p->plan.kind == K_BADTAG ||
	     p->plan.kind == K_DROP || p->plan.kind == K_STALL)) {
		p->link_at = fz_now_ms() + fz_below(&p->rng, 30);
		p->link_to = to;
	}
}

/* The length of the first message @s holds whole, its MAC checked. */
static bool fz_frame(const struct fz_proxy *p, struct fz_stream *s,
		     size_t *len)
{
	const size_t cand[] = {
		sizeof(struct fz_hello), sizeof(struct fz_area_ids),
		p->plan.nranks * sizeof(struct fz_area_ids),
		sizeof(struct fz_verdict), sizeof(int32_t),
		sizeof(struct fz_link),
	};

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		if (cand[i] + COLL_MAC_BYTES <= s->got &&
		    coll_chan_open(&s->ch, s->buf, cand[i], s->buf + cand[i])) {
			*len = cand[i];
			return true;
		}
	}
	return false;
}

/* Reads what @from sent and forwards each whole message to @to. */
static void fz_tcp_relay(struct fz_proxy *p, enum fz_where where,
			 struct fz_stream *from, struct fz_stream *to)
{
	ssize_t got = recv(from->ch.fd, from->buf + from->got,
			   sizeof(from->buf) - from->got, MSG_DONTWAIT);
	uint8_t body[FZ_MSG_MAX];
	size_t len;

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		fz_close_tcp(p);	/* one side went: the other sees it */
		return;
	}
	from->got += (size_t)got;
	while (from->ch.fd >= 0 && fz_frame(p, from, &len)) {
		memcpy(body, from->buf, len);
		from->got -= len + COLL_MAC_BYTES;
		memmove(from->buf, from->buf + len + COLL_MAC_BYTES, from->got);
		fz_tcp_forward(p, where, body, len, &to->ch);
	}
	if (from->got > sizeof(struct fz_hello) + COLL_MAC_BYTES) {
		fz_report("drift: %s: %zu bytes that are no message this fuzzer knows: update wire.h",
			  where == W_K2R ? "k->0" : "0->k", from->got);
		fz_close_tcp(p);
	}
}

/* Reads one hand-off packet of @from and forwards it, fds and all. */
static void fz_packet_relay(struct fz_proxy *p, enum fz_where where,
			    struct coll_chan *from, struct coll_chan *to)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} control;
	uint8_t buf[FZ_MSG_MAX], wire[FZ_MSG_MAX];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	int fds[8], nfds = 0, index;
	ssize_t got = recvmsg(from->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	size_t len;

	/*
	 * A peer that closed with a packet of ours unread (a copy we sent)
	 * resets us once; what it sent before is still there to read.
	 */
	if (got < 0 && errno == ECONNRESET)
		got = recvmsg(from->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	len = got > COLL_MAC_BYTES ? (size_t)got - COLL_MAC_BYTES : 0;
	for (struct cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c;
	     c = CMSG_NXTHDR(&mh, c)) {
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < n && nfds < 8; i++)
			memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int),
			       sizeof(int));
	}
	if (got <= COLL_MAC_BYTES || !coll_chan_open(from, buf, len, buf + len)) {
		if (got > 0)
			fz_report("drift: a hand-off packet of %zd bytes that is no message",
				  got);
		fz_close_handoff(p);
	} else {
		if (len != sizeof(struct fz_handoff) ||
		    memcmp(buf, FZ_HANDOFF_MAGIC, 8) || nfds != 2)
			fz_report("drift: a hand-off packet of %zu bytes and %d fds: update struct fz_handoff",
				  len, nfds);
		index = p->count[where]++;
		fz_note_handed(p, where, index, fds, nfds);
		if (fz_hit(p, where, index))
			fz_misdeed(p, where, index, buf, len, to, fds, nfds);
		else
			fz_sendmsg(to->fd, wire, fz_seal(to, buf, len, wire),
				   fds, nfds);
	}
	if (where == W_HF2K && nfds == 2) {
		for (int i = 0; i < 2; i++) {
			if (p->prev_fds[i] >= 0)
				close(p->prev_fds[i]);
			p->prev_fds[i] = dup(fds[i]);
		}
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

/* Rank k has come to our hand-off socket: the other leg, too. */
static void fz_handoff_accept(struct fz_proxy *p)
{
	int fd = accept4(p->ho_listen, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (p->hk.fd >= 0 ||
	    fz_lead(p, fd, p->key2, COLL_AUTH_HANDOFF, &p->hk, W_AUTH_HK)) {
		close(fd);
		return;
	}
	if (fz_join(p, true, &p->h0)) {
		fz_close_handoff(p);
		return;
	}
	close(p->ho_listen);
	p->ho_listen = -1;
}

/* Listens beside rank 0 and writes rank k's id, naming us, to fd 9. */
static bool fz_proxy_listen(struct fz_proxy *p)
{
	tern_unique_id_t id2;
	struct sockaddr_storage ss;
	socklen_t len;
	char hex[2 * sizeof(id2.internal) + 2];

	p->cid2 = p->cid;
	p->cid2.port = 0;
	len = coll_id_sockaddr(&p->cid2, &ss);
	p->tcp_listen = socket(p->cid.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->tcp_listen < 0 ||
	    bind(p->tcp_listen, (struct sockaddr *)&ss, len) ||
	    listen(p->tcp_listen, 8) ||
	    getsockname(p->tcp_listen, (struct sockaddr *)&ss, &len)) {
		fprintf(stderr, "proxy: cannot listen: %s\n", strerror(errno));
		return false;
	}
	p->cid2.port = ss.ss_family == AF_INET ?
		       ((struct sockaddr_in *)&ss)->sin_port :
		       ((struct sockaddr_in6 *)&ss)->sin6_port;
	if (coll_id_key(&p->cid, p->key) || coll_id_key(&p->cid2, p->key2))
		return false;
	memset(&id2, 0, sizeof(id2));
	memcpy(id2.internal, &p->cid2, sizeof(p->cid2));
	fz_hex(id2.internal, sizeof(id2.internal), hex);
	strcat(hex, "\n");
	if (!fz_write(9, hex, strlen(hex)))
		return false;
	close(9);
	return true;
}

/* Waits for rank k at our port, and proves itself to it. */
static bool fz_take_rank_k(struct fz_proxy *p)
{
	while (p->tk.ch.fd < 0) {
		struct pollfd pfd = { .fd = p->tcp_listen, .events = POLLIN };
		int64_t left = p->end - fz_now_ms();
		int fd;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		fd = accept4(p->tcp_listen, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0 && fz_lead(p, fd, p->key2, COLL_AUTH_BOOTSTRAP,
				       &p->tk.ch, W_AUTH_K))
			close(fd);
	}
	return true;
}

/* Relays until both TCP sides have gone. */
static void fz_relay(struct fz_proxy *p)
{
	while (p->tk.ch.fd >= 0 || p->t0.ch.fd >= 0) {
		/* poll skips a -1; a hand-off leg waits for the other */
		const bool ho = p->hk.fd >= 0 && p->h0.fd >= 0;
		struct pollfd pfd[5] = {
			{ .fd = p->tk.ch.fd, .events = POLLIN },
			{ .fd = p->t0.ch.fd, .events = POLLIN },
			{ .fd = p->ho_listen, .events = POLLIN },
			{ .fd = ho ? p->hk.fd : -1, .events = POLLIN },
			{ .fd = ho ? p->h0.fd : -1, .events = POLLIN },
		};
		int64_t left = p->end - fz_now_ms();

		if (left <= 0)
			return;
		if (p->link_at) {
			int64_t wait = p->link_at - fz_now_ms();

			if (wait <= 0) {
				fz_link_event(p);
				continue;
			}
			if (wait < left)
				left = wait;
		}
		if (poll(pfd, 5, (int)(left < 100 ? left : 100)) <= 0)
			continue;
		/* each: while what it reads has not closed in the meantime */
		if (pfd[0].revents && p->tk.ch.fd >= 0)
			fz_tcp_relay(p, W_K2R, &p->tk, &p->t0);
		if (pfd[1].revents && p->t0.ch.fd >= 0)
			fz_tcp_relay(p, W_R2K, &p->t0, &p->tk);
		if (pfd[2].revents && p->ho_listen >= 0)
			fz_handoff_accept(p);
		if (pfd[3].revents && p->hk.fd >= 0 && p->h0.fd >= 0)
			fz_packet_relay(p, W_HK2F, &p->hk, &p->h0);
		if (pfd[4].revents && p->hk.fd >= 0 && p->h0.fd >= 0)
			fz_packet_relay(p, W_HF2K, &p->h0, &p->hk);
	}
}

/*
 * --proxy IDHEX SEED RUN TIMEOUT: writes rank k's id to fd 9, reports what
 * it did on fd 10, relays until both sides have gone.
 */
int fz_proxy_main(char **argv)
{
	static struct fz_proxy proxy;
	struct fz_proxy *p = &proxy;
	tern_unique_id_t id;

	if (!fz_child_args(argv, &id, &p->plan))
		return 2;
	memcpy(&p->cid, id.internal, sizeof(p->cid));
	p->rng.s = p->plan.sub;
	p->end = fz_now_ms() + p->plan.timeout_ms + 2 * FZ_JOB_MS +
		 FZ_MARGIN_MS;
	p->tk.ch.fd = p->t0.ch.fd = p->hk.fd = p->h0.fd = p->ho_listen = -1;
	p->prev_fds[0] = p->prev_fds[1] = -1;
	if (!fz_proxy_listen(p))
		return 2;
	do {
		/* Rank k, which comes again if pushed out. */
		p->again = false;
		memset(p->count, 0, sizeof(p->count));
		p->tk.got = p->t0.got = 0;
		if (!fz_take_rank_k(p))
			return 0;
		if (fz_join(p, false, &p->t0.ch))
			fz_die();
		fz_relay(p);
	} while (p->again);
	return 0;
}
