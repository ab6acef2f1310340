// SPDX-License-Identifier: MIT
/*
 * Entry point of the uapi tests: finds the first Tern node (or the one in
 * TERN_UAPI_NODE) and runs every group, or only the tests whose names
 * match TERN_TEST_FILTER (cmocka's pattern, * and ? as wildcards). Exits
 * 77 (skipped) when there is no Tern node at all.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "nodes.h"
#include "uapi.h"

#define EXIT_SKIPPED 77

static int is_tern_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int tern;

	if (fd < 0)
		return 0;
	tern = tern_node_is_tern(fd);
	close(fd);
	return tern;
}

static int take_first(int fd, const char *path, void *ctx)
{
	(void)ctx;
	close(fd);
	snprintf(uapi.node, sizeof(uapi.node), "%s", path);
	return 1;
}

static int find_node(void)
{
	const char *forced = getenv("TERN_UAPI_NODE");

	if (forced) {
		snprintf(uapi.node, sizeof(uapi.node), "%s", forced);
		return is_tern_node(uapi.node);
	}
	return tern_nodes_each(take_first, NULL);
}

int main(void)
{
	int failed = 0, fd;

	if (!find_node()) {
		printf("uapi: SKIP: no Tern device node (load tern.ko)\n");
		return EXIT_SKIPPED;
	}
	uapi.page_size = sysconf(_SC_PAGESIZE);
	fd = open(uapi.node, O_RDWR | O_CLOEXEC);
	if (fd < 0 || drmIoctl(fd, DRM_IOCTL_TERN_GET_INFO, &uapi.info)) {
		perror(uapi.node);
		return 1;
	}
	close(fd);
	printf("uapi: testing %s: %u engines (%u cores), %llu MiB, max submit %u bytes\n",
	       uapi.node, uapi.info.engine_count, uapi.info.core_count,
	       (unsigned long long)(uapi.info.device_memory_size >> 20),
	       uapi.info.max_submit_bytes);

	if (getenv("TERN_TEST_FILTER"))
		cmocka_set_test_filter(getenv("TERN_TEST_FILTER"));
	failed += uapi_info_bo_tests();
	failed += uapi_queue_submit_tests();
	failed += uapi_packet_tests();
	failed += uapi_job_tests();
	failed += uapi_topology_tests();
	failed += uapi_peer_tests();
	failed += uapi_reduce_tests();
	failed += uapi_robust_tests();
	failed += uapi_abort_tests();
	failed += uapi_ring_tests();
	failed += uapi_fair_tests();
	failed += uapi_compute_tests();
	return failed ? 1 : 0;
}
