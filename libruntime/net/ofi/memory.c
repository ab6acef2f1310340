// SPDX-License-Identifier: MIT
/*
 * Registered memory, kept per range: registering is a system call (and a
 * pinning of pages on efa and verbs), so a range registered again shares
 * the first registration until its last user lets go.
 */
#include <stdlib.h>

#include "internal.h"
#include "ofi.h"

static int ofi_mr_make(struct tern_net *net, struct tern_net_mr *m)
{
	uint64_t key = net->mr_prov_key ? 0 : ++net->next_key;
	int err = fi_mr_reg(net->domain, m->ptr, m->len, FI_SEND | FI_RECV, 0,
			    key, 0, &m->mr, NULL);

	if (!err && net->mr_endpoint) {
		err = fi_mr_bind(m->mr, &net->ep->fid, 0);
		if (!err)
			err = fi_mr_enable(m->mr);
		if (err)
			fi_close(&m->mr->fid);
	}
	if (!err)
		m->desc = fi_mr_desc(m->mr);
	return err;
}

tern_status_t ofi_reg_mr(struct tern_net *net, void *ptr, size_t len,
			 struct tern_net_mr **out)
{
	struct tern_net_mr *m;
	int err;

	if (!net || !ptr || !len || !out)
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&net->lock);
	for (m = net->mrs; m; m = m->next) {
		if (m->ptr == ptr && m->len == len) {
			m->refs++;
			pthread_mutex_unlock(&net->lock);
			*out = m;
			return TERN_SUCCESS;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&net->lock);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	m->ptr = ptr;
	m->len = len;
	m->refs = 1;
	err = ofi_mr_make(net, m);
	if (err) {
		pthread_mutex_unlock(&net->lock);
		tern_set_last_error("network: registering %zu bytes with %s failed: %s",
				    len, net->description, ofi_strerror(err));
		free(m);
		return err == -FI_ENOMEM ? TERN_ERROR_OUT_OF_MEMORY :
					   TERN_ERROR_BACKEND;
	}
	m->next = net->mrs;
	net->mrs = m;
	net->users++;
	pthread_mutex_unlock(&net->lock);
	*out = m;
	return TERN_SUCCESS;
}

void ofi_dereg_mr(struct tern_net *net, struct tern_net_mr *mr)
{
	struct tern_net_mr **p;

	if (!net || !mr)
		return;
	pthread_mutex_lock(&net->lock);
	for (p = &net->mrs; *p; p = &(*p)->next) {
		if (*p != mr)
			continue;
		if (--mr->refs == 0) {
			*p = mr->next;
			fi_close(&mr->mr->fid);
			free(mr);
			net->users--;
		}
		break;
	}
	pthread_mutex_unlock(&net->lock);
}
