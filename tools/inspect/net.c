// SPDX-License-Identifier: MIT
/*
 * tern-inspect net: what each process's communicators across hosts have
 * moved over the network, per peer host (bytes and messages each way,
 * errors), from the counters' files libtern keeps (net/stats.h). Text and
 * JSON are written once for both (print.h); metrics.c adds them to the
 * Prometheus output.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "net/stats.h"
#include "print.h"

static void net_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect net [options]\n"
		"One line per peer host of each communicator across hosts that a\n"
		"process of this user runs: its pid, rank of ranks, its host, the\n"
		"peer host and our ranks there, bytes and messages sent and\n"
		"received, and errors. Read from TERN_RUN_DIR (default\n"
		"/tmp/tern-UID), where libtern keeps them; a file whose process is\n"
		"gone is skipped.\n"
		"\n"
		"Options:\n");
	inspect_print_common_options(out);
}

/* Whether process @pid is alive (another user's counts as alive). */
static bool net_alive(int pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Reads @path whole; a file that is not a live process's counters: NULL. */
static struct tern_net_stats *net_read(const char *path)
{
	struct tern_net_stats *s = NULL;
	size_t cap = 1 << 16, got;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	s = malloc(cap);
	got = s ? fread(s, 1, cap, f) : 0;
	fclose(f);
	if (!s || got < sizeof(*s) ||
	    memcmp(s->magic, TERN_NET_STATS_MAGIC, sizeof(s->magic)) ||
	    s->npeers > 1024 ||
	    got < sizeof(*s) + s->npeers * sizeof(s->peer[0]) ||
	    !net_alive(s->pid)) {
		free(s);
		return NULL;
	}
	s->host[sizeof(s->host) - 1] = 0;
	s->provider[sizeof(s->provider) - 1] = 0;
	for (uint32_t i = 0; i < s->npeers; i++)
		s->peer[i].host[sizeof(s->peer[i].host) - 1] = 0;
	return s;
}

static int net_compare(const void *a, const void *b)
{
	const struct tern_net_stats *x = *(struct tern_net_stats *const *)a;
	const struct tern_net_stats *y = *(struct tern_net_stats *const *)b;

	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) :
				  (x->rank > y->rank) - (x->rank < y->rank);
}

int net_stats_load(struct tern_net_stats ***out)
{
	struct tern_net_stats **all = NULL;
	char dir[256], path[600];
	struct dirent *e;
	int n = 0;
	DIR *d;

	*out = NULL;
	if (tern_net_stats_dir(dir, sizeof(dir)) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;	/* no process has counted anything */
	while ((e = readdir(d))) {
		struct tern_net_stats *s, **more;

		if (strncmp(e->d_name, "net-", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		s = net_read(path);
		if (!s)
			continue;
		more = realloc(all, (size_t)(n + 1) * sizeof(*all));
		if (!more) {
			free(s);
			break;
		}
		all = more;
		all[n++] = s;
	}
	closedir(d);
	if (n)
		qsort(all, (size_t)n, sizeof(*all), net_compare);
	*out = all;
	return n;
}

void net_stats_free(struct tern_net_stats **all, int n)
{
	for (int i = 0; i < n; i++)
		free(all[i]);
	free(all);
}

static void net_print(const struct inspect_options *opts,
		      struct tern_net_stats **all, int n)
{
	struct print p;

	print_begin(&p, opts, NULL);
	if (n && !p.json)
		printf("%-8s  %-9s  %-24s  %-24s  %5s  %12s  %9s  %12s  %9s  %6s\n",
		       "PID", "RANK", "HOST", "PEER HOST", "RANKS", "TX BYTES",
		       "TX MSGS", "RX BYTES", "RX MSGS", "ERRORS");
	print_array(&p, "comms");
	for (int i = 0; i < n; i++) {
		const struct tern_net_stats *s = all[i];
		char rank[24];

		snprintf(rank, sizeof(rank), "%d/%d", s->rank, s->nranks);
		print_object(&p, NULL);
		print_u64(&p, "pid", NULL, (uint64_t)s->pid);
		print_u64(&p, "rank", NULL, (uint64_t)s->rank);
		print_u64(&p, "ranks", NULL, (uint64_t)s->nranks);
		print_u64(&p, "hosts", NULL, (uint64_t)s->nhosts);
		print_string(&p, "host", NULL, s->host);
		print_string(&p, "provider", NULL, s->provider);
		print_array(&p, "peers");
		for (uint32_t j = 0; j < s->npeers; j++) {
			const struct tern_net_stats_peer *peer = &s->peer[j];

			print_object(&p, NULL);
			print_text(&p, "%-8d  %-9s  %-24s  ", s->pid, rank,
				   s->host);
			print_string(&p, "host", "%-24s  ", peer->host);
			print_u64(&p, "ranks", "%5llu  ", peer->ranks);
			print_u64(&p, "tx_bytes", "%12llu  ", peer->tx_bytes);
			print_u64(&p, "tx_messages", "%9llu  ",
				  peer->tx_messages);
			print_u64(&p, "rx_bytes", "%12llu  ", peer->rx_bytes);
			print_u64(&p, "rx_messages", "%9llu  ",
				  peer->rx_messages);
			print_u64(&p, "errors", "%6llu\n", peer->errors);
			print_object_end(&p);
		}
		print_array_end(&p);
		print_object_end(&p);
	}
	print_array_end(&p);
	if (!n)
		print_text(&p, "no communicator across hosts runs\n");
	print_end(&p);
}

static int net_run(int argc, char **argv, struct inspect_options *opts)
{
	struct tern_net_stats **all;
	int ret, n;

	ret = inspect_parse_args("net", argc, argv, opts, NULL, net_usage);
	if (ret != INSPECT_RUN)
		return ret;
	n = net_stats_load(&all);
	net_print(opts, all, n);
	net_stats_free(all, n);
	return 0;
}

const struct inspect_command inspect_net_command = {
	.name = "net",
	.summary = "network traffic per peer host of communicators across hosts",
	.usage = net_usage,
	.run = net_run,
};
