// SPDX-License-Identifier: MIT
/*
 * Proving the id's secret: every connection a communicator makes or
 * accepts (the bootstrap's TCP links, a host's hand-off sockets) opens
 * with a challenge-response over fresh random challenges from both sides,
 * HMAC-SHA256 from OpenSSL's libcrypto; the side that was connected to
 * (rank 0, a host's first rank) proves first, so a joiner hands nothing
 * to an impostor. Both then hold a session key, and every later message
 * on the connection carries its HMAC over a counter per direction, so a
 * message injected, replayed, reordered or reflected fails the check.
 *
 * The secret never crosses the wire; nor does anything that would let a
 * listener test a guess offline but the MACs, which need the secret's 256
 * bits to forge. The comm's key is derived from the secret and the id's
 * address and tag, so one secret (TERN_COMM_SECRET) serves many ids apart.
 *
 * A network connection between hosts (a rail's, hosts/hosts.c) cannot
 * wait for a round trip: its first message carries a MAC over both ranks
 * and nonces each rank drew for this comm and sent through rank 0, so it
 * proves its sender for this comm and this receiver alone.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "coll/trust/trust.h"

#define COLL_AUTH_MAGIC		"ternauth"
#define COLL_AUTH_VERSION	1

/* One MAC over @n pieces: HMAC-SHA256(@key, piece[0] || ... ). */
struct coll_piece {
	const void *at;
	size_t len;
};

static bool coll_hmac(const uint8_t key[COLL_KEY_BYTES],
		      const struct coll_piece *piece, int n,
		      uint8_t out[COLL_MAC_BYTES])
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	size_t len = 0;
	bool ok = ctx && EVP_MAC_init(ctx, key, COLL_KEY_BYTES, params);

	for (int i = 0; ok && i < n; i++)
		ok = EVP_MAC_update(ctx, piece[i].at, piece[i].len);
	ok = ok && EVP_MAC_final(ctx, out, &len, COLL_MAC_BYTES) &&
	     len == COLL_MAC_BYTES;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	if (!ok)
		memset(out, 0, COLL_MAC_BYTES);
	return ok;
}

bool coll_auth_key(const uint8_t *secret, size_t secret_len,
		   const struct coll_id *cid, uint8_t key[COLL_KEY_BYTES])
{
	uint8_t padded[COLL_KEY_BYTES] = { 0 };
	const struct coll_piece piece[] = {
		{ "tern comm key", 13 },
		{ cid->tag, sizeof(cid->tag) },
		{ &cid->family, sizeof(cid->family) },
		{ &cid->port, sizeof(cid->port) },
		{ cid->addr, sizeof(cid->addr) },
	};
	bool ok;

	/* The secrets are 16 to 32 bytes: HMAC takes them as keys alike. */
	if (secret_len > sizeof(padded))
		return false;
	memcpy(padded, secret, secret_len);
	ok = coll_hmac(padded, piece, 5, key);
	OPENSSL_cleanse(padded, sizeof(padded));
	return ok;
}

/* Constant time: a mismatch says nothing of where. */
static bool coll_mac_equal(const uint8_t *a, const uint8_t *b)
{
	return CRYPTO_memcmp(a, b, COLL_MAC_BYTES) == 0;
}

static bool coll_random(void *buf, size_t len)
{
	return getrandom(buf, len, 0) == (ssize_t)len;
}

/* What the leader proves: it saw the joiner's challenge and holds the key. */
static bool coll_auth_mac(const uint8_t key[COLL_KEY_BYTES], const char *who,
			  uint32_t purpose, const uint8_t *first,
			  const uint8_t *second, uint8_t out[COLL_MAC_BYTES])
{
	const struct coll_piece piece[] = {
		{ who, strlen(who) },
		{ &purpose, sizeof(purpose) },
		{ first, COLL_CHALLENGE_BYTES },
		{ second, COLL_CHALLENGE_BYTES },
	};

	return coll_hmac(key, piece, 4, out);
}

static bool coll_chan_begin(struct coll_chan *ch, int fd,
			    const uint8_t key[COLL_KEY_BYTES], bool lead,
			    const uint8_t *lead_challenge,
			    const uint8_t *join_challenge)
{
	const struct coll_piece piece[] = {
		{ "tern session", 12 },
		{ lead_challenge, COLL_CHALLENGE_BYTES },
		{ join_challenge, COLL_CHALLENGE_BYTES },
	};

	memset(ch, 0, sizeof(*ch));
	ch->fd = fd;
	ch->lead = lead;
	return coll_hmac(key, piece, 3, ch->key);
}

void coll_auth_greet(struct coll_auth_state *st, uint32_t purpose)
{
	memset(st, 0, sizeof(*st));
	st->purpose = purpose;
	memcpy(st->hello.magic, COLL_AUTH_MAGIC, sizeof(st->hello.magic));
	st->hello.version = COLL_AUTH_VERSION;
	st->hello.purpose = purpose;
	st->ok = coll_random(st->hello.challenge,
			     sizeof(st->hello.challenge));
}

bool coll_auth_answer(struct coll_auth_state *st,
		      const uint8_t key[COLL_KEY_BYTES],
		      const struct coll_auth_hello *hello)
{
	if (memcmp(hello->magic, COLL_AUTH_MAGIC, sizeof(hello->magic)) ||
	    hello->version != COLL_AUTH_VERSION ||
	    hello->purpose != st->purpose)
		return false;
	st->hello = *hello;
	return coll_random(st->reply.challenge, sizeof(st->reply.challenge)) &&
	       coll_auth_mac(key, "tern lead", st->purpose,
			     hello->challenge, st->reply.challenge,
			     st->reply.mac);
}

bool coll_auth_check_lead(struct coll_auth_state *st,
			  const uint8_t key[COLL_KEY_BYTES],
			  const struct coll_auth_reply *reply)
{
	uint8_t want[COLL_MAC_BYTES];

	if (!st->ok ||
	    !coll_auth_mac(key, "tern lead", st->purpose,
			   st->hello.challenge, reply->challenge, want) ||
	    !coll_mac_equal(want, reply->mac))
		return false;
	st->reply = *reply;
	return coll_auth_mac(key, "tern join", st->purpose, reply->challenge,
			     st->hello.challenge, st->proof);
}

bool coll_auth_check_join(struct coll_auth_state *st,
			  const uint8_t key[COLL_KEY_BYTES],
			  const uint8_t proof[COLL_MAC_BYTES], int fd,
			  struct coll_chan *ch)
{
	uint8_t want[COLL_MAC_BYTES];

	return coll_auth_mac(key, "tern join", st->purpose,
			     st->reply.challenge, st->hello.challenge, want) &&
	       coll_mac_equal(want, proof) &&
	       coll_chan_begin(ch, fd, key, true, st->reply.challenge,
			       st->hello.challenge);
}

bool coll_auth_chan_join(struct coll_auth_state *st,
			 const uint8_t key[COLL_KEY_BYTES], int fd,
			 struct coll_chan *ch)
{
	return coll_chan_begin(ch, fd, key, false, st->reply.challenge,
			       st->hello.challenge);
}

bool coll_auth_rail(const uint8_t key[COLL_KEY_BYTES], int32_t from,
		    int32_t to, const uint8_t nonce_to[COLL_TAG_BYTES],
		    const uint8_t nonce_from[COLL_TAG_BYTES],
		    uint8_t mac[COLL_MAC_BYTES])
{
	const struct coll_piece piece[] = {
		{ "tern rail", 9 }, { &from, sizeof(from) }, { &to, sizeof(to) },
		{ nonce_to, COLL_TAG_BYTES }, { nonce_from, COLL_TAG_BYTES },
	};

	return coll_hmac(key, piece, 5, mac);
}

bool coll_auth_rail_check(const uint8_t key[COLL_KEY_BYTES], int32_t from,
			  int32_t to, const uint8_t nonce_to[COLL_TAG_BYTES],
			  const uint8_t nonce_from[COLL_TAG_BYTES],
			  const uint8_t mac[COLL_MAC_BYTES])
{
	uint8_t want[COLL_MAC_BYTES];

	return coll_auth_rail(key, from, to, nonce_to, nonce_from, want) &&
	       coll_mac_equal(want, mac);
}

/* ---- blocking sends and receives, for a stream or a packet socket ---- */

int64_t coll_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool coll_wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	for (;;) {
		int64_t left = deadline - coll_now_ms();
		int ret;

		if (left <= 0)
			return false;
		ret = poll(&pfd, 1, (int)left);
		if (ret > 0)
			return true;
		if (ret < 0 && errno != EINTR)
			return false;
	}
}

bool coll_send_all(int fd, const void *buf, size_t len)
{
	/* A peer that stops reading is a peer gone: never wait past this. */
	const int64_t deadline = coll_now_ms() + COLL_CUT_MS;
	const char *p = buf;

	while (len) {
		ssize_t sent = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!coll_wait_fd(fd, POLLOUT, deadline))
				return false;
			continue;
		}
		if (sent <= 0)
			return false;
		p += sent;
		len -= (size_t)sent;
	}
	return true;
}

bool coll_recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;

	while (len) {
		ssize_t got;

		if (!coll_wait_fd(fd, POLLIN, deadline))
			return false;
		got = recv(fd, p, len, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return false;
		p += got;
		len -= (size_t)got;
	}
	return true;
}

tern_status_t coll_auth_join(int fd, const uint8_t key[COLL_KEY_BYTES],
			     uint32_t purpose, struct coll_chan *ch,
			     int64_t deadline)
{
	struct coll_auth_state st;
	struct coll_auth_reply reply;

	coll_auth_greet(&st, purpose);
	if (!st.ok)
		return TERN_ERROR_BACKEND;
	if (!coll_send_all(fd, &st.hello, sizeof(st.hello)) ||
	    !coll_recv_all(fd, &reply, sizeof(reply), deadline))
		return TERN_ERROR_PEER_FAILED;
	if (!coll_auth_check_lead(&st, key, &reply))
		return TERN_ERROR_PERMISSION;
	if (!coll_send_all(fd, st.proof, sizeof(st.proof)) ||
	    !coll_auth_chan_join(&st, key, fd, ch))
		return TERN_ERROR_PEER_FAILED;
	return TERN_SUCCESS;
}

tern_status_t coll_auth_lead(int fd, const uint8_t key[COLL_KEY_BYTES],
			     uint32_t purpose, struct coll_chan *ch,
			     int64_t deadline)
{
	struct coll_auth_state st;
	struct coll_auth_hello hello;
	uint8_t proof[COLL_MAC_BYTES];

	coll_auth_greet(&st, purpose);
	if (!coll_recv_all(fd, &hello, sizeof(hello), deadline))
		return TERN_ERROR_PEER_FAILED;
	if (!coll_auth_answer(&st, key, &hello))
		return TERN_ERROR_PERMISSION;
	if (!coll_send_all(fd, &st.reply, sizeof(st.reply)) ||
	    !coll_recv_all(fd, proof, sizeof(proof), deadline))
		return TERN_ERROR_PEER_FAILED;
	if (!coll_auth_check_join(&st, key, proof, fd, ch))
		return TERN_ERROR_PERMISSION;
	return TERN_SUCCESS;
}

/* ---- messages on an authenticated channel ---- */

static bool coll_chan_tag(const struct coll_chan *ch, bool sending,
			  uint64_t seq, const void *buf, size_t len,
			  uint8_t tag[COLL_MAC_BYTES])
{
	/* Which way it goes: a message sent back to its sender fails. */
	const uint8_t way = (uint8_t)(ch->lead == sending);
	const uint64_t bytes = len;
	const struct coll_piece piece[] = {
		{ &way, 1 }, { &seq, sizeof(seq) }, { &bytes, sizeof(bytes) },
		{ buf, len },
	};

	return coll_hmac(ch->key, piece, 4, tag);
}

bool coll_chan_seal(struct coll_chan *ch, const void *buf, size_t len,
		    uint8_t tag[COLL_MAC_BYTES])
{
	return coll_chan_tag(ch, true, ch->sent++, buf, len, tag);
}

bool coll_chan_open(struct coll_chan *ch, const void *buf, size_t len,
		    const uint8_t tag[COLL_MAC_BYTES])
{
	uint8_t want[COLL_MAC_BYTES];

	if (!coll_chan_tag(ch, false, ch->got, buf, len, want) ||
	    !coll_mac_equal(want, tag))
		return false;
	ch->got++;
	return true;
}

bool coll_chan_send(struct coll_chan *ch, const void *buf, size_t len)
{
	uint8_t *msg = malloc(len + COLL_MAC_BYTES);
	bool ok = msg != NULL;

	if (ok) {
		memcpy(msg, buf, len);
		ok = coll_chan_seal(ch, buf, len, msg + len) &&
		     coll_send_all(ch->fd, msg, len + COLL_MAC_BYTES);
		free(msg);
	}
	return ok;
}

bool coll_chan_recv(struct coll_chan *ch, void *buf, size_t len,
		    int64_t deadline)
{
	uint8_t tag[COLL_MAC_BYTES];

	return coll_recv_all(ch->fd, buf, len, deadline) &&
	       coll_recv_all(ch->fd, tag, sizeof(tag), deadline) &&
	       coll_chan_open(ch, buf, len, tag);
}

void coll_chan_close(struct coll_chan *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	OPENSSL_cleanse(ch, sizeof(*ch));
	ch->fd = -1;
}
