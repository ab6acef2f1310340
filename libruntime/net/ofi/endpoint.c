// SPDX-License-Identifier: MIT
/*
 * The process's libfabric endpoint: the provider libfabric picks (it reads
 * FI_PROVIDER, FI_TCP_IFACE and the rest itself) among those with reliable
 * datagram endpoints, tagged messages and receives from one address; its
 * completion queue; and the address vector of the peers.
 *
 * libfabric is loaded when the first communicator spans hosts, as NCCL
 * loads its net plugin: a program on one host never needs it, and one
 * linked statically still links. Only five of its calls are functions;
 * the rest are inline calls through the objects these return.
 */
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "ofi.h"

#define OFI_VERSION		FI_VERSION(1, 17)
#define OFI_CQ_BATCH		16
/* A wait's pause where the provider has nothing to sleep on. */
#define OFI_POLL_US		50

#define OFI_LIBRARY		"libfabric.so.1"

static struct {
	int (*getinfo)(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info);
	void (*freeinfo)(struct fi_info *info);
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context);
	const char *(*strerror)(int err);
	char error[256];		/* why it did not load */
} ofi_lib;

static pthread_once_t ofi_lib_once = PTHREAD_ONCE_INIT;

static void ofi_lib_load(void)
{
	void *h = dlopen(OFI_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (h) {
		*(void **)&ofi_lib.getinfo = dlsym(h, "fi_getinfo");
		*(void **)&ofi_lib.freeinfo = dlsym(h, "fi_freeinfo");
		*(void **)&ofi_lib.dupinfo = dlsym(h, "fi_dupinfo");
		*(void **)&ofi_lib.fabric = dlsym(h, "fi_fabric");
		*(void **)&ofi_lib.strerror = dlsym(h, "fi_strerror");
	}
	if (h && ofi_lib.getinfo && ofi_lib.freeinfo && ofi_lib.dupinfo &&
	    ofi_lib.fabric && ofi_lib.strerror)
		return;
	snprintf(ofi_lib.error, sizeof(ofi_lib.error), "%s",
		 h ? "it lacks fi_getinfo and the rest" : dlerror());
	ofi_lib.getinfo = NULL;
}

const char *ofi_strerror(int err)
{
	return ofi_lib.strerror ? ofi_lib.strerror(err < 0 ? -err : err) :
				  "libfabric is not loaded";
}

static struct fi_info *ofi_hints(void)
{
	struct fi_info *hints = ofi_lib.dupinfo(NULL);

	if (!hints)
		return NULL;
	hints->caps = FI_TAGGED | FI_SEND | FI_RECV | FI_DIRECTED_RECV;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->threading = FI_THREAD_SAFE;
	hints->domain_attr->av_type = FI_AV_TABLE;
	/* The registration modes this code handles (efa asks for most). */
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED |
				      FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				      FI_MR_ENDPOINT;
	hints->tx_attr->msg_order = FI_ORDER_SAS;
	hints->rx_attr->msg_order = FI_ORDER_SAS;
	return hints;
}

/* Why no provider fits, in words a user can act on. */
static void ofi_explain_none(int err)
{
	const char *prov = getenv("FI_PROVIDER");

	if (prov && *prov)
		tern_set_last_error("network: libfabric has no provider '%s' with reliable datagram endpoints and tagged messages (FI_PROVIDER=%s; fi_info -l lists them): %s",
				    prov, prov, ofi_strerror(err));
	else
		tern_set_last_error("network: libfabric has no provider with reliable datagram endpoints and tagged messages (fi_info -t FI_EP_RDM lists them): %s",
				    ofi_strerror(err));
}

/*
 * Endpoints whose connections were cut with sends still queued: closing
 * such an endpoint can crash libfabric 1.17's tcp provider (seen once in
 * twenty cut-host runs, in fi_close), so they are kept, reachable, for
 * the process's life. Only a network failure leaves one.
 */
static pthread_mutex_t ofi_parked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tern_net *ofi_parked;

/* Whether @net's endpoint is safe to close: no request left in flight. */
static bool ofi_settled(struct tern_net *net)
{
	/* Cancelled requests come back within a few turns of progress. */
	for (int i = 0; i < 50 && net->orphans && net->cq; i++) {
		pthread_mutex_lock(&net->lock);
		ofi_progress(net);
		pthread_mutex_unlock(&net->lock);
		if (net->orphans)
			usleep(1000);
	}
	return !net->orphans;
}

static void ofi_teardown(struct tern_net *net)
{
	if (net->ep && !ofi_settled(net)) {
		pthread_mutex_lock(&ofi_parked_lock);
		net->parked = ofi_parked;
		ofi_parked = net;
		pthread_mutex_unlock(&ofi_parked_lock);
		return;
	}
	if (net->ep)
		fi_close(&net->ep->fid);
	if (net->av)
		fi_close(&net->av->fid);
	if (net->cq)
		fi_close(&net->cq->fid);
	if (net->domain)
		fi_close(&net->domain->fid);
	if (net->fabric)
		fi_close(&net->fabric->fid);
	ofi_orphans_free(net);
	if (net->info)
		ofi_lib.freeinfo(net->info);
	while (net->peers) {
		struct ofi_peer *p = net->peers;

		net->peers = p->next;
		free(p);
	}
	pthread_mutex_destroy(&net->lock);
	free(net);
}

static int ofi_open_cq(struct tern_net *net)
{
	struct fi_cq_attr attr = {
		.format = FI_CQ_FORMAT_TAGGED,
		.wait_obj = FI_WAIT_FD,
		.size = 1024,
	};
	int err = fi_cq_open(net->domain, &attr, &net->cq, NULL);

	net->wait_fd = -1;
	if (!err && fi_control(&net->cq->fid, FI_GETWAIT, &net->wait_fd)) {
		fi_close(&net->cq->fid);
		err = -FI_ENOSYS;
	}
	if (err) {
		/* Not every provider has a descriptor to sleep on: wait polls. */
		net->wait_fd = -1;
		attr.wait_obj = FI_WAIT_NONE;
		err = fi_cq_open(net->domain, &attr, &net->cq, NULL);
	}
	return err;
}

static tern_status_t ofi_open(struct tern_net **out)
{
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints;
	struct tern_net *net;
	const char *step = "fi_getinfo";
	int err;

	pthread_once(&ofi_lib_once, ofi_lib_load);
	if (!ofi_lib.getinfo) {
		tern_set_last_error("network: cannot load %s (Debian's libfabric1): %s",
				    OFI_LIBRARY, ofi_lib.error);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	hints = ofi_hints();
	net = calloc(1, sizeof(*net));
	if (!hints || !net) {
		if (hints)
			ofi_lib.freeinfo(hints);
		free(net);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_init(&net->lock, NULL);
	err = ofi_lib.getinfo(OFI_VERSION, NULL, NULL, 0, hints, &net->info);
	ofi_lib.freeinfo(hints);
	if (err) {
		ofi_explain_none(err);
		net->info = NULL;
		ofi_teardown(net);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	net->mr_local = net->info->domain_attr->mr_mode & FI_MR_LOCAL;
	net->mr_endpoint = net->info->domain_attr->mr_mode & FI_MR_ENDPOINT;
	net->mr_prov_key = net->info->domain_attr->mr_mode & FI_MR_PROV_KEY;
	snprintf(net->description, sizeof(net->description), "%s on %s",
		 net->info->fabric_attr->prov_name,
		 net->info->domain_attr->name);

	err = ofi_lib.fabric(net->info->fabric_attr, &net->fabric, NULL);
	if (!err && (step = "fi_domain"))
		err = fi_domain(net->fabric, net->info, &net->domain, NULL);
	if (!err && (step = "fi_cq_open"))
		err = ofi_open_cq(net);
	if (!err && (step = "fi_av_open"))
		err = fi_av_open(net->domain, &av_attr, &net->av, NULL);
	if (!err && (step = "fi_endpoint"))
		err = fi_endpoint(net->domain, net->info, &net->ep, NULL);
	if (!err && (step = "fi_ep_bind"))
		err = fi_ep_bind(net->ep, &net->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!err)
		err = fi_ep_bind(net->ep, &net->av->fid, 0);
	if (!err && (step = "fi_enable"))
		err = fi_enable(net->ep);
	net->name_len = sizeof(net->name);
	if (!err && (step = "fi_getname"))
		err = fi_getname(&net->ep->fid, net->name, &net->name_len);
	if (err) {
		tern_set_last_error("network: %s (%s) failed: %s", step,
				    net->description, ofi_strerror(err));
		ofi_teardown(net);
		return TERN_ERROR_BACKEND;
	}
	*out = net;
	return TERN_SUCCESS;
}

static void ofi_close(struct tern_net *net)
{
	if (net)
		ofi_teardown(net);
}

static const char *ofi_describe(const struct tern_net *net)
{
	return net->description;
}

fi_addr_t ofi_peer_addr(struct tern_net *net, const uint8_t *name,
			size_t len)
{
	struct ofi_peer *p;

	if (len == 0 || len > OFI_NAME_BYTES)
		return FI_ADDR_NOTAVAIL;
	/* One entry an address: a receive from it must name that entry. */
	for (p = net->peers; p; p = p->next)
		if (p->name_len == len && memcmp(p->name, name, len) == 0)
			return p->addr;
	p = calloc(1, sizeof(*p));
	if (!p)
		return FI_ADDR_NOTAVAIL;
	memcpy(p->name, name, len);
	p->name_len = len;
	if (fi_av_insert(net->av, name, 1, &p->addr, 0, NULL) != 1) {
		free(p);
		return FI_ADDR_NOTAVAIL;
	}
	p->next = net->peers;
	net->peers = p;
	return p->addr;
}

static void ofi_read_error(struct tern_net *net)
{
	struct fi_cq_err_entry e = { 0 };

	if (fi_cq_readerr(net->cq, &e, 0) != 1 || !e.op_context)
		return;
	ofi_req_complete(net, e.op_context, 0, e.err ? e.err : FI_EIO);
}

void ofi_progress(struct tern_net *net)
{
	struct fi_cq_tagged_entry entries[OFI_CQ_BATCH];

	for (;;) {
		ssize_t n = fi_cq_read(net->cq, entries, OFI_CQ_BATCH);

		if (n == -FI_EAVAIL) {
			ofi_read_error(net);
			continue;
		}
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			ofi_req_complete(net, entries[i].op_context,
					 entries[i].len, 0);
		if (n < OFI_CQ_BATCH)
			break;
	}
	if (net->deferred)
		ofi_post_deferred(net);
	ofi_post_waiting(net);
}

static void ofi_wait(struct tern_net *net, int timeout_ms)
{
	struct fid *cq = &net->cq->fid;
	struct pollfd pfd = { .fd = net->wait_fd, .events = POLLIN };

	pthread_mutex_lock(&net->lock);
	ofi_progress(net);
	pthread_mutex_unlock(&net->lock);
	if (timeout_ms <= 0)
		return;
	if (net->wait_fd < 0) {
		usleep(OFI_POLL_US);
		return;
	}
	/* Sleep only when libfabric says nothing is left to read. */
	if (fi_trywait(net->fabric, &cq, 1) == FI_SUCCESS)
		poll(&pfd, 1, timeout_ms);
}

const struct tern_net_ops tern_net_ofi = {
	.name = "ofi",
	.open = ofi_open,
	.close = ofi_close,
	.describe = ofi_describe,
	.listen = ofi_listen,
	.close_listen = ofi_close_listen,
	.connect = ofi_connect,
	.accept = ofi_accept,
	.close_comm = ofi_close_comm,
	.reg_mr = ofi_reg_mr,
	.dereg_mr = ofi_dereg_mr,
	.isend = ofi_isend,
	.irecv = ofi_irecv,
	.test = ofi_test,
	.wait = ofi_wait,
	.counters = ofi_counters,
};
