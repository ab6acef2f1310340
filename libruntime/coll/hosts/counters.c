// SPDX-License-Identifier: MIT
/*
 * A comm across hosts's counters for tern-inspect (net/stats.h): bytes,
 * messages and errors to and from each other host, in a file of the
 * user's, brought up to date by the proxy as it moves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/hosts/internal.h"
#include "net/stats.h"

/*
 * The counters' file: made in the user's directory, sized for a record
 * per other host, named by the hosts' cards. A process that cannot make
 * it still runs, uncounted.
 */
void coll_hosts_counters_open(struct tern_comm *top,
			      const struct coll_net_card *cards)
{
	static unsigned int serial;
	struct coll_hosts *h = top->hosts;
	struct tern_net_stats *s;
	char dir[96];
	struct stat st;
	uint32_t i = 0;
	int fd;

	if (tern_net_stats_dir(dir, sizeof(dir)) < 0 ||
	    (mkdir(dir, 0700) && errno != EEXIST) || stat(dir, &st) ||
	    st.st_uid != getuid())
		return;
	snprintf(h->stats_path, sizeof(h->stats_path), "%s/net-%d-%u", dir,
		 (int)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
	h->stats_bytes = sizeof(*s) +
			 (size_t)(h->nhosts - 1) * sizeof(s->peer[0]);
	fd = open(h->stats_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	s = ftruncate(fd, (off_t)h->stats_bytes) ? MAP_FAILED :
	    mmap(NULL, h->stats_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	close(fd);
	if (s == MAP_FAILED) {
		unlink(h->stats_path);
		return;
	}
	s->pid = (int32_t)getpid();
	s->rank = top->rank;
	s->nranks = top->nranks;
	s->nhosts = h->nhosts;
	s->npeers = (uint32_t)h->nhosts - 1;
	snprintf(s->host, sizeof(s->host), "%s", cards[top->rank].host);
	snprintf(s->provider, sizeof(s->provider), "%s",
		 h->ops->describe(h->net));
	for (int j = 0; j < h->nhosts; j++) {
		if (j == h->host)
			continue;
		snprintf(s->peer[i].host, sizeof(s->peer[i].host), "%s",
			 cards[h->rail[j]].host);
		s->peer[i++].ranks = (uint32_t)(top->nranks / h->nhosts);
	}
	/* The magic last: a reader takes the file once it is whole. */
	__atomic_store_n((uint64_t *)s->magic,
			 *(const uint64_t *)TERN_NET_STATS_MAGIC,
			 __ATOMIC_RELEASE);
	h->stats = s;
}

void coll_hosts_count(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_stats_peer sum[COLL_MAX_RANKS];
	struct tern_net_counters c;
	uint32_t i = 0;

	if (!h->stats)
		return;
	memset(sum, 0, sizeof(sum));
	for (int r = 0; r < top->nranks; r++) {
		struct tern_net_stats_peer *p = &sum[h->host_of[r]];

		if (h->to[r]) {
			h->ops->counters(h->to[r], &c);
			p->tx_bytes += c.bytes;
			p->tx_messages += c.messages;
			p->errors += c.errors;
		}
		if (h->from[r]) {
			h->ops->counters(h->from[r], &c);
			p->rx_bytes += c.bytes;
			p->rx_messages += c.messages;
			p->errors += c.errors;
		}
	}
	for (int j = 0; j < h->nhosts; j++) {
		struct tern_net_stats_peer *p = &h->stats->peer[i];

		if (j == h->host)
			continue;
		__atomic_store_n(&p->tx_bytes, sum[j].tx_bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&p->tx_messages, sum[j].tx_messages,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&p->rx_bytes, sum[j].rx_bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&p->rx_messages, sum[j].rx_messages,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&p->errors, sum[j].errors, __ATOMIC_RELAXED);
		i++;
	}
}
