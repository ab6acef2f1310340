// SPDX-License-Identifier: MIT
/*
 * The outsider (--outside): a process that knows rank 0's address and not
 * the secret. It connects to rank 0's port before the other ranks come,
 * and while they do, and says nothing, random bytes, a prefix of a
 * challenge, a challenge with bits flipped, a whole exchange under a key
 * of its own, rank 0's own proof reflected, a challenge byte by byte, a
 * reset, a half close, 64 KiB, two challenges; now and then a flood of
 * connections, or a churn of them. Strangers only add connections: the
 * ranks must all succeed, exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "wire.h"

#define FZ_MAX_CONNS	320

enum fz_how {
	O_SILENT, O_RANDOM, O_PREFIX, O_BADHELLO, O_WRONGKEY, O_REFLECT,
	O_SLOW, O_RST, O_HALFCLOSE, O_BIG, O_DOUBLE, O_COUNT
};

struct fz_conn {
	int fd;
	enum fz_how how;
	bool replied;
	size_t got, sent;
	int64_t next;
	struct coll_auth_state st;
	uint8_t in[sizeof(struct coll_auth_reply)];
};

struct fz_outsider {
	struct fz_rng rng;
	struct coll_id cid;
	int nranks;
	struct fz_conn conn[FZ_MAX_CONNS];
	int n;
	unsigned int opened, answered, proved, closed;
};

static volatile sig_atomic_t fz_out_stop;

static void fz_out_on_term(int sig)
{
	(void)sig;
	fz_out_stop = 1;
}

/* A behaviour: a full exchange under a false key, often. */
static enum fz_how fz_out_how(struct fz_outsider *o)
{
	if (fz_chance(&o->rng, 35))
		return fz_chance(&o->rng, 70) ? O_WRONGKEY : O_REFLECT;
	return (enum fz_how)fz_below(&o->rng, O_COUNT);
}

/* Sends without waiting: an outsider takes what goes. */
static void fz_out_send(struct fz_conn *c, const void *buf, size_t len)
{
	if (c->fd >= 0)
		(void)send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void fz_out_close(struct fz_conn *c)
{
	close(c->fd);
	c->fd = -1;
}

/* The rest of a joiner's first message, from one who has no secret. */
static void fz_out_prove(struct fz_outsider *o, struct fz_conn *c)
{
	struct {
		uint8_t proof[COLL_MAC_BYTES];
		struct fz_hello h;
		uint8_t tag[COLL_MAC_BYTES];
	} msg;
	const struct coll_auth_reply *reply = (const void *)c->in;
	uint8_t key[COLL_KEY_BYTES], more[256];
	struct coll_chan ch;
	size_t len = sizeof(msg);

	memset(&msg, 0, sizeof(msg));
	memcpy(msg.h.magic, FZ_HELLO_MAGIC, sizeof(msg.h.magic));
	/* a real rank's place, mostly */
	msg.h.rank = fz_chance(&o->rng, 80) ?
		     1 + (int32_t)fz_below(&o->rng, (uint32_t)o->nranks - 1) :
		     fz_edge_int(&o->rng, o->nranks);
	msg.h.nranks = o->nranks;
	if (fz_chance(&o->rng, 30))
		fz_fill(&o->rng, &msg.h.info, sizeof(msg.h.info));
	if (c->how == O_REFLECT) {
		/* rank 0's own proof back as ours, and as the tag */
		memcpy(msg.proof, reply->mac, sizeof(msg.proof));
		memcpy(msg.tag, reply->mac, sizeof(msg.tag));
	} else {
		/* the handshake as a rank does it, under a key of our own */
		fz_fill(&o->rng, key, sizeof(key));
		fz_fill(&o->rng, msg.proof, sizeof(msg.proof));
		if (coll_auth_check_lead(&c->st, key, reply))
			memcpy(msg.proof, c->st.proof, sizeof(msg.proof));
		coll_auth_chan_join(&c->st, key, c->fd, &ch);
		coll_chan_seal(&ch, &msg.h, sizeof(msg.h), msg.tag);
	}
	if (fz_chance(&o->rng, 20))
		len = fz_below(&o->rng, sizeof(msg));
	fz_out_send(c, &msg, len);
	if (fz_chance(&o->rng, 20)) {
		fz_fill(&o->rng, more, sizeof(more));
		fz_out_send(c, more, 1 + fz_below(&o->rng, sizeof(more)));
	}
}

/* Opens a connection that behaves as @how; false if none could be made. */
static bool fz_out_open(struct fz_outsider *o, enum fz_how how,
			int64_t deadline)
{
	static uint8_t junk[65536];
	struct timeval tv = { 0, 50000 };
	struct sockaddr_storage ss;
	socklen_t len = coll_id_sockaddr(&o->cid, &ss);
	struct linger lg = { 1, 0 };
	struct coll_auth_hello h;
	struct fz_conn *c;
	int fd;

	if (o->n == FZ_MAX_CONNS)
		return false;
	for (;;) {
		fd = socket(o->cid.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return false;
		/* a full backlog makes connect wait: not long */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&ss, len) == 0)
			break;
		close(fd);
		if (fz_now_ms() >= deadline)
			return false;
		fz_sleep_ms(3);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c = &o->conn[o->n++];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->how = how;
	o->opened++;
	coll_auth_greet(&c->st, COLL_AUTH_BOOTSTRAP);
	h = c->st.hello;
	switch (how) {
	case O_SILENT:
	case O_SLOW:
		break;
	case O_RANDOM:
		fz_fill(&o->rng, junk, 1024);
		fz_out_send(c, junk, 1 + fz_below(&o->rng, 1024));
		if (fz_chance(&o->rng, 30))
			fz_out_close(c);
		break;
	case O_PREFIX:
		fz_out_send(c, &h, 1 + fz_below(&o->rng, sizeof(h) - 1));
		break;
	case O_BADHELLO:
		fz_flip(&o->rng, &h, fz_chance(&o->rng, 70) ? 16 : sizeof(h),
			1 + (int)fz_below(&o->rng, 3));
		fz_out_send(c, &h, sizeof(h));
		break;
	case O_RST:
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		fz_out_close(c);
		break;
	case O_HALFCLOSE:
		fz_out_send(c, &h, sizeof(h));
		shutdown(c->fd, SHUT_WR);
		break;
	case O_BIG:
		fz_fill(&o->rng, junk, 4096);
		fz_out_send(c, &h, sizeof(h));
		fz_out_send(c, junk, sizeof(junk));
		break;
	case O_DOUBLE:
		fz_out_send(c, &h, sizeof(h));
		fz_out_send(c, &h, sizeof(h));
		break;
	default:	/* O_WRONGKEY, O_REFLECT: a challenge, then a proof */
		fz_out_send(c, &h, sizeof(h));
		break;
	}
	return true;
}

/* What connection @c does next: reads rank 0's answer, drips bytes. */
static void fz_out_step(struct fz_outsider *o, struct fz_conn *c,
			short revents, int64_t now)
{
	const uint8_t *hello = (const uint8_t *)&c->st.hello;
	uint8_t junk = (uint8_t)fz_next(&o->rng);

	if (c->fd < 0)
		return;
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		ssize_t got = recv(c->fd, c->in + c->got, sizeof(c->in) - c->got,
				   MSG_DONTWAIT);

		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) ||
		    c->got == sizeof(c->in)) {
			fz_out_close(c);	/* refused, as it should be */
			o->closed++;
			return;
		}
		if (got > 0)
			c->got += (size_t)got;
		if (c->got == sizeof(c->in) && !c->replied) {
			c->replied = true;
			o->answered++;
			if (c->how == O_WRONGKEY || c->how == O_REFLECT) {
				fz_out_prove(o, c);
				o->proved++;
			}
		}
	}
	if (c->how == O_SLOW && now >= c->next) {
		fz_out_send(c, c->sent < sizeof(c->st.hello) ?
			    hello + c->sent : &junk, 1);
		c->sent++;
		c->next = now + 1 + fz_below(&o->rng, 6);
	}
}

/*
 * Polls every connection for @ms (until told to stop), stepping each;
 * with @open_more opens others as it goes, with @churn one every ms,
 * closing the newest beyond @keep.
 */
static void fz_out_poll(struct fz_outsider *o, int ms, bool open_more,
			bool churn, int keep)
{
	static struct pollfd pfd[FZ_MAX_CONNS];
	const int64_t until = fz_now_ms() + ms;
	int64_t next = 0, now;

	while (!fz_out_stop && (now = fz_now_ms()) < until) {
		if (open_more && now >= next) {
			if (churn && o->n > keep && o->conn[o->n - 1].fd >= 0)
				close(o->conn[o->n - 1].fd);
			if (churn && o->n > keep)
				o->n--;
			fz_out_open(o, fz_out_how(o), now);
			next = now + (churn ? 1 : 5 + fz_below(&o->rng, 40));
		}
		for (int i = 0; i < o->n; i++)
			pfd[i] = (struct pollfd){ .fd = o->conn[i].fd,
						  .events = POLLIN };
		poll(pfd, (nfds_t)o->n, 2);
		now = fz_now_ms();
		for (int i = 0; i < o->n; i++)
			fz_out_step(o, &o->conn[i], pfd[i].revents, now);
	}
}

/*
 * --outside IDHEX SEED RUN TIMEOUT, the id without its secret: ready on
 * fd 9 once the first connections are in; SIGTERM ends it.
 */
int fz_outside_main(char **argv)
{
	static struct fz_outsider outsider;
	struct fz_outsider *o = &outsider;
	struct sigaction sa = { .sa_handler = fz_out_on_term };
	tern_unique_id_t id;
	struct fz_plan plan;
	int first;
	bool churn;

	if (!fz_child_args(argv, &id, &plan))
		return 2;
	memcpy(&o->cid, id.internal, sizeof(o->cid));
	o->nranks = plan.nranks;
	o->rng.s = plan.sub;
	for (size_t i = 0; i < sizeof(o->cid.secret); i++)
		if (o->cid.secret[i])
			return 2;	/* an outsider holds no secret */
	sigaction(SIGTERM, &sa, NULL);
	/* The first waits for rank 0 to listen. */
	first = 1 + (int)fz_below(&o->rng, 6);
	for (int i = 0; i < first; i++)
		if (!fz_out_open(o, fz_out_how(o), fz_now_ms() + 3000))
			break;
	if (fz_chance(&o->rng, 15)) {
		int flood = 100 + (int)fz_below(&o->rng, 200);

		for (int i = 0; i < flood; i++)
			if (!fz_out_open(o, fz_chance(&o->rng, 50) ? O_SILENT :
					 O_PREFIX, fz_now_ms()))
				break;
	}
	/* Rank 0 answers the first challenges; the false proofs go in. */
	fz_out_poll(o, 20 + (int)fz_below(&o->rng, 40), false, false, 0);
	fprintf(stderr, "outsider: before the ranks come: %u connections, %u challenges answered, %u false proofs\n",
		o->opened, o->answered, o->proved);
	fz_write(9, "r\n", 2);
	close(9);
	/* More while the ranks come; then it keeps what is open. */
	churn = fz_chance(&o->rng, 15);
	fz_out_poll(o, 100 + (int)fz_below(&o->rng, 700), true, churn, first);
	fz_out_poll(o, 60000, false, false, 0);
	fprintf(stderr, "outsider: in all: %u connections%s, %u challenges answered, %u false proofs, %u closed by rank 0\n",
		o->opened, churn ? " (churning)" : "", o->answered, o->proved,
		o->closed);
	return 0;
}
