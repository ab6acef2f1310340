// SPDX-License-Identifier: MIT
/*
 * What the machine announces, and a device's health, as tern.ko does
 * (driver/tern_health.c, tern_netlink_events.c).
 *
 * Health follows from the device's state: a link of it down (LINK_DOWN)
 * or counting errors (LINK_ERRORS), an engine hung now (ENGINE_HUNG) or
 * reset after a hang (ENGINE_RESET), an uncorrectable memory error
 * (MEM_UNCORRECTED). Whatever can change one of these calls
 * machine_health_update(), which announces a HEALTH event when the
 * reasons changed.
 *
 * Events go to every connection that asked for them (SIM_MSG_EVENTS),
 * without waiting: a follower whose socket is full misses the event, and
 * the next one it gets says how many it missed, as a netlink listener
 * learns of an overrun. Nothing a follower does holds up an engine.
 * Callers hold no lock: this takes the machine's, first in its order.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "machine.h"

uint32_t machine_health_reasons(struct machine *m, struct machine_device *dev)
{
	const struct tern_fabric *fabric = &m->fabric;
	uint32_t reasons = 0;
	uint64_t uncorrected;

	for (unsigned int p = 0; p < fabric->port_count[dev->index]; p++) {
		int link = fabric->port_link[dev->index][p];

		if (link < 0)
			continue;
		if (!tern_load_u32(&fabric->links[link].up))
			reasons |= DRM_TERN_HEALTH_REASON_LINK_DOWN;
		if (tern_counter_read(&fabric->links[link].errors))
			reasons |= DRM_TERN_HEALTH_REASON_LINK_ERRORS;
	}
	for (unsigned int e = 0; e < MACHINE_ENGINES; e++) {
		struct machine_engine *engine = &dev->engines[e];
		uint64_t hang_resets;

		if (atomic_load(&engine->hung))
			reasons |= DRM_TERN_HEALTH_REASON_ENGINE_HUNG;
		pthread_mutex_lock(&engine->lock);
		hang_resets = engine->stats.hang_resets;
		pthread_mutex_unlock(&engine->lock);
		if (hang_resets)
			reasons |= DRM_TERN_HEALTH_REASON_ENGINE_RESET;
	}
	pthread_mutex_lock(&dev->lock);
	uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	if (uncorrected)
		reasons |= DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED;
	return reasons;
}

/* Sends @event to one follower, or counts it missed. Machine lock held. */
static void machine_event_send(struct machine_client *client,
			       tern_sim_event_t *event)
{
	struct sim_msg_header header = { SIM_MSG_EVENT, sizeof(*event) };
	struct iovec iov[2] = {
		{ &header, sizeof(header) }, { event, sizeof(*event) },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t sent;

	event->lost = client->events_lost;
	sent = sendmsg(client->sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (sent == (ssize_t)(sizeof(header) + sizeof(*event))) {
		client->events_lost = 0;
	} else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		client->events_lost++;
	} else if (sent >= 0) {
		/* Half a message (one this small goes whole or not at all). */
		shutdown(client->sock, SHUT_RDWR);
	}
}

void machine_announce(struct machine *m, tern_sim_event_t *event)
{
	pthread_mutex_lock(&m->lock);
	for (struct machine_client *c = m->clients; c; c = c->next)
		if (c->following)
			machine_event_send(c, event);
	pthread_mutex_unlock(&m->lock);
}

void machine_health_update(struct machine *m, struct machine_device *dev)
{
	uint32_t reasons = machine_health_reasons(m, dev);
	tern_sim_event_t event = {
		.kind = TERN_SIM_EVENT_HEALTH,
		.device = (uint32_t)dev->index,
		.health_reasons = reasons,
	};

	if (atomic_exchange(&dev->health_reasons, reasons) != reasons)
		machine_announce(m, &event);
}

void machine_link_event(struct machine *m, uint32_t device, uint32_t port,
			tern_sim_event_kind_t kind)
{
	const struct tern_fabric_link *link;
	int index = m->fabric.port_link[device][port];
	tern_sim_event_t event = { .kind = kind };

	if (index < 0)
		return;
	link = &m->fabric.links[index];
	event.link = (uint32_t)index;
	event.device_a = link->end[0].device;
	event.port_a = link->end[0].port;
	event.device_b = link->end[1].device;
	event.port_b = link->end[1].port;
	event.link_up = tern_load_u32(&link->up) != 0;
	event.link_errors = tern_counter_read(&link->errors);
	machine_announce(m, &event);
	machine_health_update(m, &m->devices[link->end[0].device]);
	machine_health_update(m, &m->devices[link->end[1].device]);
}

void machine_mem_error_event(struct machine_device *dev, bool uncorrectable,
			     uint64_t offset)
{
	struct machine *m = dev->machine;
	tern_sim_event_t event = {
		.kind = TERN_SIM_EVENT_MEM_ERROR,
		.device = (uint32_t)dev->index,
		.mem_uncorrectable = uncorrectable,
		.mem_address = offset,
		.health_reasons = machine_health_reasons(m, dev),
	};

	pthread_mutex_lock(&dev->lock);
	event.mem_errors_corrected = dev->mem_errors_corrected;
	event.mem_errors_uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	machine_announce(m, &event);
	machine_health_update(m, dev);
}

void machine_reset_event(struct machine_engine *engine,
			 const struct machine_guilty *guilty)
{
	struct machine_device *dev = engine->dev;
	struct machine *m = dev->machine;
	tern_sim_event_t event = {
		.kind = TERN_SIM_EVENT_ENGINE_RESET,
		.device = (uint32_t)dev->index,
		.engine = engine->index,
		.engine_resets = guilty->resets,
		.guilty_client_id = guilty->client_id,
		.guilty_pid = guilty->pid,
		.health_reasons = machine_health_reasons(m, dev),
	};

	memcpy(event.guilty_comm, guilty->comm, sizeof(event.guilty_comm));
	machine_announce(m, &event);
	machine_health_update(m, dev);
}
