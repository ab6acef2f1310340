// SPDX-License-Identifier: MIT
/*
 * Ring orders from the topology. A collective's data is split across the
 * rings (channels), so the best plan is a set of rings whose steps are
 * single hops and which together load every directed link the same:
 *
 * - a complete KxK torus: two edge-disjoint Hamiltonian cycles ("east K-1
 *   steps, then south" and "south K-1 steps, then east", which between
 *   them use every link once), each run both ways: four rings, every
 *   directed link carries exactly one of them;
 * - another complete RxC torus: a row-major snake (X links) and a
 *   column-major snake (Y links), both ways;
 * - anything else (a ring, a fully connected machine, part of a machine):
 *   a walk that follows direct links where it can and jumps where it
 *   cannot, run both ways. On a ring topology the walk is the ring.
 *
 * Torus ports are numbered east, west, south, north (model/
 * tern_fabric.h), which is how the grid is recovered from the ports.
 * What the planner knows of each rank's device is its coll_node
 * (coll_describe), which the bootstrap carries between processes.
 */
#include <string.h>

#include "coll/fabric/internal.h"
#include "submit.h"

#define COLL_EAST	0
#define COLL_SOUTH	2

tern_status_t coll_describe(struct tern_device *dev, struct coll_node *node)
{
	tern_port_info_t ports[16];
	uint32_t count = 0;
	tern_status_t status;

	memset(node, 0, sizeof(*node));
	node->fabric_id = tern_device_fabric_id(dev);
	coll_forced_algo(&node->algo);
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_FABRIC))
		return TERN_SUCCESS;
	status = tern_device_get_ports(dev, ports, 16, &count);
	if (status)
		return status;
	node->port_count = count < 16 ? count : 16;
	for (uint32_t p = 0; p < node->port_count; p++) {
		node->neighbour[p] = ports[p].state == TERN_LINK_UNCONNECTED ?
				     -1 : ports[p].peer_device;
		node->latency_ns[p] = ports[p].latency_ns;
		node->bandwidth[p] = ports[p].state == TERN_LINK_UP ?
				     ports[p].bandwidth : 0;
	}
	return TERN_SUCCESS;
}


/* Rank of fabric id @id in the comm, or -1. */
static int coll_rank_of(const struct tern_comm *comm,
			const struct coll_node *nodes, int id)
{
	for (int r = 0; r < comm->nranks; r++)
		if (nodes[r].fabric_id == id)
			return r;
	return -1;
}

/* Rank on @port of rank @r, or -1 if none or not in the comm. */
static int coll_step(const struct tern_comm *comm,
		     const struct coll_node *nodes, int r, uint32_t port)
{
	if (r < 0 || port >= nodes[r].port_count || port >= 16)
		return -1;
	return coll_rank_of(comm, nodes, nodes[r].neighbour[port]);
}

/* Length of the cycle from rank 0 along @port, or 0 if it is not one. */
static int coll_cycle_length(const struct tern_comm *comm,
			     const struct coll_node *nodes, uint32_t port)
{
	int r = 0, len = 0;

	do {
		r = coll_step(comm, nodes, r, port);
		len++;
		if (r < 0 || len > comm->nranks)
			return 0;
	} while (r != 0);
	return len;
}

/* Fills @grid (rows x cols ranks) if the comm is a complete torus. */
static bool coll_torus_grid(const struct tern_comm *comm,
			    const struct coll_node *nodes, int *rows,
			    int *cols, int grid[COLL_MAX_RANKS])
{
	bool seen[COLL_MAX_RANKS] = { false };
	int r_count, c_count, row_start = 0;

	c_count = coll_cycle_length(comm, nodes, COLL_EAST);
	r_count = coll_cycle_length(comm, nodes, COLL_SOUTH);
	if (c_count < 2 || r_count < 2 || c_count * r_count != comm->nranks)
		return false;
	for (int y = 0; y < r_count; y++) {
		int r = row_start;

		for (int x = 0; x < c_count; x++) {
			if (r < 0 || seen[r])
				return false;
			seen[r] = true;
			grid[y * c_count + x] = r;
			r = coll_step(comm, nodes, r, COLL_EAST);
		}
		row_start = coll_step(comm, nodes, row_start, COLL_SOUTH);
	}
	*rows = r_count;
	*cols = c_count;
	return true;
}

/* Adds a ring unless an equal one is there (two ranks: both ways agree). */
static void coll_add_ring(struct tern_comm *comm, const int *order)
{
	size_t bytes = sizeof(int) * (size_t)comm->nranks;

	for (int c = 0; c < comm->nchannels; c++)
		if (memcmp(comm->ring[c], order, bytes) == 0)
			return;
	memcpy(comm->ring[comm->nchannels++], order, bytes);
}

static void coll_add_both_ways(struct tern_comm *comm, const int *order)
{
	int rev[COLL_MAX_RANKS];
	int n = comm->nranks;

	coll_add_ring(comm, order);
	for (int i = 0; i < n; i++)
		rev[i] = order[(n - i) % n];
	coll_add_ring(comm, rev);
}

static void coll_plan_torus(struct tern_comm *comm, int rows, int cols,
			    const int *grid)
{
	int a[COLL_MAX_RANKS], b[COLL_MAX_RANKS];
	int i = 0;

	if (rows == cols && rows > 2) {
		const int k = rows;

		/* Round j visits row j from column -j (and column j from row -j). */
		for (int j = 0; j < k; j++) {
			for (int t = 0; t < k; t++, i++) {
				a[i] = grid[j * k + (t - j + k) % k];
				b[i] = grid[((t - j + k) % k) * k + j];
			}
		}
	} else {
		for (int y = 0; y < rows; y++)
			for (int x = 0; x < cols; x++, i++)
				a[i] = grid[y * cols + (y % 2 ? cols - 1 - x : x)];
		i = 0;
		for (int x = 0; x < cols; x++)
			for (int y = 0; y < rows; y++, i++)
				b[i] = grid[(x % 2 ? rows - 1 - y : y) * cols + x];
	}
	coll_add_both_ways(comm, a);
	coll_add_both_ways(comm, b);
}

static void coll_plan_walk(struct tern_comm *comm,
			   const struct coll_node *nodes)
{
	bool seen[COLL_MAX_RANKS] = { false };
	int order[COLL_MAX_RANKS];
	int n = comm->nranks, cur = 0;

	order[0] = 0;
	seen[0] = true;
	for (int i = 1; i < n; i++) {
		int next = -1;

		for (uint32_t p = 0; p < nodes[cur].port_count && next < 0; p++) {
			int r = coll_step(comm, nodes, cur, p);

			if (r >= 0 && !seen[r])
				next = r;
		}
		for (int r = 0; next < 0 && r < n; r++)
			if (!seen[r])
				next = r;
		order[i] = next;
		seen[next] = true;
		cur = next;
	}
	coll_add_both_ways(comm, order);
}

/*
 * Ring blocks in flight at once: two, or one where two rings share a link,
 * so that a wave sends any one peer fewer chunks than COLL_SLOTS (see
 * ring.c). Every rank plans the same rings, so gets the same.
 */
static int coll_ring_overlap(const struct tern_comm *comm)
{
	const int n = comm->nranks;
	int share = 1;

	/* The most rings in which one rank sends to one same next rank. */
	for (int i = 0; i < n && comm->nchannels > 1; i++) {
		for (int c = 0; c < comm->nchannels; c++) {
			int r = comm->ring[c][i], next = comm->ring[c][(i + 1) % n];
			int same = 0;

			for (int d = 0; d < comm->nchannels; d++)
				for (int j = 0; j < n; j++)
					if (comm->ring[d][j] == r &&
					    comm->ring[d][(j + 1) % n] == next)
						same++;
			if (same > share)
				share = same;
		}
	}
	/* Two at most: a third costs the engine more than the link gains. */
	return 2 * share < (int)COLL_SLOTS ? 2 : 1;
}

/*
 * Fills comm->grid, dims and side[] if the ranks form a complete torus of
 * two or three dimensions: from rank 0, ports 0, 2 and 4 lead one step
 * along each, round cycles, and every rank's ports lead to the grid's
 * next ranks. A third dimension is one where port 4 leads round a cycle
 * of the comm's own ranks (the UltraServer's instances).
 */
static void coll_plan_grid(struct tern_comm *comm, const struct coll_node *nodes)
{
	static const uint32_t port[COLL_TORUS_DIMS] = { 0, 2, 4 };
	bool seen[COLL_MAX_RANKS] = { false };
	int side[COLL_TORUS_DIMS] = { 1, 1, 1 }, dims = 0, total = 1;
	int stride[COLL_TORUS_DIMS] = { 1, 1, 1 };

	comm->dims = 0;
	comm->slow_last = false;
	for (int d = 0; d < COLL_TORUS_DIMS; d++) {
		int len = coll_cycle_length(comm, nodes, port[d]);

		if (len < 2)
			break;
		side[d] = len;
		total *= len;
		dims++;
	}
	if (dims < 2 || total != comm->nranks)
		return;
	/* Lay out the grid from rank 0, +1 along each dimension in turn. */
	stride[1] = side[0];
	stride[2] = side[0] * side[1];
	comm->grid[0] = 0;
	seen[0] = true;
	for (int c = 1; c < total; c++) {
		/* a step along the first dimension whose index is not 0 */
		int d = 0;

		while ((c / stride[d]) % side[d] == 0)
			d++;
		comm->grid[c] = coll_step(comm, nodes, comm->grid[c - stride[d]],
					  port[d]);
		if (comm->grid[c] < 0 || seen[comm->grid[c]])
			return;
		seen[comm->grid[c]] = true;
	}
	/* Every rank's every port leads to the grid's next rank. */
	memset(comm->dim_bandwidth, 0, sizeof(comm->dim_bandwidth));
	memset(comm->dim_latency_ns, 0, sizeof(comm->dim_latency_ns));
	for (int c = 0; c < total; c++) {
		for (int d = 0; d < dims; d++) {
			const struct coll_node *node = &nodes[comm->grid[c]];
			int at = (c / stride[d]) % side[d];
			int next = c + ((at + 1) % side[d] - at) * stride[d];

			if (coll_step(comm, nodes, comm->grid[c], port[d]) !=
			    comm->grid[next] || !node->bandwidth[port[d]])
				return;
			if (!comm->dim_bandwidth[d] ||
			    node->bandwidth[port[d]] < comm->dim_bandwidth[d])
				comm->dim_bandwidth[d] = node->bandwidth[port[d]];
			if (node->latency_ns[port[d]] > comm->dim_latency_ns[d])
				comm->dim_latency_ns[d] = node->latency_ns[port[d]];
		}
	}
	comm->dims = dims;
	for (int d = 0; d < COLL_TORUS_DIMS; d++)
		comm->side[d] = side[d];
	comm->slow_last = dims == 3 &&
			  comm->dim_bandwidth[2] < comm->dim_bandwidth[0] &&
			  comm->dim_bandwidth[2] < comm->dim_bandwidth[1];
}

/*
 * The chunk the torus's rings by dimension send: the narrowest slot a
 * neighbour along a dimension has at a rank. 0 where they cannot run: on
 * a side under three both ways round would be one neighbour.
 */
static uint64_t coll_torus_chunk(const struct tern_comm *comm)
{
	int stride[COLL_TORUS_DIMS] = { 1, comm->side[0],
					comm->side[0] * comm->side[1] };
	uint64_t slot = COLL_RING_CHUNK_BYTES;

	if (comm->dims < 2)
		return 0;
	for (int d = 0; d < comm->dims; d++)
		if (comm->side[d] < 3)
			return 0;
	for (int c = 0; c < comm->nranks; c++) {
		for (int d = 0; d < comm->dims; d++) {
			int at = (c / stride[d]) % comm->side[d];
			int next = comm->grid[c + ((at + 1) % comm->side[d] - at) *
						   stride[d]];
			int r = comm->grid[c];

			if (!coll_wide_slots(comm, r, next) ||
			    !coll_wide_slots(comm, next, r))
				slot = COLL_CHUNK_BYTES;
		}
	}
	return slot;
}

/*
 * Each part starts along a dimension of its own and takes the others in
 * turn, a part each way along each: every directed link carries one part
 * in every phase. Where the last dimension is the slow one, the parts go
 * round the others only, and along it last, when what is left of each is
 * a piece of a plane's share: the UltraServer's hierarchy (reduce-scatter
 * within each instance, all-reduce between them, all-gather within).
 */
int coll_torus_parts(const struct tern_comm *comm)
{
	return 2 * (comm->slow_last ? comm->dims - 1 : comm->dims);
}

int coll_torus_dim(const struct tern_comm *comm, int p, int k)
{
	const int turn = comm->slow_last ? comm->dims - 1 : comm->dims;

	if (comm->slow_last && k == comm->dims - 1)
		return comm->dims - 1;
	return (p / 2 + k) % turn;
}

int coll_grid_line(const struct tern_comm *comm, int d, int *group)
{
	const int stride[COLL_TORUS_DIMS] = { 1, comm->side[0],
					      comm->side[0] * comm->side[1] };
	int me = 0;

	for (int c = 0; c < comm->nranks; c++)
		if (comm->grid[c] == comm->rank)
			me = c;
	me -= (me / stride[d]) % comm->side[d] * stride[d];
	for (int i = 0; i < comm->side[d]; i++)
		group[i] = comm->grid[me + i * stride[d]];
	return comm->side[d];
}

void coll_plan_rings(struct tern_comm *comm, const struct coll_node *nodes)
{
	int grid[COLL_MAX_RANKS], rows, cols;

	comm->nchannels = 0;
	if (comm->nranks == 1) {
		int self = 0;

		coll_add_ring(comm, &self);
	} else if (coll_torus_grid(comm, nodes, &rows, &cols, grid)) {
		coll_plan_torus(comm, rows, cols, grid);
	} else {
		coll_plan_walk(comm, nodes);
	}
	for (int c = 0; c < comm->nchannels; c++)
		for (int i = 0; i < comm->nranks; i++)
			if (comm->ring[c][i] == comm->rank)
				comm->pos[c] = i;
	comm->ring_overlap = coll_ring_overlap(comm);
	coll_plan_slots(comm);
	coll_plan_grid(comm, nodes);
	comm->torus_chunk = coll_torus_chunk(comm);
}
