// SPDX-License-Identifier: MIT
/*
 * The fabric and peer memory: every device's ports agree with the links
 * their peers report (and, on the simulator, with TERN_SIM_TOPOLOGY for
 * several topologies, each run in a child process since the simulator
 * reads it once); a buffer exported on one device and imported on another
 * carries data both ways, and stays alive until both are freed; a 1-hop
 * transfer moves the link counters by exactly its bytes; a link taken down
 * makes a transfer fail with TERN_ERROR_NO_ROUTE, and up again it works.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance.h"
#include "tern_sim.h"

#define FABRIC_MAX_DEVICES	64
#define FABRIC_MAX_PORTS	16
#define PEER_BYTES		((256u << 10) + 40)	/* not a page multiple */

struct fabric_device {
	tern_device_t dev;
	tern_device_properties_t props;
};

static struct fabric_device devs[FABRIC_MAX_DEVICES];
static int dev_count;

static int fabric_open_all(void **state)
{
	int i, count = 0;

	(void)state;
	memset(devs, 0, sizeof(devs));
	if (tern_device_count(&count) || count < 1)
		return -1;
	dev_count = count < FABRIC_MAX_DEVICES ? count : FABRIC_MAX_DEVICES;
	for (i = 0; i < dev_count; i++)
		if (tern_device_open(i, &devs[i].dev) ||
		    tern_device_get_properties(devs[i].dev, &devs[i].props))
			return -1;
	return 0;
}

static int fabric_close_all(void **state)
{
	int i, failed = 0;

	(void)state;
	for (i = 0; i < dev_count; i++)
		if (devs[i].dev && tern_device_close(devs[i].dev))
			failed = 1;
	return failed ? -1 : 0;
}

/* Index of the device with @fabric_id, or -1. */
static int index_of_fabric_id(int fabric_id)
{
	for (int i = 0; i < dev_count; i++)
		if (devs[i].props.fabric_id == fabric_id)
			return i;
	return -1;
}

static uint32_t get_ports(int index, tern_port_info_t *ports)
{
	uint32_t count = 0, again = 0;

	assert_ok(tern_device_get_ports(devs[index].dev, NULL, 0, &count));
	assert_true(count <= FABRIC_MAX_PORTS);
	assert_ok(tern_device_get_ports(devs[index].dev, ports, count, &again));
	assert_int_equal(again, count);
	return count;
}

static void skip_without_peers(void)
{
	if (dev_count < 2 ||
	    !(devs[0].props.capabilities & TERN_DEVICE_CAP_PEER_MEMORY)) {
		print_message("skipped: needs two devices with peer memory\n");
		skip();
	}
}

/* Each port's link is seen from its other end, pointing back. */
static void test_ports_agree(void **state)
{
	tern_port_info_t ports[FABRIC_MAX_PORTS], peer[FABRIC_MAX_PORTS];

	(void)state;
	for (int i = 0; i < dev_count; i++) {
		uint32_t n = get_ports(i, ports);

		assert_int_equal(n, devs[i].props.fabric_port_count);
		assert_int_equal(!!n, !!(devs[i].props.capabilities &
					 TERN_DEVICE_CAP_FABRIC));
		for (uint32_t p = 0; p < n; p++) {
			int j;

			assert_int_equal(ports[p].port, p);
			if (ports[p].state == TERN_LINK_UNCONNECTED) {
				assert_int_equal(ports[p].peer_device, -1);
				continue;
			}
			assert_true(ports[p].state == TERN_LINK_UP ||
				    ports[p].state == TERN_LINK_DOWN);
			assert_true(ports[p].bandwidth > 0);
			j = index_of_fabric_id(ports[p].peer_device);
			assert_true(j >= 0);
			assert_true(ports[p].peer_port < get_ports(j, peer));
			assert_int_equal(peer[ports[p].peer_port].peer_device,
					 devs[i].props.fabric_id);
			assert_int_equal(peer[ports[p].peer_port].peer_port, p);
			assert_int_equal(peer[ports[p].peer_port].state,
					 ports[p].state);
		}
	}
}

/*
 * Child side of test_sim_topologies: prints each device's connected peers
 * in ascending order, "0:1,3 1:0,2 ...", or "invalid" when the simulator
 * refuses the configuration.
 */
int conformance_topology_child(void)
{
	tern_port_info_t ports[FABRIC_MAX_PORTS];
	int count = 0;

	if (tern_device_count(&count) == TERN_ERROR_INVALID_ARGUMENT) {
		printf("invalid\n");
		return 0;
	}
	if (fabric_open_all(NULL))
		return 1;
	for (int i = 0; i < dev_count; i++) {
		int peers[FABRIC_MAX_PORTS], np = 0;
		uint32_t n = 0;

		if (tern_device_get_ports(devs[i].dev, ports, FABRIC_MAX_PORTS,
					  &n) || n > FABRIC_MAX_PORTS)
			return 1;
		for (uint32_t p = 0; p < n; p++) {
			int at = np++;

			if (ports[p].state == TERN_LINK_UNCONNECTED) {
				np--;
				continue;
			}
			while (at > 0 && peers[at - 1] > ports[p].peer_device) {
				peers[at] = peers[at - 1];
				at--;
			}
			peers[at] = ports[p].peer_device;
		}
		printf("%s%d:", i ? " " : "", devs[i].props.fabric_id);
		for (int k = 0; k < np; k++)
			printf("%s%d", k ? "," : "", peers[k]);
	}
	printf("\n");
	return fabric_close_all(NULL) ? 1 : 0;
}

/* Runs the topology child with @devices and @topology; its output. */
static void run_topology_child(const char *devices, const char *topology,
			       char *out, size_t size)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		setenv("TERN_BACKEND", "sim", 1);
		setenv("TERN_SIM_DEVICES", devices, 1);
		if (topology)
			setenv("TERN_SIM_TOPOLOGY", topology, 1);
		else
			unsetenv("TERN_SIM_TOPOLOGY");
		execl("/proc/self/exe", "test_conformance", "--topology",
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < size - 1 &&
	       (n = read(pipefd[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("topology child (%s devices, %s) failed: 0x%x",
			 devices, topology ? topology : "default", status);
	if (got && out[got - 1] == '\n')
		out[got - 1] = '\0';
}

static void test_sim_topologies(void **state)
{
	static const struct {
		const char *devices, *topology, *want;
	} cases[] = {
		{ "4", NULL, "0:1,1,2,2 1:0,0,3,3 2:0,0,3,3 3:1,1,2,2" },
		{ "4", "auto", "0:1,1,2,2 1:0,0,3,3 2:0,0,3,3 3:1,1,2,2" },
		{ "5", NULL, "0:1,4 1:0,2 2:1,3 3:2,4 4:0,3" },
		{ "5", "ring", "0:1,4 1:0,2 2:1,3 3:2,4 4:0,3" },
		{ "2", "ring", "0:1,1 1:0,0" },
		{ "6", "torus:2x3",
		  "0:1,2,3,3 1:0,2,4,4 2:0,1,5,5 3:0,0,4,5 4:1,1,3,5 5:2,2,3,4" },
		{ "4", "full", "0:1,2,3 1:0,2,3 2:0,1,3 3:0,1,2" },
		{ "3", "custom:0-1,1-2", "0:1 1:0,2 2:1" },
		{ "3", "none", "0: 1: 2:" },
		{ "1", NULL, "0:" },
		{ "4", "torus:3x3", "invalid" },
		{ "4", "mesh", "invalid" },
		{ "20", "full", "invalid" },
		{ "3", "custom:0-5", "invalid" },
	};
	char out[1024];

	(void)state;
	if (conf.backend != TERN_BACKEND_SIM) {
		print_message("skipped: TERN_SIM_TOPOLOGY is the simulator's\n");
		skip();
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		run_topology_child(cases[i].devices, cases[i].topology, out,
				   sizeof(out));
		if (strcmp(out, cases[i].want))
			fail_msg("%s devices, TERN_SIM_TOPOLOGY=%s: got \"%s\", want \"%s\"",
				 cases[i].devices,
				 cases[i].topology ? cases[i].topology : "(unset)",
				 out, cases[i].want);
	}
}

/* A mapped device buffer of @bytes on device @index. */
static tern_buffer_t alloc_on(int index, tern_memory_kind_t kind, size_t bytes,
			      uint8_t **cpu)
{
	tern_buffer_t buf;
	void *ptr;

	assert_ok(tern_buffer_alloc(devs[index].dev, kind, bytes, &buf));
	assert_ok(tern_buffer_map(buf, &ptr));
	*cpu = ptr;
	return buf;
}

/* Device @to's import of device @from's @buf. */
static tern_buffer_t import_on(int to, tern_buffer_t buf)
{
	tern_buffer_t imported;
	int fd = -1;

	assert_ok(tern_buffer_export(buf, &fd));
	assert_true(fd >= 0);
	assert_ok(tern_buffer_import(devs[to].dev, fd, &imported));
	assert_int_equal(close(fd), 0);
	return imported;
}

static void assert_same(const uint8_t *got, const uint8_t *want, size_t bytes,
			const char *what)
{
	for (size_t i = 0; i < bytes; i++)
		if (got[i] != want[i])
			fail_msg("%s: byte %zu is 0x%02x, want 0x%02x", what, i,
				 got[i], want[i]);
}

/*
 * Device 0 writes into device 1's memory through an import, device 1 reads
 * it back; then device 0 reads device 1's memory into its own.
 */
static void test_peer_copy(void **state)
{
	uint8_t *peer_cpu, *src_cpu, *back_cpu, *want;
	tern_buffer_t peer, imported, src, back;
	tern_stream_t stream0, stream1;
	size_t size;

	(void)state;
	skip_without_peers();
	want = malloc(PEER_BYTES);
	assert_non_null(want);
	conf_fill_random(want, PEER_BYTES, 31);

	peer = alloc_on(1, TERN_MEMORY_DEVICE, PEER_BYTES, &peer_cpu);
	memset(peer_cpu, 0, PEER_BYTES);
	imported = import_on(0, peer);
	assert_ok(tern_buffer_size(imported, &size));
	assert_true(size >= PEER_BYTES);
	src = alloc_on(0, TERN_MEMORY_DEVICE, PEER_BYTES, &src_cpu);
	memcpy(src_cpu, want, PEER_BYTES);
	back = alloc_on(0, TERN_MEMORY_DEVICE, PEER_BYTES, &back_cpu);
	memset(back_cpu, 0, PEER_BYTES);

	assert_ok(tern_stream_create(devs[0].dev, &stream0));
	assert_ok(tern_stream_create(devs[1].dev, &stream1));
	assert_ok(tern_memcpy_async(imported, 0, src, 0, PEER_BYTES, stream0));
	assert_ok(tern_stream_synchronize(stream0));
	assert_same(peer_cpu, want, PEER_BYTES, "device 1's buffer");

	/* Device 1 changes its buffer; device 0 reads it over the fabric. */
	assert_ok(tern_memset_async(peer, 0, 0x5a, 4096, stream1));
	assert_ok(tern_stream_synchronize(stream1));
	memset(want, 0x5a, 4096);
	assert_ok(tern_memcpy_async(back, 0, imported, 0, PEER_BYTES, stream0));
	assert_ok(tern_stream_synchronize(stream0));
	assert_same(back_cpu, want, PEER_BYTES, "read back from device 1");

	assert_ok(tern_stream_destroy(stream0));
	assert_ok(tern_stream_destroy(stream1));
	assert_ok(tern_buffer_free(imported));
	assert_ok(tern_buffer_free(peer));
	assert_ok(tern_buffer_free(src));
	assert_ok(tern_buffer_free(back));
	free(want);
}

/* The exporter's buffer goes first: the import still reaches the memory. */
static void test_import_keeps_memory(void **state)
{
	uint64_t base, used, total;
	tern_buffer_t peer, imported, local;
	uint8_t *peer_cpu, *local_cpu;
	tern_stream_t stream;

	(void)state;
	skip_without_peers();
	assert_ok(tern_device_memory_usage(devs[1].dev, &base, &total));
	peer = alloc_on(1, TERN_MEMORY_DEVICE, 8192, &peer_cpu);
	memset(peer_cpu, 0x3c, 8192);
	imported = import_on(0, peer);
	assert_ok(tern_buffer_free(peer));
	assert_ok(tern_device_memory_usage(devs[1].dev, &used, &total));
	assert_true(used >= base + 8192);

	local = alloc_on(0, TERN_MEMORY_DEVICE, 8192, &local_cpu);
	memset(local_cpu, 0, 8192);
	assert_ok(tern_stream_create(devs[0].dev, &stream));
	assert_ok(tern_memcpy_async(local, 0, imported, 0, 8192, stream));
	assert_ok(tern_stream_synchronize(stream));
	conf_assert_bytes(local_cpu, 0x3c, 8192, "copied from a freed exporter");
	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(local));
	assert_ok(tern_buffer_free(imported));
	assert_ok(tern_device_memory_usage(devs[1].dev, &used, &total));
	assert_int_equal(used, base);
}

static void test_export_import_arguments(void **state)
{
	tern_buffer_t buf, imported = NULL;
	int fd, pipefd[2];

	(void)state;
	assert_status(tern_buffer_export(NULL, &fd), TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_buffer_alloc(devs[0].dev, TERN_MEMORY_DEVICE, 4096, &buf));
	assert_status(tern_buffer_export(buf, NULL), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_buffer_import(devs[0].dev, -1, &imported),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_buffer_import(NULL, 0, &imported),
		      TERN_ERROR_INVALID_ARGUMENT);
	/* A descriptor that names no Tern buffer. */
	assert_int_equal(pipe(pipefd), 0);
	assert_status(tern_buffer_import(devs[0].dev, pipefd[0], &imported),
		      TERN_ERROR_INVALID_ARGUMENT);
	close(pipefd[0]);
	close(pipefd[1]);
	assert_null(imported);
	/* Imported on its own device: the same memory. */
	if (devs[0].props.capabilities & TERN_DEVICE_CAP_PEER_MEMORY) {
		uint8_t *a, *b;
		void *p;

		assert_ok(tern_buffer_export(buf, &fd));
		assert_ok(tern_buffer_import(devs[0].dev, fd, &imported));
		assert_status(tern_buffer_import(devs[0].dev, fd, NULL),
			      TERN_ERROR_INVALID_ARGUMENT);
		close(fd);
		assert_ok(tern_buffer_map(buf, &p));
		a = p;
		assert_ok(tern_buffer_map(imported, &p));
		b = p;
		a[100] = 0x77;
		assert_int_equal(b[100], 0x77);
		assert_ok(tern_buffer_free(buf));
		assert_int_equal(b[100], 0x77);
		assert_ok(tern_buffer_free(imported));
	} else {
		assert_ok(tern_buffer_free(buf));
	}
}

/* Sums of each counter over device @index's ports. */
struct port_totals {
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
};

static struct port_totals totals_of(int index, const tern_port_info_t *ports,
				    uint32_t n)
{
	struct port_totals t = { 0 };

	(void)index;
	for (uint32_t p = 0; p < n; p++) {
		t.tx_bytes += ports[p].tx_bytes;
		t.rx_bytes += ports[p].rx_bytes;
		t.tx_packets += ports[p].tx_packets;
		t.rx_packets += ports[p].rx_packets;
	}
	return t;
}

/* A device joined to device 0 by an up link, or skip. */
static int direct_peer_of_0(void)
{
	tern_port_info_t ports[FABRIC_MAX_PORTS];
	uint32_t n = get_ports(0, ports);

	for (uint32_t p = 0; p < n; p++) {
		int j = index_of_fabric_id(ports[p].peer_device);

		if (ports[p].state == TERN_LINK_UP && j > 0)
			return j;
	}
	print_message("skipped: device 0 has no up link to another device\n");
	skip();
	return -1;
}

/*
 * Device 0 writes @bytes into a direct peer's memory: device 0's ports send
 * exactly that many bytes, the peer's receive them, nothing flows back.
 */
static void test_link_counters(void **state)
{
	tern_port_info_t before0[FABRIC_MAX_PORTS], after0[FABRIC_MAX_PORTS];
	tern_port_info_t beforep[FABRIC_MAX_PORTS], afterp[FABRIC_MAX_PORTS];
	struct port_totals b0, a0, bp, ap;
	tern_buffer_t peer, imported, src;
	uint8_t *peer_cpu, *src_cpu;
	tern_stream_t stream;
	uint32_t n0, np;
	int p;

	(void)state;
	skip_without_peers();
	p = direct_peer_of_0();
	peer = alloc_on(p, TERN_MEMORY_DEVICE, PEER_BYTES, &peer_cpu);
	imported = import_on(0, peer);
	src = alloc_on(0, TERN_MEMORY_DEVICE, PEER_BYTES, &src_cpu);
	conf_fill_random(src_cpu, PEER_BYTES, 7);
	assert_ok(tern_stream_create(devs[0].dev, &stream));

	n0 = get_ports(0, before0);
	np = get_ports(p, beforep);
	assert_ok(tern_memcpy_async(imported, 0, src, 0, PEER_BYTES, stream));
	assert_ok(tern_stream_synchronize(stream));
	assert_int_equal(get_ports(0, after0), n0);
	assert_int_equal(get_ports(p, afterp), np);

	b0 = totals_of(0, before0, n0);
	a0 = totals_of(0, after0, n0);
	bp = totals_of(p, beforep, np);
	ap = totals_of(p, afterp, np);
	assert_int_equal(a0.tx_bytes - b0.tx_bytes, PEER_BYTES);
	assert_int_equal(a0.rx_bytes - b0.rx_bytes, 0);
	assert_int_equal(ap.rx_bytes - bp.rx_bytes, PEER_BYTES);
	assert_int_equal(ap.tx_bytes - bp.tx_bytes, 0);
	assert_true(a0.tx_packets > b0.tx_packets);
	assert_int_equal(a0.tx_packets - b0.tx_packets,
			 ap.rx_packets - bp.rx_packets);
	/* Only links between the two moved. */
	for (uint32_t k = 0; k < n0; k++)
		if (after0[k].tx_bytes != before0[k].tx_bytes)
			assert_int_equal(index_of_fabric_id(after0[k].peer_device),
					 p);
	assert_same(peer_cpu, src_cpu, PEER_BYTES, "peer buffer");

	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(imported));
	assert_ok(tern_buffer_free(peer));
	assert_ok(tern_buffer_free(src));
}

/* Sets every port of device 0 up or down. */
static void set_links_of_0(int up)
{
	for (uint32_t port = 0; port < devs[0].props.fabric_port_count; port++)
		assert_ok(tern_sim_set_link(0, port, up));
}

static int restore_links(void **state)
{
	(void)state;
	if (conf.backend == TERN_BACKEND_SIM && dev_count > 0)
		for (uint32_t port = 0;
		     port < devs[0].props.fabric_port_count; port++)
			tern_sim_set_link(0, port, 1);
	return 0;
}

/* With every link of device 0 down its peers are unreachable, and back. */
static void test_link_down(void **state)
{
	tern_port_info_t ports[FABRIC_MAX_PORTS];
	tern_buffer_t peer, imported, src;
	uint8_t *peer_cpu, *src_cpu;
	tern_stream_t stream;
	uint32_t n;
	int p;

	(void)state;
	if (conf.backend != TERN_BACKEND_SIM) {
		assert_status(tern_sim_set_link(0, 0, 0),
			      TERN_ERROR_NOT_SUPPORTED);
		print_message("skipped: links go down through tern.ko's debugfs, covered by the VM suite\n");
		skip();
	}
	skip_without_peers();
	p = direct_peer_of_0();
	peer = alloc_on(p, TERN_MEMORY_DEVICE, PEER_BYTES, &peer_cpu);
	memset(peer_cpu, 0, PEER_BYTES);
	imported = import_on(0, peer);
	src = alloc_on(0, TERN_MEMORY_DEVICE, PEER_BYTES, &src_cpu);
	memset(src_cpu, 0xc3, PEER_BYTES);
	assert_ok(tern_stream_create(devs[0].dev, &stream));

	set_links_of_0(0);
	n = get_ports(0, ports);
	for (uint32_t k = 0; k < n; k++)
		assert_true(ports[k].state != TERN_LINK_UP);
	assert_ok(tern_memcpy_async(imported, 0, src, 0, PEER_BYTES, stream));
	assert_status(tern_stream_synchronize(stream), TERN_ERROR_NO_ROUTE);
	conf_assert_bytes(peer_cpu, 0, PEER_BYTES, "unreachable peer");
	/* The stream goes on: local work still runs. */
	assert_ok(tern_memset_async(src, 0, 0xc3, 16, stream));
	assert_ok(tern_stream_synchronize(stream));

	set_links_of_0(1);
	assert_ok(tern_memcpy_async(imported, 0, src, 0, PEER_BYTES, stream));
	assert_ok(tern_stream_synchronize(stream));
	conf_assert_bytes(peer_cpu, 0xc3, PEER_BYTES, "peer after links up");

	assert_status(tern_sim_set_link(0, 99, 0), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_set_link(-1, 0, 0), TERN_ERROR_INVALID_DEVICE);

	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(imported));
	assert_ok(tern_buffer_free(peer));
	assert_ok(tern_buffer_free(src));
}

static void test_port_arguments(void **state)
{
	tern_port_info_t ports[1];
	uint32_t count;

	(void)state;
	assert_status(tern_device_get_ports(NULL, ports, 1, &count),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_device_get_ports(devs[0].dev, ports, 1, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_device_get_ports(devs[0].dev, NULL, 1, &count),
		      TERN_ERROR_INVALID_ARGUMENT);
}

int conformance_fabric_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports_agree),
		cmocka_unit_test(test_port_arguments),
		cmocka_unit_test(test_sim_topologies),
		cmocka_unit_test(test_export_import_arguments),
		cmocka_unit_test(test_peer_copy),
		cmocka_unit_test(test_import_keeps_memory),
		cmocka_unit_test(test_link_counters),
		cmocka_unit_test_teardown(test_link_down, restore_links),
	};
	int failed;

	if (conformance_open(NULL))
		return 1;
	if (fabric_open_all(NULL)) {
		fabric_close_all(NULL);
		conformance_close(NULL);
		return 1;
	}
	failed = cmocka_run_group_tests_name("conformance_fabric", tests,
					     NULL, NULL);
	if (fabric_close_all(NULL))
		failed++;
	if (conformance_close(NULL))
		failed++;
	return failed;
}
