// SPDX-License-Identifier: MIT
/*
 * Bootstrap: where the ranks of a communicator made by tern_comm_init_rank
 * meet, over TCP (like NCCL's bootstrap).
 *
 * The unique id carries a random nonce and a TCP address: an address of
 * the interface TERN_SOCKET_IFNAME names (as NCCL_SOCKET_IFNAME does; by
 * default the first that is up and not loopback or virtual) and a port the
 * process that made the id holds bound, not listening, with SO_REUSEPORT.
 * Rank 0 listens there: on that very socket when its process made the id,
 * or on one of its own bound beside it (the kernel lets only the same user
 * do that) when another process did. Every other rank connects and says
 * who it is and where (its host); rank 0 answers each with everyone's hello
 * and its verdict. Ranks with the same host share memory and the chip
 * fabric; a communicator may span hosts that each hold as many ranks.
 * Rank 0 reads the hellos of all connections at once, so a connection that
 * says nothing (a port scanner, say) delays no one. The connections stay,
 * a star around rank 0, to carry failures (link.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"

#define COLL_HELLO_MAGIC	"ternhlo2"
/* Connections rank 0 reads at once before the oldest silent one goes. */
#define COLL_PENDING_MAX	(2 * COLL_MAX_RANKS)

/* What one rank tells rank 0, and rank 0 tells each about every rank. */
struct coll_hello {
	char magic[8];
	uint8_t nonce[COLL_NONCE_BYTES];
	int32_t rank, nranks;
	int32_t verdict;		/* rank 0's answers: how init ends */
	int32_t reserved;
	uint8_t host[COLL_HOST_BYTES];
	struct coll_node node;
};

_Static_assert(sizeof(struct coll_id) <= TERN_UNIQUE_ID_BYTES,
	       "the id fits tern_unique_id_t");

int64_t coll_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the ports ids hold ---- */

struct coll_reserved {
	uint8_t nonce[COLL_NONCE_BYTES];
	int fd;
	struct coll_reserved *next;
};

static pthread_mutex_t coll_reserved_lock = PTHREAD_MUTEX_INITIALIZER;
static struct coll_reserved *coll_reserved_list;

static void coll_reserve(const struct coll_id *cid, int fd)
{
	struct coll_reserved *r = malloc(sizeof(*r));

	if (!r) {
		close(fd);	/* rank 0 binds the port beside it instead */
		return;
	}
	memcpy(r->nonce, cid->nonce, sizeof(r->nonce));
	r->fd = fd;
	pthread_mutex_lock(&coll_reserved_lock);
	r->next = coll_reserved_list;
	coll_reserved_list = r;
	pthread_mutex_unlock(&coll_reserved_lock);
}

/* The socket this process holds for @cid, now the caller's; -1 if none. */
static int coll_reserved_take(const struct coll_id *cid)
{
	struct coll_reserved **p, *r;
	int fd = -1;

	pthread_mutex_lock(&coll_reserved_lock);
	for (p = &coll_reserved_list; *p; p = &(*p)->next) {
		if (memcmp((*p)->nonce, cid->nonce, sizeof(cid->nonce)) == 0) {
			r = *p;
			*p = r->next;
			fd = r->fd;
			free(r);
			break;
		}
	}
	pthread_mutex_unlock(&coll_reserved_lock);
	return fd;
}

void coll_id_release(const tern_unique_id_t *id)
{
	struct coll_id cid;
	int fd;

	memcpy(&cid, id->internal, sizeof(cid));
	fd = coll_reserved_take(&cid);
	if (fd >= 0)
		close(fd);
}

/* ---- choosing the address ---- */

/* Names no other host can reach us by. */
static bool coll_ifname_virtual(const char *name)
{
	static const char *const prefixes[] = { "docker", "virbr", "veth",
						"br-", "ifb" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * TERN_SOCKET_IFNAME: names or prefixes, comma-separated; "=name" wants
 * that name exactly; a leading "^" turns the list into the ones to avoid.
 */
static bool coll_ifname_wanted(const char *name, const char *spec)
{
	bool avoid = spec[0] == '^';
	const char *item = avoid ? spec + 1 : spec;

	while (*item) {
		size_t len = strcspn(item, ",");
		bool exact = item[0] == '=';
		const char *want = exact ? item + 1 : item;
		size_t want_len = exact ? len - 1 : len;

		if (want_len && strncmp(name, want, want_len) == 0 &&
		    (!exact || name[want_len] == '\0'))
			return !avoid;
		item += len;
		if (*item == ',')
			item++;
	}
	return avoid;
}

static bool coll_address_usable(const struct ifaddrs *ifa, int family)
{
	if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != family ||
	    !(ifa->ifa_flags & IFF_UP))
		return false;
	if (family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ifa->ifa_addr;

		/* Link-local addresses need a scope only this host knows. */
		return !IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr);
	}
	return true;
}

static void coll_address_copy(struct coll_id *cid, const struct sockaddr *sa)
{
	cid->family = (uint16_t)sa->sa_family;
	memset(cid->addr, 0, sizeof(cid->addr));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		memcpy(cid->addr, &in->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		memcpy(cid->addr, &in6->sin6_addr, 16);
	}
}

/*
 * The address ranks will reach rank 0 at: IPv4 before IPv6 on an
 * interface; without TERN_SOCKET_IFNAME, loopback only when nothing else
 * is up (one host is all that needs).
 */
static tern_status_t coll_pick_address(struct coll_id *cid)
{
	const char *spec = getenv("TERN_SOCKET_IFNAME");
	struct ifaddrs *ifs, *ifa;
	bool found = false;

	if (spec && !*spec)
		spec = NULL;
	if (getifaddrs(&ifs)) {
		tern_set_last_error("bootstrap: cannot list the network interfaces: %s",
				    strerror(errno));
		return TERN_ERROR_BACKEND;
	}
	for (int pass = 0; pass < 4 && !found; pass++) {
		int family = pass % 2 ? AF_INET6 : AF_INET;
		bool loopback_pass = pass >= 2;

		for (ifa = ifs; ifa && !found; ifa = ifa->ifa_next) {
			bool loopback = ifa->ifa_flags & IFF_LOOPBACK;

			if (!coll_address_usable(ifa, family))
				continue;
			if (spec ? !coll_ifname_wanted(ifa->ifa_name, spec) ||
				   loopback_pass :
				   loopback != loopback_pass ||
				   coll_ifname_virtual(ifa->ifa_name))
				continue;
			coll_address_copy(cid, ifa->ifa_addr);
			found = true;
		}
	}
	freeifaddrs(ifs);
	if (!found) {
		if (spec)
			tern_set_last_error("bootstrap: TERN_SOCKET_IFNAME=%s names no interface that is up with an address; see ip addr",
					    spec);
		else
			tern_set_last_error("bootstrap: no network interface is up, not even lo");
		return spec ? TERN_ERROR_INVALID_ARGUMENT : TERN_ERROR_BACKEND;
	}
	return TERN_SUCCESS;
}

static socklen_t coll_sockaddr(const struct coll_id *cid,
			       struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (cid->family == AF_INET) {
		struct sockaddr_in *a = (void *)ss;

		a->sin_family = AF_INET;
		a->sin_port = cid->port;
		memcpy(&a->sin_addr, cid->addr, 4);
		return sizeof(*a);
	}
	struct sockaddr_in6 *a = (void *)ss;

	a->sin6_family = AF_INET6;
	a->sin6_port = cid->port;
	memcpy(&a->sin6_addr, cid->addr, 16);
	return sizeof(*a);
}

void coll_id_format(const struct coll_id *cid, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	inet_ntop(cid->family, cid->addr, host, sizeof(host));
	snprintf(buf, len, cid->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 host, ntohs(cid->port));
}

/* A TCP socket that may share its port with the same user's others. */
static int coll_socket(int family, int flags)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
	int on = 1;

	if (fd >= 0 &&
	    (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	     setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)))) {
		close(fd);
		return -1;
	}
	return fd;
}

TERN_API tern_status_t tern_get_unique_id(tern_unique_id_t *id)
{
	const struct tern_backend_ops *ops;
	struct sockaddr_storage ss;
	struct coll_id cid = { 0 };
	socklen_t len;
	tern_status_t status;
	int fd;

	if (!id)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (tern_backend_ops_get(&ops))
		return TERN_ERROR_NOT_SUPPORTED;
	memcpy(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic));
	if (getrandom(cid.nonce, sizeof(cid.nonce), 0) != sizeof(cid.nonce))
		return TERN_ERROR_BACKEND;
	status = coll_pick_address(&cid);
	if (status)
		return status;
	fd = coll_socket(cid.family, 0);
	len = coll_sockaddr(&cid, &ss);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		tern_set_last_error("bootstrap: cannot bind a TCP port: %s",
				    strerror(errno));
		if (fd >= 0)
			close(fd);
		return TERN_ERROR_BACKEND;
	}
	cid.port = ss.ss_family == AF_INET ?
		   ((struct sockaddr_in *)&ss)->sin_port :
		   ((struct sockaddr_in6 *)&ss)->sin6_port;
	coll_reserve(&cid, fd);
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &cid, sizeof(cid));
	return TERN_SUCCESS;
}

/* ---- who is where ---- */

/*
 * The kernel's boot id, the machine (a host may run several simulated
 * ones) and the network namespace: ranks with the same value share
 * memory and reach each other's abstract sockets.
 */
static void coll_host_key(uint8_t key[COLL_HOST_BYTES])
{
	const struct tern_backend_ops *ops;
	char machine[192] = "";
	uint32_t hash = 2166136261u;	/* FNV-1a */
	struct stat st;
	FILE *f;

	memset(key, 0, COLL_HOST_BYTES);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets((char *)key, COLL_HOST_BYTES - 12, f))
			key[0] = 0;
		fclose(f);
	}
	if (tern_backend_ops_get(&ops) == TERN_SUCCESS && ops->machine_name)
		ops->machine_name(machine, sizeof(machine));
	for (const char *p = machine; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	memcpy(key + COLL_HOST_BYTES - 12, &hash, sizeof(hash));
	if (stat("/proc/self/ns/net", &st) == 0)
		memcpy(key + COLL_HOST_BYTES - 8, &st.st_ino,
		       sizeof(st.st_ino) < 8 ? sizeof(st.st_ino) : 8);
}

static void coll_hello_init(struct coll_hello *h, const struct coll_id *cid,
			    int rank, int nranks, const struct coll_node *node,
			    const uint8_t host[COLL_HOST_BYTES])
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, COLL_HELLO_MAGIC, sizeof(h->magic));
	memcpy(h->nonce, cid->nonce, sizeof(h->nonce));
	h->rank = rank;
	h->nranks = nranks;
	h->node = *node;
	memcpy(h->host, host, COLL_HOST_BYTES);
}

static bool coll_hello_fits(const struct coll_hello *h,
			    const struct coll_id *cid, int nranks)
{
	return memcmp(h->magic, COLL_HELLO_MAGIC, sizeof(h->magic)) == 0 &&
	       memcmp(h->nonce, cid->nonce, sizeof(h->nonce)) == 0 &&
	       h->nranks == nranks && h->rank >= 0 && h->rank < nranks;
}

static bool coll_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t sent = send(fd, p, len, MSG_NOSIGNAL);

		if (sent < 0 && errno == EINTR)
			continue;
		if (sent <= 0)
			return false;
		p += sent;
		len -= (size_t)sent;
	}
	return true;
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

static bool coll_recv_all(int fd, void *buf, size_t len, int64_t deadline)
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

tern_status_t coll_agree(int rank, int nranks, const int *conn,
			 tern_status_t status, int64_t deadline)
{
	int32_t verdict = (int32_t)status, said;

	if (rank != 0) {
		if (!coll_send_all(conn[rank], &verdict, sizeof(verdict)) ||
		    !coll_recv_all(conn[rank], &said, sizeof(said), deadline))
			return TERN_ERROR_PEER_FAILED;
		return (tern_status_t)said;
	}
	for (int r = 1; r < nranks; r++) {
		if (!coll_recv_all(conn[r], &said, sizeof(said), deadline))
			said = TERN_ERROR_PEER_FAILED;
		if (verdict == TERN_SUCCESS)
			verdict = said;
	}
	/* A rank gone by now learns nothing: the others still agree. */
	for (int r = 1; r < nranks; r++)
		coll_send_all(conn[r], &verdict, sizeof(verdict));
	return (tern_status_t)verdict;
}

tern_status_t coll_star_allgather(int rank, int nranks, const int *conn,
				  void *all, size_t len, int64_t deadline)
{
	uint8_t *at = all;

	if (rank != 0) {
		if (!coll_send_all(conn[rank], at + (size_t)rank * len, len) ||
		    !coll_recv_all(conn[rank], all, (size_t)nranks * len,
				   deadline))
			return TERN_ERROR_PEER_FAILED;
		return TERN_SUCCESS;
	}
	for (int r = 1; r < nranks; r++)
		if (!coll_recv_all(conn[r], at + (size_t)r * len, len, deadline))
			return TERN_ERROR_PEER_FAILED;
	for (int r = 1; r < nranks; r++)
		if (!coll_send_all(conn[r], all, (size_t)nranks * len))
			return TERN_ERROR_PEER_FAILED;
	return TERN_SUCCESS;
}

static void coll_tune_connection(int fd)
{
	const int64_t cut = coll_cut_ms();
	const unsigned int user_ms = (unsigned int)(cut > 0 ? cut : COLL_CUT_MS);
	/* probes from half the bound on, a second apart */
	int on = 1, idle = (int)(user_ms / 2000), interval = 1;
	int probes = (int)(user_ms / 2000) + 1;

	/* Link messages are small and mean "now". */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	/*
	 * An idle link carries nothing: keepalives, which the peer's kernel
	 * answers however busy its process, tell a host cut off from one
	 * that is quiet; TCP_USER_TIMEOUT bounds both them and unacked data.
	 */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval,
		   sizeof(interval));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms,
		   sizeof(user_ms));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

/* ---- rank 0 ---- */

static int coll_listen(const struct coll_id *cid)
{
	struct sockaddr_storage ss;
	socklen_t len = coll_sockaddr(cid, &ss);
	int fd = coll_reserved_take(cid);
	char where[64];

	if (fd < 0) {
		fd = coll_socket(cid->family, 0);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&ss, len)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0 && listen(fd, COLL_MAX_RANKS) == 0)
		return fd;
	coll_id_format(cid, where, sizeof(where));
	tern_set_last_error("bootstrap: rank 0 cannot listen at %s (%s): the id was made on another host, or the port is another user's",
			    where, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

struct coll_pending {
	int fd;
	size_t got;
	struct coll_hello h;
};

struct coll_gathering {
	const struct coll_id *cid;
	int nranks, joined;
	struct coll_node *node;
	int *conn;
	uint8_t (*host)[COLL_HOST_BYTES];
	struct coll_pending pend[COLL_PENDING_MAX];
	int npend;
};

static void coll_pending_drop(struct coll_gathering *g, int i, bool close_fd)
{
	if (close_fd)
		close(g->pend[i].fd);
	g->pend[i] = g->pend[--g->npend];
}

/* Reads what pending connection @i sent; adopts it once it said hello. */
static void coll_pending_read(struct coll_gathering *g, int i)
{
	struct coll_pending *p = &g->pend[i];
	ssize_t got = recv(p->fd, (char *)&p->h + p->got, sizeof(p->h) - p->got,
			   MSG_DONTWAIT);

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		coll_pending_drop(g, i, true);
		return;
	}
	p->got += (size_t)got;
	if (p->got < sizeof(p->h))
		return;
	if (!coll_hello_fits(&p->h, g->cid, g->nranks) || p->h.rank == 0 ||
	    g->conn[p->h.rank] >= 0) {
		coll_pending_drop(g, i, true);	/* not one of ours */
		return;
	}
	g->conn[p->h.rank] = p->fd;
	g->node[p->h.rank] = p->h.node;
	memcpy(g->host[p->h.rank], p->h.host, COLL_HOST_BYTES);
	g->joined++;
	coll_tune_connection(p->fd);
	coll_pending_drop(g, i, false);
}

static void coll_accept(struct coll_gathering *g, int listener)
{
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (g->npend == COLL_PENDING_MAX) {
		close(g->pend[0].fd);	/* the oldest: silent the longest */
		g->pend[0] = g->pend[--g->npend];
	}
	g->pend[g->npend++] = (struct coll_pending){ .fd = fd };
}

/* Polls the listener and every pending connection until all have joined. */
static bool coll_gather_hellos(struct coll_gathering *g, int listener,
			       int64_t deadline)
{
	struct pollfd pfd[1 + COLL_PENDING_MAX];

	while (g->joined < g->nranks - 1) {
		int64_t left = deadline - coll_now_ms();
		int n = g->npend, ret;

		if (left <= 0)
			return false;
		pfd[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
		for (int i = 0; i < n; i++)
			pfd[1 + i] = (struct pollfd){ .fd = g->pend[i].fd,
						      .events = POLLIN };
		ret = poll(pfd, (nfds_t)(1 + n), (int)left);
		if (ret < 0 && errno != EINTR)
			return false;
		if (ret <= 0)
			continue;
		/* Backwards: dropping i moves the last one into its place. */
		for (int i = n - 1; i >= 0; i--)
			if (pfd[1 + i].revents)
				coll_pending_read(g, i);
		if (pfd[0].revents & POLLIN)
			coll_accept(g, listener);
	}
	return true;
}

void coll_map_hosts(int nranks, const uint8_t (*host)[COLL_HOST_BYTES],
		    struct coll_hostmap *map)
{
	int first[COLL_MAX_RANKS], count[COLL_MAX_RANKS] = { 0 };

	map->nhosts = 0;
	for (int r = 0; r < nranks; r++) {
		int h = 0;

		while (h < map->nhosts &&
		       memcmp(host[first[h]], host[r], COLL_HOST_BYTES) != 0)
			h++;
		if (h == map->nhosts)
			first[map->nhosts++] = r;
		map->host_of[r] = h;
		map->local_rank[r] = count[h]++;
	}
	map->local_size = count[0];
	for (int h = 1; h < map->nhosts; h++)
		if (count[h] != map->local_size)
			map->local_size = 0;
}

int coll_host_member(const struct coll_hostmap *map, int nranks, int host,
		     int local_rank)
{
	for (int r = 0; r < nranks; r++)
		if (map->host_of[r] == host && map->local_rank[r] == local_rank)
			return r;
	return -1;
}

/*
 * SUCCESS if the ranks are on one host, or on hosts that each hold as
 * many: the shards of a collective across hosts go between the ranks at
 * one position on each (rails), so every host needs every position.
 */
static tern_status_t coll_verdict(struct coll_gathering *g)
{
	struct coll_hostmap map;

	coll_map_hosts(g->nranks, g->host, &map);
	if (map.local_size)
		return TERN_SUCCESS;
	for (int r = 1; r < g->nranks; r++) {
		if (map.host_of[r] == 0)
			continue;
		tern_set_last_error("bootstrap: rank %d's host holds another number of ranks than rank 0's; a communicator across hosts needs as many on each",
				    r);
		break;
	}
	return TERN_ERROR_NOT_SUPPORTED;
}

tern_status_t coll_meet_root(const struct coll_id *cid, int nranks,
			     struct coll_node *node,
			     uint8_t (*host)[COLL_HOST_BYTES], int *conn,
			     int64_t deadline)
{
	struct coll_gathering *g = calloc(1, sizeof(*g));
	tern_status_t status = TERN_ERROR_PEER_FAILED;
	int listener;

	if (!g)
		return TERN_ERROR_OUT_OF_MEMORY;
	listener = coll_listen(cid);
	if (listener < 0) {
		free(g);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	g->cid = cid;
	g->nranks = nranks;
	g->node = node;
	g->conn = conn;
	g->host = host;
	coll_host_key(g->host[0]);
	if (!coll_gather_hellos(g, listener, deadline)) {
		tern_set_last_error("bootstrap: %d of %d ranks came to rank 0 in time; see TERN_COMM_INIT_TIMEOUT_MS",
				    g->joined + 1, nranks);
		goto out;
	}
	status = coll_verdict(g);
	for (int p = 1; p < nranks; p++) {
		for (int q = 0; q < nranks; q++) {
			struct coll_hello h;

			coll_hello_init(&h, cid, q, nranks, &node[q], host[q]);
			h.verdict = status;
			if (!coll_send_all(conn[p], &h, sizeof(h))) {
				status = TERN_ERROR_PEER_FAILED;
				break;
			}
		}
	}
out:
	while (g->npend)
		coll_pending_drop(g, 0, true);
	close(listener);
	free(g);
	return status;
}

/* ---- every other rank ---- */

/* Connects to rank 0, which may not be listening yet. */
static int coll_connect(const struct coll_id *cid, int64_t deadline)
{
	struct sockaddr_storage ss;
	socklen_t len = coll_sockaddr(cid, &ss);

	while (coll_now_ms() < deadline) {
		int fd = socket(cid->family, SOCK_STREAM | SOCK_CLOEXEC |
					     SOCK_NONBLOCK, 0);
		int err = 0;
		socklen_t err_len = sizeof(err);

		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&ss, len) == 0 ||
		    (errno == EINPROGRESS &&
		     coll_wait_fd(fd, POLLOUT, deadline) &&
		     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) == 0 &&
		     err == 0)) {
			coll_tune_connection(fd);
			return fd;
		}
		close(fd);
		usleep(10000);
	}
	return -1;
}

tern_status_t coll_meet_peer(const struct coll_id *cid, int rank, int nranks,
			     struct coll_node *node,
			     uint8_t (*host)[COLL_HOST_BYTES], int *conn,
			     int64_t deadline)
{
	struct coll_hello h;
	char where[64];

	coll_id_format(cid, where, sizeof(where));
	*conn = coll_connect(cid, deadline);
	if (*conn < 0) {
		tern_set_last_error("bootstrap: rank %d found no rank 0 at %s in time; see TERN_COMM_INIT_TIMEOUT_MS",
				    rank, where);
		return TERN_ERROR_PEER_FAILED;
	}
	coll_host_key(host[rank]);
	coll_hello_init(&h, cid, rank, nranks, &node[rank], host[rank]);
	if (!coll_send_all(*conn, &h, sizeof(h)))
		return TERN_ERROR_PEER_FAILED;
	for (int q = 0; q < nranks; q++) {
		if (!coll_recv_all(*conn, &h, sizeof(h), deadline) ||
		    !coll_hello_fits(&h, cid, nranks) || h.rank != q) {
			tern_set_last_error("bootstrap: rank %d: rank 0 at %s did not answer in time",
					    rank, where);
			return TERN_ERROR_PEER_FAILED;
		}
		if (h.verdict != TERN_SUCCESS) {
			tern_set_last_error("bootstrap: rank %d: rank 0 refused the communicator with %s",
					    rank, tern_status_name((tern_status_t)h.verdict));
			return (tern_status_t)h.verdict;
		}
		if (q != rank)
			node[q] = h.node;
		memcpy(host[q], h.host, COLL_HOST_BYTES);
	}
	return TERN_SUCCESS;
}
