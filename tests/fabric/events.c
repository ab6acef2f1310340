// SPDX-License-Identifier: MIT
/*
 * The "events" multicast group: a link going down or up and a link error
 * are announced with the link's attributes after the change, and the
 * health of both ends when it changes; a command that changes nothing
 * announces nothing. The kernel sends an event before the debugfs write
 * returns, so the waits below are bounds only.
 */
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "fabric.h"

/* Generous: events are queued before the write returns. */
#define EVENT_BOUND_MS	2000
#define NO_EVENT_BOUND_MS	200

static struct nl_sock *events;

static int events_setup(void **state)
{
	int family, group;

	fixture_setup(state);
	events = netlink_open(&family);
	group = genl_ctrl_resolve_grp(events, DRM_TERN_GENL_NAME, DRM_TERN_MCGRP_EVENTS);
	assert_true(group > 0);
	assert_int_equal(nl_socket_add_membership(events, group), 0);
	return 0;
}

static int events_teardown(void **state)
{
	nl_socket_free(events);
	events = NULL;
	return fixture_teardown(state);
}

/* The next link event; health events (test_event_link_health) skipped. */
static int next_link_event(int bound_ms, struct nl_reply *event)
{
	while (netlink_next(events, bound_ms, event))
		if (event->cmd != DRM_TERN_CMD_HEALTH_NTF)
			return 1;
	return 0;
}

static struct nl_reply next_event(void)
{
	struct nl_reply event;

	if (!next_link_event(EVENT_BOUND_MS, &event))
		fail_msg("no event within %d ms", EVENT_BOUND_MS);
	return event;
}

/* The event is about the link joining device 0's port 0 to device 1. */
static void assert_link01(const struct nl_reply *event)
{
	const uint64_t *a = event->attr;

	if (!((a[DRM_TERN_A_LINK_DEVICE_A] == 0 && a[DRM_TERN_A_LINK_PORT_A] == RING_NEXT &&
	       a[DRM_TERN_A_LINK_DEVICE_B] == 1 && a[DRM_TERN_A_LINK_PORT_B] == RING_PREV) ||
	      (a[DRM_TERN_A_LINK_DEVICE_A] == 1 && a[DRM_TERN_A_LINK_PORT_A] == RING_PREV &&
	       a[DRM_TERN_A_LINK_DEVICE_B] == 0 && a[DRM_TERN_A_LINK_PORT_B] == RING_NEXT)))
		fail_msg("event about %llu:%llu - %llu:%llu, want 0:0 - 1:1",
			 (unsigned long long)a[DRM_TERN_A_LINK_DEVICE_A],
			 (unsigned long long)a[DRM_TERN_A_LINK_PORT_A],
			 (unsigned long long)a[DRM_TERN_A_LINK_DEVICE_B],
			 (unsigned long long)a[DRM_TERN_A_LINK_PORT_B]);
	assert_true(event->has[DRM_TERN_A_LINK_INDEX]);
	assert_true(event->has[DRM_TERN_A_LINK_ERRORS]);
}

static void test_event_link_down(void **state)
{
	struct nl_reply event;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	event = next_event();
	assert_int_equal(event.cmd, DRM_TERN_CMD_LINK_STATE_NTF);
	assert_link01(&event);
	assert_int_equal(event.attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_DOWN);
}

static void test_event_link_up_from_other_end(void **state)
{
	struct nl_reply event;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	assert_int_equal(next_event().attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_DOWN);
	assert_int_equal(link_write(1, "1 up"), 0);
	event = next_event();
	assert_int_equal(event.cmd, DRM_TERN_CMD_LINK_STATE_NTF);
	assert_link01(&event);
	assert_int_equal(event.attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_UP);
}

static void test_event_none_without_change(void **state)
{
	struct nl_reply event;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	assert_int_equal(next_event().attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_DOWN);
	assert_int_equal(link_write(0, "0 down"), 0);
	assert_int_equal(link_write(1, "1 down"), 0);	/* the same link */
	if (next_link_event(NO_EVENT_BOUND_MS, &event))
		fail_msg("an event (command %u, state %llu) without a change",
			 event.cmd,
			 (unsigned long long)event.attr[DRM_TERN_A_LINK_STATE]);
	/* and the next change is the next event */
	assert_int_equal(link_write(0, "0 up"), 0);
	event = next_event();
	assert_int_equal(event.cmd, DRM_TERN_CMD_LINK_STATE_NTF);
	assert_int_equal(event.attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_UP);
}

static void test_event_link_error(void **state)
{
	struct drm_tern_port_info ports[RING_PORTS];
	struct nl_reply event;
	uint64_t errors;

	(void)state;
	uapi_topology(fabric.fd[0], ports, RING_PORTS);
	errors = ports[RING_NEXT].errors;
	assert_int_equal(link_write(0, "0 error"), 0);
	event = next_event();
	assert_int_equal(event.cmd, DRM_TERN_CMD_LINK_ERROR_NTF);
	assert_link01(&event);
	assert_int_equal(event.attr[DRM_TERN_A_LINK_ERRORS], errors + 1);
	assert_int_equal(event.attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_UP);
}

/* The next health event about @device, link events skipped. */
static struct nl_reply health_event(uint32_t device)
{
	struct nl_reply event;

	while (netlink_next(events, EVENT_BOUND_MS, &event))
		if (event.cmd == DRM_TERN_CMD_HEALTH_NTF &&
		    event.attr[DRM_TERN_A_DEV_INDEX] == device)
			return event;
	fail_msg("no health event about device %u within %d ms", device,
		 EVENT_BOUND_MS);
	return event;
}

/* Both ends of a link that goes down are degraded until it is up again. */
static void test_event_link_health(void **state)
{
	struct nl_reply event;

	(void)state;
	assert_int_equal(link_write(0, "0 down"), 0);
	for (uint32_t d = 0; d < 2; d++) {
		event = health_event(d);
		assert_int_equal(event.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_DEGRADED);
		assert_true(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
			    DRM_TERN_HEALTH_REASON_LINK_DOWN);
		assert_int_equal(sysfs_number(d, "health_reasons"),
				 event.attr[DRM_TERN_A_DEV_HEALTH_REASONS]);
	}
	assert_int_equal(link_write(0, "0 up"), 0);
	for (uint32_t d = 0; d < 2; d++) {
		event = health_event(d);
		assert_false(event.attr[DRM_TERN_A_DEV_HEALTH_REASONS] &
			     DRM_TERN_HEALTH_REASON_LINK_DOWN);
	}
}

/* An error on a link is a lasting reason at both ends. */
static void test_event_link_error_health(void **state)
{
	(void)state;
	assert_int_equal(link_write(0, "0 error"), 0);
	for (uint32_t d = 0; d < 2; d++) {
		char health[32];

		assert_true(sysfs_number(d, "health_reasons") &
			    DRM_TERN_HEALTH_REASON_LINK_ERRORS);
		sysfs_string(d, "health", health, sizeof(health));
		assert_string_equal(health, "degraded");
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, events_setup, events_teardown)

int event_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_event_link_down),
		T(test_event_link_up_from_other_end),
		T(test_event_none_without_change),
		T(test_event_link_error),
		T(test_event_link_health),
		T(test_event_link_error_health),
	};

	return cmocka_run_group_tests_name("fabric_events", tests, NULL, NULL);
}
