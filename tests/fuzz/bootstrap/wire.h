/* SPDX-License-Identifier: MIT */
/*
 * Copies of the bootstrap's messages, which libtern keeps private
 * (coll/init/bootstrap.c, init/rank.c, comm/link.c). The proxy reports
 * "drift" when what it relays does not fit them: update them with the
 * library's.
 */
#ifndef FUZZ_BOOTSTRAP_WIRE_H
#define FUZZ_BOOTSTRAP_WIRE_H

#include <sys/socket.h>
#include <sys/un.h>

#include "fuzz.h"

#define FZ_HELLO_MAGIC		"ternhlo3"
#define FZ_HANDOFF_MAGIC	"ternfds2"
#define FZ_LINK_MAGIC		"ternlnk2"

/* bootstrap.c: a rank's hello, and each entry of rank 0's table. */
struct fz_hello {
	char magic[8];
	int32_t rank, nranks;
	int32_t verdict;
	int32_t reserved;
	struct coll_rank_info info;
};

/* bootstrap.c: a rank's verdict to rank 0; rank 0 answers an int32. */
struct fz_verdict {
	int32_t status;
	int32_t reserved;
	uint8_t table[COLL_MAC_BYTES];	/* SHA-256 of its table */
};

/* rank.c: which files a rank's two areas are; all-gathered. */
struct fz_area_ids {
	uint64_t dev[2], ino[2];
};

/* rank.c: whose two fds travel with a hand-off packet. */
struct fz_handoff {
	char magic[8];
	int32_t rank, nranks;
};

/* link.c: what travels on the TCP connections after init. */
struct fz_link {
	char magic[8];
	int32_t kind;
	int32_t rank;
};

/*
 * The TCP messages of an init on one host, each way, in order:
 *   rank k to rank 0: hello, area ids, verdict (struct fz_verdict);
 *   rank 0 to rank k: a hello per rank, every rank's area ids, verdict
 *   (int32);
 * then the link's. The hand-off: rank k's packet to rank 0, then rank 0's
 * for each of the host's ranks.
 */
enum fz_msg {
	M_HELLO, M_IDS, M_ALL_IDS, M_VERDICT_K, M_VERDICT_0, M_HANDOFF,
	M_LINK, M_OTHER
};

/* What changing a field does, as the ranks check it. */
enum fz_class {
	C_HEADER,	/* magic, rank, nranks, kind: refused */
	C_VERDICT,	/* a hello's verdict: rank 0 ignores a joiner's */
	C_RESERVED,	/* read by none */
	C_INFO,		/* a rank's node, host, hand-off name: in the digest */
	C_STATUS,	/* a verdict's status */
	C_DIGEST,	/* a verdict's digest of the table */
	C_IDS,		/* area ids */
};

struct fz_field {
	const char *name;
	size_t at, size, elem;		/* elem: an element's size, to mutate */
	enum fz_class cls;
};

/* plan.c */
enum fz_msg fz_msg_of(const struct fz_plan *p, enum fz_where where,
		      int index, size_t len);
const struct fz_field *fz_fields(enum fz_msg m, int nranks, size_t *n);
/*
 * What the ranks must end with when the receiver of message @index of
 * @where reads @got where the sender sent @sent (both @len bytes); names
 * the fields changed in @what.
 */
enum fz_expect fz_judge_change(const struct fz_plan *p, enum fz_where where,
			       int index, const void *sent, const void *got,
			       size_t len, char *what, size_t wlen);


#endif
