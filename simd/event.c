// SPDX-License-Identifier: MIT
/*
 * What the machine announces, and a device's health, as tern.ko does
 * (driver/tern_health.c, tern_netlink_events.c), in the same messages
 * (netlink.h).
 *
 * Health follows from the device's state by the model's rule
 * (tern_health_reasons(), model/tern_state.h): a link of it down or
 * counting errors, an engine hung now or reset after a hang, an
 * uncorrectable memory error. Nobody clears a machine's health, so its
 * baseline is zero. Whatever can change one of these calls
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
#include "netlink.h"

uint32_t machine_health_reasons(struct machine *m, struct machine_device *dev)
{
	struct tern_health_input in = { 0 };

	tern_fabric_health_input(&m->fabric, (uint32_t)dev->index, &in);
	for (unsigned int e = 0; e < dev->engine_count; e++) {
		struct tern_state_engine engine;

		machine_engine_state(&dev->engines[e], &engine);
		tern_health_input_add_engine(&in, &engine);
	}
	pthread_mutex_lock(&dev->lock);
	in.mem_errors_uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	return tern_health_reasons(&in, NULL);
}

/* Sends @event to one follower, or counts it missed. Machine lock held. */
static void machine_event_send(struct machine_client *client,
			       const struct sim_nl *event)
{
	struct sim_msg_header header = {
		SIM_MSG_EVENT, (uint32_t)sizeof(struct sim_event) + event->len,
	};
	struct sim_event head = { .lost = client->events_lost };
	struct iovec iov[3] = {
		{ &header, sizeof(header) }, { &head, sizeof(head) },
		{ event->buf, event->len },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 3 };
	ssize_t sent;

	sent = sendmsg(client->sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (sent == (ssize_t)(sizeof(header) + header.size)) {
		client->events_lost = 0;
	} else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		client->events_lost++;
	} else if (sent >= 0) {
		/* Half a message (one this small goes whole or not at all). */
		shutdown(client->sock, SHUT_RDWR);
	}
}

/* Sends the message @event holds to every follower. */
static void machine_announce(struct machine *m, struct sim_nl *event)
{
	if (!sim_nl_end(event))
		return;		/* cannot happen: SIM_EVENT_MAX holds any */
	pthread_mutex_lock(&m->lock);
	for (struct machine_client *c = m->clients; c; c = c->next)
		if (c->following)
			machine_event_send(c, event);
	pthread_mutex_unlock(&m->lock);
}

/* Starts device event @cmd of @dev, with its health @reasons. */
static void machine_device_event(struct sim_nl *event, uint8_t *buf,
				 uint8_t cmd, struct machine_device *dev,
				 uint32_t reasons)
{
	sim_nl_init(event, buf, SIM_EVENT_MAX);
	sim_nl_begin(event, cmd);
	sim_nl_put_u32(event, DRM_TERN_A_DEV_INDEX, (uint32_t)dev->index);
	sim_nl_put_u32(event, DRM_TERN_A_DEV_HEALTH, tern_health_of(reasons));
	sim_nl_put_u32(event, DRM_TERN_A_DEV_HEALTH_REASONS, reasons);
}

void machine_health_update(struct machine *m, struct machine_device *dev)
{
	uint32_t reasons = machine_health_reasons(m, dev);
	uint8_t buf[SIM_EVENT_MAX];
	struct sim_nl event;

	if (atomic_exchange(&dev->health_reasons, reasons) == reasons)
		return;
	machine_device_event(&event, buf, DRM_TERN_CMD_HEALTH_NTF, dev,
			     reasons);
	machine_announce(m, &event);
}

void machine_link_event(struct machine *m, uint32_t device, uint32_t port,
			uint8_t cmd)
{
	int index = m->fabric.port_link[device][port];
	const struct tern_fabric_link *link;
	uint8_t buf[SIM_EVENT_MAX];
	struct sim_nl event;

	if (index < 0)
		return;
	link = &m->fabric.links[index];
	sim_nl_init(&event, buf, sizeof(buf));
	machine_link_message(&event, m, (uint32_t)index, cmd);
	machine_announce(m, &event);
	machine_health_update(m, &m->devices[link->end[0].device]);
	machine_health_update(m, &m->devices[link->end[1].device]);
}

void machine_mem_error_event(struct machine_device *dev, bool uncorrectable,
			     uint64_t offset)
{
	struct machine *m = dev->machine;
	uint8_t buf[SIM_EVENT_MAX];
	uint64_t corrected, uncorrected;
	struct sim_nl event;

	pthread_mutex_lock(&dev->lock);
	corrected = dev->mem_errors_corrected;
	uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	machine_device_event(&event, buf, DRM_TERN_CMD_MEM_ERROR_NTF, dev,
			     machine_health_reasons(m, dev));
	sim_nl_put_u32(&event, DRM_TERN_A_DEV_MEM_ERROR_KIND,
		       uncorrectable ? DRM_TERN_MEM_ERROR_UNCORRECTED :
				       DRM_TERN_MEM_ERROR_CORRECTED);
	sim_nl_put_u64(&event, DRM_TERN_A_DEV_MEM_ERROR_ADDR, offset);
	sim_nl_put_u64(&event, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED, corrected);
	sim_nl_put_u64(&event, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
		       uncorrected);
	machine_announce(m, &event);
	machine_health_update(m, dev);
}

void machine_reset_event(struct machine_engine *engine,
			 const struct machine_guilty *guilty)
{
	struct machine_device *dev = engine->dev;
	struct machine *m = dev->machine;
	uint8_t buf[SIM_EVENT_MAX];
	struct sim_nl event;

	machine_device_event(&event, buf, DRM_TERN_CMD_ENGINE_RESET_NTF, dev,
			     machine_health_reasons(m, dev));
	machine_put_engine(&event, engine, guilty);
	machine_announce(m, &event);
	machine_health_update(m, dev);
}
