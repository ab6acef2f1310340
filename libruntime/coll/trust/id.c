// SPDX-License-Identifier: MIT
/*
 * The unique id of a communicator made by tern_comm_init_rank: a secret of
 * 256 random bits that every connection proves it holds (auth.c), a tag
 * that names the id in this process and in the user's own files, and the
 * TCP address where the ranks meet rank 0: an address of the interface
 * TERN_SOCKET_IFNAME names (as NCCL_SOCKET_IFNAME does; by default the
 * first that is up and not loopback or virtual) and a port the process
 * that made the id holds bound.
 *
 * The port is bound with SO_REUSEPORT and not SO_REUSEADDR: Linux lets a
 * socket share it only when that socket's owner has the same uid, so rank
 * 0 may listen there from another process of the user, when the id was
 * made elsewhere, and no other user's process can bind it, listening or
 * not.
 *
 * The id is a bearer secret. Where it must pass through something others
 * can read (a c10d store), tern_unique_id_public gives it without its
 * secret, which each rank then takes from TERN_COMM_SECRET, or on rank
 * 0's host from a file only the user can read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "coll/trust/trust.h"
#include "settings.h"
#include "net/stats.h"

_Static_assert(sizeof(struct coll_id) <= TERN_UNIQUE_ID_BYTES,
	       "the id fits tern_unique_id_t");

/* ---- the ports ids hold ---- */

struct coll_reserved {
	uint8_t tag[COLL_TAG_BYTES];
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
	memcpy(r->tag, cid->tag, sizeof(r->tag));
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
		if (memcmp((*p)->tag, cid->tag, sizeof(cid->tag)) == 0) {
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

static void coll_secret_unlink(const struct coll_id *cid);

void coll_id_release(const tern_unique_id_t *id)
{
	struct coll_id cid;
	int fd;

	memcpy(&cid, id->internal, sizeof(cid));
	fd = coll_reserved_take(&cid);
	if (fd >= 0)
		close(fd);
	if (cid.secret_from == COLL_SECRET_FILE)
		coll_secret_unlink(&cid);
	OPENSSL_cleanse(&cid, sizeof(cid));
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
	const char *spec = tern_setting_text("TERN_SOCKET_IFNAME");
	struct ifaddrs *ifs, *ifa;
	bool found = false;

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

socklen_t coll_id_sockaddr(const struct coll_id *cid,
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

/*
 * A TCP socket that may share its port with the same user's others, and
 * with no other user's: never SO_REUSEADDR, which would let anyone bind
 * beside a socket that is not listening yet.
 */
static int coll_socket(int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int on = 1;

	if (fd >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Random bits, an address and a port: no device, so no backend, needed. */
TERN_API tern_status_t tern_get_unique_id(tern_unique_id_t *id)
{
	struct sockaddr_storage ss;
	struct coll_id cid = { 0 };
	socklen_t len;
	tern_status_t status;
	int fd;

	if (!id)
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic));
	if (getrandom(cid.secret, sizeof(cid.secret), 0) !=
	    sizeof(cid.secret) ||
	    getrandom(cid.tag, sizeof(cid.tag), 0) != sizeof(cid.tag))
		return TERN_ERROR_BACKEND;
	status = coll_pick_address(&cid);
	if (status)
		return status;
	fd = coll_socket(cid.family);
	len = coll_id_sockaddr(&cid, &ss);
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
	OPENSSL_cleanse(&cid, sizeof(cid));
	return TERN_SUCCESS;
}

int coll_id_listen(const struct coll_id *cid)
{
	struct sockaddr_storage ss;
	socklen_t len = coll_id_sockaddr(cid, &ss);
	int fd = coll_reserved_take(cid);
	char where[64];

	if (fd < 0) {
		fd = coll_socket(cid->family);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&ss, len)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0 && listen(fd, COLL_MAX_RANKS) == 0) {
		/*
		 * Listening, the port is safe from others' SO_REUSEADDR; set
		 * on it now, its accepted connections' TIME_WAITs do not keep
		 * the port from a server binding it with SO_REUSEADDR later
		 * (a c10d TCPStore on a port once ours).
		 */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 },
			   sizeof(int));
		return fd;
	}
	coll_id_format(cid, where, sizeof(where));
	tern_set_last_error("bootstrap: rank 0 cannot listen at %s (%s): the id was made on another host, or the port is another user's",
			    where, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* ---- the secret, where the id does not carry it ---- */

/* TERN_COMM_SECRET: 32 to 64 hex digits (128 to 256 bits). */
static tern_status_t coll_secret_env(uint8_t secret[COLL_SECRET_BYTES],
				     size_t *len)
{
	const char *env = tern_setting_text("TERN_COMM_SECRET");
	size_t digits = env ? strlen(env) : 0;

	if (!env) {
		tern_set_last_error("bootstrap: the id was made for TERN_COMM_SECRET, which is not set here: set it alike on every rank");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (digits < 32 || digits > 2 * COLL_SECRET_BYTES || digits % 2 ||
	    strspn(env, "0123456789abcdefABCDEF") != digits) {
		tern_set_last_error("TERN_COMM_SECRET: want 32 to 64 hex digits (128 to 256 random bits, e.g. from openssl rand -hex 32), not %zu characters",
				    digits);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	for (size_t i = 0; i < digits / 2; i++) {
		unsigned int byte;

		sscanf(env + 2 * i, "%2x", &byte);
		secret[i] = (uint8_t)byte;
	}
	*len = digits / 2;
	return TERN_SUCCESS;
}

/* The user's own directory, made private if it is new; -1 if not ours. */
static int coll_secret_dir(char *dir, size_t len)
{
	struct stat st;

	if (tern_net_stats_dir(dir, len) < 0 ||
	    (mkdir(dir, 0700) && errno != EEXIST) || lstat(dir, &st) ||
	    !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077))
		return -1;
	return 0;
}

static int coll_secret_path(const struct coll_id *cid, char *path,
			    size_t len)
{
	char dir[96];
	int n;

	if (coll_secret_dir(dir, sizeof(dir)))
		return -1;
	n = snprintf(path, len, "%s/secret-", dir);
	for (size_t i = 0; i < sizeof(cid->tag) && n > 0; i++)
		n += snprintf(path + n, len - (size_t)n, "%02x", cid->tag[i]);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static void coll_secret_unlink(const struct coll_id *cid)
{
	char path[160];

	if (coll_secret_path(cid, path, sizeof(path)) == 0)
		unlink(path);
}

/* Writes @cid's secret where only this user can read it. */
static tern_status_t coll_secret_store(const struct coll_id *cid)
{
	char path[160];
	int fd = -1;
	bool ok;

	if (coll_secret_path(cid, path, sizeof(path)) == 0)
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
				O_NOFOLLOW, 0600);
	if (fd < 0) {
		tern_set_last_error("bootstrap: cannot keep the id's secret in the user's run directory (TERN_RUN_DIR, or /tmp/tern-UID, which must be the user's own, mode 0700): %s",
				    strerror(errno));
		return TERN_ERROR_BACKEND;
	}
	ok = write(fd, cid->secret, sizeof(cid->secret)) ==
	     (ssize_t)sizeof(cid->secret);
	close(fd);
	if (!ok) {
		unlink(path);
		return TERN_ERROR_BACKEND;
	}
	return TERN_SUCCESS;
}

static tern_status_t coll_secret_load(const struct coll_id *cid,
				      uint8_t secret[COLL_SECRET_BYTES])
{
	char path[160];
	struct stat st;
	int fd = -1;
	bool ok;

	if (coll_secret_path(cid, path, sizeof(path)) == 0)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     st.st_uid == getuid() && !(st.st_mode & 077) &&
	     read(fd, secret, COLL_SECRET_BYTES) == COLL_SECRET_BYTES;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		tern_set_last_error("bootstrap: the id's secret is kept on rank 0's host, readable by its user alone, and is not here: across hosts or users set TERN_COMM_SECRET alike on every rank before making the id");
		return TERN_ERROR_PERMISSION;
	}
	return TERN_SUCCESS;
}

tern_status_t coll_id_key(const struct coll_id *cid,
			  uint8_t key[COLL_KEY_BYTES])
{
	uint8_t secret[COLL_SECRET_BYTES];
	size_t len = sizeof(secret);
	tern_status_t status = TERN_SUCCESS;

	switch (cid->secret_from) {
	case COLL_SECRET_IN_ID:
		memcpy(secret, cid->secret, sizeof(secret));
		break;
	case COLL_SECRET_ENV:
		status = coll_secret_env(secret, &len);
		break;
	case COLL_SECRET_FILE:
		status = coll_secret_load(cid, secret);
		break;
	default:
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (status == TERN_SUCCESS && !coll_auth_key(secret, len, cid, key))
		status = TERN_ERROR_BACKEND;
	OPENSSL_cleanse(secret, sizeof(secret));
	return status;
}

TERN_API tern_status_t tern_unique_id_public(const tern_unique_id_t *id,
					     tern_unique_id_t *pub)
{
	struct coll_id cid;
	tern_status_t status = TERN_SUCCESS;
	uint8_t secret[COLL_SECRET_BYTES];
	size_t len;

	if (!id || !pub)
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(&cid, id->internal, sizeof(cid));
	if (memcmp(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic)) != 0 ||
	    cid.secret_from != COLL_SECRET_IN_ID) {
		tern_set_last_error("tern_unique_id_public: want an id from tern_get_unique_id");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (tern_setting_is_set("TERN_COMM_SECRET")) {
		status = coll_secret_env(secret, &len);
		OPENSSL_cleanse(secret, sizeof(secret));
		cid.secret_from = COLL_SECRET_ENV;
	} else {
		status = coll_secret_store(&cid);
		cid.secret_from = COLL_SECRET_FILE;
	}
	memset(cid.secret, 0, sizeof(cid.secret));
	if (status == TERN_SUCCESS) {
		memset(pub, 0, sizeof(*pub));
		memcpy(pub->internal, &cid, sizeof(cid));
	}
	OPENSSL_cleanse(&cid, sizeof(cid));
	return status;
}

