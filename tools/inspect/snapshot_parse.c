// SPDX-License-Identifier: MIT
/*
 * The one parser of the "tern" family's messages, whoever sent them:
 * tern.ko over netlink (snapshot_kernel.c, events.c) or the simulated
 * machine through libtern (snapshot_sim.c, events.c), which writes the
 * same messages. Values go through the model's lists
 * (tern_state_get(), model/tern_state.h) into the snapshot's structs;
 * names and what only events carry are read here. Attributes a sender
 * does not send are left zero, and those it sends that this does not
 * know are skipped, so every tern.ko with the family works.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "family.h"
#include "snapshot.h"

/* The named fields sit where the model's struct has them. */
#define SNAPSHOT_CHECK(st, model, name) \
	_Static_assert(offsetof(st, name) == offsetof(st, values) + \
		       offsetof(model, name) && \
		       sizeof(((st *)0)->name) == sizeof(((model *)0)->name), \
		       #st "." #name " is not the model's")
#define TERN_DEVICE_VALUE(name, ...) \
	SNAPSHOT_CHECK(struct snapshot_device, struct tern_state_device, name);
#define TERN_LINK_VALUE(name, ...) \
	SNAPSHOT_CHECK(struct snapshot_link, struct tern_state_link, name);
#define TERN_CLIENT_VALUE(name, ...) \
	SNAPSHOT_CHECK(struct snapshot_client, struct tern_state_client, name);
#include "tern_state_list.h"

/* Reads every value of @set in @tb (parsed up to @max) into @values. */
static int parse_values(const struct tern_state_set *set, void *values,
			struct nlattr **tb, int max)
{
	for (int a = 1; a <= max; a++)
		if (tb[a] && tern_state_get(set, values, (uint16_t)a,
					    nla_data(tb[a]),
					    (uint32_t)nla_len(tb[a])))
			return -NLE_INVAL;
	return 0;
}

static void parse_string(struct nlattr **tb, int attr, char *buf, size_t len)
{
	if (tb[attr])
		nla_strlcpy(buf, tb[attr], len);
}

/* One engine nest into @dev's engine it names, the event's guilty too. */
static int parse_engine(struct nlattr *nest, struct snapshot_device *dev,
			struct snapshot_extra *extra)
{
	struct tern_state_engine engine = {
		.type = SNAPSHOT_ENGINE_TYPE_UNKNOWN,
		.core = DRM_TERN_ENGINE_NO_CORE,
	};
	struct nlattr *tb[DRM_TERN_A_ENGINE_MAX + 1];
	int err = nla_parse_nested(tb, DRM_TERN_A_ENGINE_MAX, nest,
				   family_engine_policy);

	if (!err)
		err = parse_values(&tern_state_engine_set, &engine, tb,
				   DRM_TERN_A_ENGINE_MAX);
	if (err < 0)
		return err;
	/* One the device does not count is not its engine: left out. */
	if (engine.index < dev->engine_count)
		dev->engines[engine.index] = engine;
	if (!extra)
		return 0;
	extra->engine = (int)engine.index;
	extra->engine_values = engine;
	extra->has_guilty_comm = tb[DRM_TERN_A_ENGINE_GUILTY_COMM] != NULL;
	parse_string(tb, DRM_TERN_A_ENGINE_GUILTY_COMM, extra->guilty_comm,
		     sizeof(extra->guilty_comm));
	if (tb[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID])
		extra->guilty_client_id =
			nla_get_u64(tb[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID]);
	if (tb[DRM_TERN_A_ENGINE_GUILTY_PID])
		extra->guilty_pid = nla_get_u32(tb[DRM_TERN_A_ENGINE_GUILTY_PID]);
	return 0;
}

int snapshot_parse_device(struct nlmsghdr *nlh, struct snapshot_device *dev,
			  struct snapshot_extra *extra)
{
	struct nlattr *tb[DRM_TERN_A_DEV_MAX + 1];
	struct nlattr *nla;
	int rem, err;

	memset(dev, 0, sizeof(*dev));
	if (extra) {
		memset(extra, 0, sizeof(*extra));
		extra->engine = -1;
	}
	err = genlmsg_parse(nlh, 0, tb, DRM_TERN_A_DEV_MAX,
			    family_device_policy);
	if (!err && !tb[DRM_TERN_A_DEV_INDEX])
		err = -NLE_MISSING_ATTR;
	if (!err)
		err = parse_values(&tern_state_device_set, &dev->values, tb,
				   DRM_TERN_A_DEV_MAX);
	if (err < 0)
		return err;
	if (dev->health > DRM_TERN_HEALTH_FAILED)
		dev->health = DRM_TERN_HEALTH_FAILED;	/* newer, worse states */
	dev->health_given = tb[DRM_TERN_A_DEV_HEALTH] != NULL;
	parse_string(tb, DRM_TERN_A_DEV_NAME, dev->name, sizeof(dev->name));
	parse_string(tb, DRM_TERN_A_DEV_NODE, dev->node, sizeof(dev->node));
	parse_string(tb, DRM_TERN_A_DEV_BUS_ID, dev->bus_id,
		     sizeof(dev->bus_id));
	parse_string(tb, DRM_TERN_A_DEV_DRIVER_VERSION, dev->driver_version,
		     sizeof(dev->driver_version));
	if (dev->engine_count > SNAPSHOT_MAX_ENGINES)
		return SNAPSHOT_TOO_MANY_ENGINES;
	/* Without engine nests, the engines are listed with zero counters. */
	if (snapshot_device_alloc_engines(dev))
		return -NLE_NOMEM;
	/* DRM_TERN_A_DEV_ENGINE repeats, one nest per engine. */
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(nla) != DRM_TERN_A_DEV_ENGINE)
			continue;
		err = parse_engine(nla, dev, extra);
		if (err < 0) {
			snapshot_device_free(dev);
			return err;
		}
	}
	if (!extra)
		return 0;
	extra->has_reasons = tb[DRM_TERN_A_DEV_HEALTH_REASONS] != NULL;
	extra->has_mem_error = tb[DRM_TERN_A_DEV_MEM_ERROR_KIND] != NULL;
	if (extra->has_mem_error)
		extra->mem_error_kind =
			nla_get_u32(tb[DRM_TERN_A_DEV_MEM_ERROR_KIND]);
	if (tb[DRM_TERN_A_DEV_MEM_ERROR_ADDR])
		extra->mem_error_addr =
			nla_get_u64(tb[DRM_TERN_A_DEV_MEM_ERROR_ADDR]);
	parse_string(tb, DRM_TERN_A_DEV_TOPOLOGY, extra->topology,
		     sizeof(extra->topology));
	return 0;
}

int snapshot_parse_link(struct nlmsghdr *nlh, struct snapshot_link *link)
{
	struct nlattr *tb[DRM_TERN_A_LINK_MAX + 1];
	int err;

	memset(link, 0, sizeof(*link));
	err = genlmsg_parse(nlh, 0, tb, DRM_TERN_A_LINK_MAX,
			    family_link_policy);
	if (!err && !tb[DRM_TERN_A_LINK_INDEX])
		err = -NLE_MISSING_ATTR;
	if (!err)
		err = parse_values(&tern_state_link_set, &link->values, tb,
				   DRM_TERN_A_LINK_MAX);
	link->up = link->state == DRM_TERN_PORT_UP;
	return err;
}

int snapshot_parse_client(struct nlmsghdr *nlh, struct snapshot_client *client)
{
	struct nlattr *tb[DRM_TERN_A_CLIENT_MAX + 1];
	int err;

	memset(client, 0, sizeof(*client));
	err = genlmsg_parse(nlh, 0, tb, DRM_TERN_A_CLIENT_MAX,
			    family_client_policy);
	if (!err)
		err = parse_values(&tern_state_client_set, &client->values, tb,
				   DRM_TERN_A_CLIENT_MAX);
	parse_string(tb, DRM_TERN_A_CLIENT_COMM, client->comm,
		     sizeof(client->comm));
	return err;
}

/* Room for one more of *@array's @count items of @size bytes; NULL if none. */
static void *snapshot_grow(void **array, int count, size_t size)
{
	void *grown;

	/* Capacities are powers of two: grow when @count reaches one. */
	if (count && (count & (count - 1)))
		return (char *)*array + (size_t)count * size;
	grown = realloc(*array, (size_t)(count ? count * 2 : 1) * size);
	if (!grown)
		return NULL;
	*array = grown;
	return (char *)grown + (size_t)count * size;
}

int snapshot_add(struct snapshot *snap, struct nlmsghdr *nlh)
{
	struct snapshot_extra extra;
	void *item;
	int err;

	switch (genlmsg_hdr(nlh)->cmd) {
	case DRM_TERN_CMD_DEVICE_GET:
		item = snapshot_grow((void **)&snap->devices, snap->device_count,
				     sizeof(*snap->devices));
		if (!item)
			return -NLE_NOMEM;
		err = snapshot_parse_device(nlh, item, &extra);
		if (!err && !snap->topology[0])
			snprintf(snap->topology, sizeof(snap->topology), "%s",
				 extra.topology);
		snap->device_count += !err;
		return err;
	case DRM_TERN_CMD_LINK_GET:
		item = snapshot_grow((void **)&snap->links, snap->link_count,
				     sizeof(*snap->links));
		if (!item)
			return -NLE_NOMEM;
		err = snapshot_parse_link(nlh, item);
		snap->link_count += !err;
		return err;
	case DRM_TERN_CMD_CLIENT_GET:
		item = snapshot_grow((void **)&snap->clients, snap->client_count,
				     sizeof(*snap->clients));
		if (!item)
			return -NLE_NOMEM;
		err = snapshot_parse_client(nlh, item);
		snap->client_count += !err;
		return err;
	default:
		return 0;	/* a newer sender's: not ours to read */
	}
}
