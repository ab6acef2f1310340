/* SPDX-License-Identifier: MIT */
/*
 * What a process's communicators across hosts have moved over the
 * network, per peer host, in a file tern-inspect reads (not installed;
 * the format is Documentation/network.rst's).
 *
 * One file per communicator, TERN_RUN_DIR/net-PID-SERIAL (by default
 * /tmp/tern-UID), mapped by the process and written as the proxy moves
 * chunks: a header, then a record per other host. Counters only grow;
 * a reader may see one a moment old. The file goes with the comm; one
 * whose process is gone is stale, and a reader ignores (and may remove)
 * it.
 */
#ifndef TERN_NET_STATS_H
#define TERN_NET_STATS_H

#include <stdint.h>

#define TERN_NET_STATS_MAGIC	"ternnst1"
#define TERN_NET_STATS_NAME	64

struct tern_net_stats_peer {
	char host[TERN_NET_STATS_NAME];	/* the host's name, as it gives it */
	uint32_t ranks;			/* of ours there */
	uint32_t pad;
	uint64_t tx_bytes, tx_messages;
	uint64_t rx_bytes, rx_messages;
	uint64_t errors;
};

struct tern_net_stats {
	char magic[8];
	int32_t pid;
	int32_t rank, nranks, nhosts;
	uint32_t npeers;		/* records that follow */
	uint32_t pad;
	char host[TERN_NET_STATS_NAME];	/* ours */
	char provider[TERN_NET_STATS_NAME];
	struct tern_net_stats_peer peer[];
};

/* The directory of the files, in @buf; its length, or -1 if too long. */
int tern_net_stats_dir(char *buf, unsigned long len);

#endif /* TERN_NET_STATS_H */
