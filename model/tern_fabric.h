/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The Tern fabric model: devices, ports, the links that join them, routes
 * over links that are up, and per-link traffic counters.
 *
 * One struct tern_fabric describes every device of a mock (or simulated)
 * machine. It is plain data: the kernel and the simulator each keep one and
 * pass it to the device model, which routes and counts every access a
 * packet makes to another device's memory.
 */
#ifndef TERN_FABRIC_H
#define TERN_FABRIC_H

#include "tern_model_port.h"

#define TERN_FABRIC_MAX_DEVICES		64
#define TERN_FABRIC_MAX_PORTS		16
#define TERN_FABRIC_MAX_LINKS \
	(TERN_FABRIC_MAX_DEVICES * TERN_FABRIC_MAX_PORTS / 2)
#define TERN_FABRIC_MAX_HOPS		TERN_FABRIC_MAX_DEVICES
#define TERN_FABRIC_SPEC_MAX		256

/*
 * Nominal figures of one link, as on a Trainium2-class chip: four links
 * of 256 GB/s each way give a chip 1,024 GB/s to its torus neighbours.
 * The links between the instances of an UltraServer (trn2-ultra) are
 * slower and farther: two per chip, 256 GB/s between them.
 */
#define TERN_FABRIC_LINK_BANDWIDTH	(256ull * 1000 * 1000 * 1000)
#define TERN_FABRIC_LINK_LATENCY_NS	1500u
#define TERN_FABRIC_NODE_BANDWIDTH	(128ull * 1000 * 1000 * 1000)
#define TERN_FABRIC_NODE_LATENCY_NS	2500u
/* Bounds of a link's figures in a custom spec: GB/s, and ns per hop. */
#define TERN_FABRIC_MAX_GBPS		100000u
#define TERN_FABRIC_MAX_LATENCY_NS	100000u

/* trn2-ultra: four 4x4 tori; ports 4 and 5 join the same chip of each. */
#define TERN_ULTRA_INSTANCES		4
#define TERN_ULTRA_CHIPS		16
#define TERN_ULTRA_UP			4
#define TERN_ULTRA_DOWN			5

/*
 * Torus ports: +x, -x, +y, -y, so port p and p ^ 1 face each other; device
 * id = row * cols + col. A dimension of size 2 has two parallel links
 * between the pair (EAST-WEST and WEST-EAST), as cabled chips would, so
 * every chip keeps 4 links; a dimension of size 1 has none (ports left
 * unconnected). Ring: port 0 to id + 1, port 1 to id - 1 (2 devices: two
 * parallel links). Full: port p of device d to device p < d ? p : p + 1.
 * Custom: each device numbers its ports in the order its links appear.
 */
enum tern_torus_port {
	TERN_TORUS_EAST = 0,
	TERN_TORUS_WEST = 1,
	TERN_TORUS_SOUTH = 2,
	TERN_TORUS_NORTH = 3,
};

struct tern_fabric_end {
	u16 device;
	u16 port;
};

/*
 * @up is read and written with tern_load_u32()/tern_store_u32(); counters
 * with tern_counter_*(): links change state and count traffic while
 * engines of several devices route over them.
 * Direction 0 is end[0] -> end[1], direction 1 the reverse.
 * @bandwidth (bytes/s each way) and @latency_ns (per hop) are the link's
 * nominal figures: what ports report and what the timing model charges.
 */
struct tern_fabric_link {
	struct tern_fabric_end end[2];
	u32 up;
	u32 latency_ns;
	u64 bandwidth;
	tern_counter_t bytes[2];
	tern_counter_t packets[2];
	tern_counter_t errors;
};

struct tern_fabric_hop {
	/* Two bytes: routes live on the engines' stacks, three at a time. */
	u16 link : 15;
	u16 dir : 1;
};

struct tern_fabric {
	u32 device_count;
	u32 link_count;
	/* normalized topology, e.g. "torus:4x4", "ring", "full", "custom:0-1,1-2" */
	char spec[TERN_FABRIC_SPEC_MAX];
	/* torus dimensions (rows, columns); 0 for other topologies */
	u32 rows, cols;
	u16 port_count[TERN_FABRIC_MAX_DEVICES];
	/* link on each port, -1 where none */
	s16 port_link[TERN_FABRIC_MAX_DEVICES][TERN_FABRIC_MAX_PORTS];
	struct tern_fabric_link links[TERN_FABRIC_MAX_LINKS];
};

/*
 * Builds the fabric of @devices devices (1..TERN_FABRIC_MAX_DEVICES) from
 * @spec: "none", "ring", "torus:RxC" (R * C == devices, wraparound in both
 * dimensions), "full" (every pair joined; at most TERN_FABRIC_MAX_PORTS + 1
 * devices), "custom:A-B,C-D,..." (ports given in order of appearance; a
 * link may carry its own figures, "A-B@GBPS" or "A-B@GBPS/NSns"), the
 * presets "trn2" (16 devices: torus:4x4) and "trn2-ultra" (64 devices:
 * four trn2 tori, device i * 16 + c joined to the same chip c of the next
 * and the previous torus on ports TERN_ULTRA_UP and TERN_ULTRA_DOWN, with
 * the node links' figures), or NULL/"" / "auto": torus:KxK when devices ==
 * K * K with K >= 2, otherwise a ring (none for one device). All links
 * start up with zero counters and, unless given, the nominal link figures.
 * Returns 0 or -EINVAL (unknown spec, wrong device count, too many ports).
 */
int tern_fabric_init(struct tern_fabric *fabric, u32 devices, const char *spec);

/* The device count a preset spec ("trn2", "trn2-ultra") has, else 0. */
u32 tern_fabric_preset_devices(const char *spec);

/*
 * Shortest route from device @from to device @to over links that are up,
 * ties broken the same way every time. Fills @hops (TERN_FABRIC_MAX_HOPS
 * entries) and returns the hop count (0 when @from == @to), or -ENOLINK
 * when no chain of up links joins them, -EINVAL for a bad device.
 */
int tern_fabric_route(const struct tern_fabric *fabric, u32 from, u32 to,
		      struct tern_fabric_hop *hops);

/*
 * Counts one transfer of @bytes on every link of a route; @reverse: the
 * bytes flow from the route's end back to its start.
 */
void tern_fabric_count(struct tern_fabric *fabric,
		       const struct tern_fabric_hop *hops, int hop_count,
		       bool reverse, u64 bytes);

/*
 * Sets the link on @device's @port up or down. Returns 1 if the state
 * changed, 0 if it already was so, -EINVAL if there is no such port or no
 * link on it.
 */
int tern_fabric_set_link(struct tern_fabric *fabric, u32 device, u32 port,
			 bool up);

/* Adds one error to the link on @device's @port; -EINVAL as above. */
int tern_fabric_link_error(struct tern_fabric *fabric, u32 device, u32 port);

/*
 * Port view from @device: peer device and port, state (enum
 * drm_tern_port_state), the link's figures and the counters seen from this
 * end (tx leaves @device); all zero but the state for an unconnected port. -EINVAL for a
 * bad device or port.
 */
struct tern_fabric_port_view {
	u32 state;
	u32 peer_device;
	u32 peer_port;
	u32 latency_ns;
	u64 bandwidth;
	u64 tx_bytes, rx_bytes, tx_packets, rx_packets, errors;
};

int tern_fabric_port_view(const struct tern_fabric *fabric, u32 device,
			  u32 port, struct tern_fabric_port_view *view);

#endif /* TERN_FABRIC_H */
