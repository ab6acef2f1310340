/* SPDX-License-Identifier: MIT */
/*
 * What trust/ gives the rest of the collectives: the unique id of a
 * communicator made by tern_comm_init_rank (id.c: its secret, its tag,
 * rank 0's TCP address) and the proofs made with its secret (auth.c):
 * every connection a communicator makes proves it, and every message on
 * it carries a MAC under the session key. The lowest part: it knows of
 * no communicator.
 */
#ifndef TERN_COLL_TRUST_TRUST_H
#define TERN_COLL_TRUST_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "internal.h"

/* The most ranks a communicator has: all may meet at rank 0's address. */
#define COLL_MAX_RANKS		64

#define COLL_KEY_BYTES		32
#define COLL_TAG_BYTES		16
#define COLL_MAC_BYTES		32
#define COLL_CHALLENGE_BYTES	32

/* ---- id.c: the unique id, its port and its secret ---- */

#define COLL_ID_MAGIC		"ternuid3"
#define COLL_SECRET_BYTES	32

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

/* ---- auth.c: every connection proves the id's secret ---- */

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

/* ---- auth.c: blocking sends and receives, deadlines ---- */

/*
 * A connection whose keepalives or data go unanswered this long is closed
 * by the kernel (TCP keepalive and TCP_USER_TIMEOUT), which fails the
 * comm as a peer gone: a host cut off from the network is found within it
 * (TERN_COMM_CUT_MS). A send gives up on a peer
 * that stops reading after as long.
 */
#define COLL_CUT_MS		10000

/* The clock deadlines are counted in, in ms (CLOCK_MONOTONIC). */
int64_t coll_now_ms(void);
/* Waits for @events on @fd; false at @deadline (coll_now_ms). */
bool coll_wait_fd(int fd, short events, int64_t deadline);
bool coll_send_all(int fd, const void *buf, size_t len);
bool coll_recv_all(int fd, void *buf, size_t len, int64_t deadline);

#endif /* TERN_COLL_TRUST_TRUST_H */
