// SPDX-License-Identifier: MIT
/*
 * The Tern devices of the machine, found once by the supervisor: every
 * worker opens the same nodes again.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "../../uapi/nodes.h"
#include "fuzz.h"

static int remember(int fd, const char *path, void *ctx)
{
	struct fuzz_devices *devices = ctx;
	struct fuzz_device *dev = &devices->dev[devices->count];

	memset(&dev->info, 0, sizeof(dev->info));
	if (!drmIoctl(fd, DRM_IOCTL_TERN_GET_INFO, &dev->info)) {
		snprintf(dev->node, sizeof(dev->node), "%s", path);
		devices->count++;
	}
	close(fd);
	return devices->count == FUZZ_MAX_DEVICES;
}

unsigned int devices_find(struct fuzz_devices *devices)
{
	devices->count = 0;
	tern_nodes_each(remember, devices);
	return devices->count;
}
