/* SPDX-License-Identifier: MIT */
/*
 * The machine's Tern device nodes, found without cmocka so that the uapi
 * and fabric tests and tern-fuzz share one way of finding them: every
 * /dev/accel/accel* and /dev/dri/renderD* whose DRM driver is "tern".
 */
#ifndef TERN_TEST_NODES_H
#define TERN_TEST_NODES_H

/* 1 if @fd is a DRM file whose driver is "tern" (DRM_IOCTL_VERSION). */
int tern_node_is_tern(int fd);

/*
 * Calls @visit with a new read-write file of each Tern node, accel nodes
 * first, until it returns non-zero; @visit owns (and closes) the file.
 * Returns the last value @visit returned, 0 if it never ran.
 */
int tern_nodes_each(int (*visit)(int fd, const char *path, void *ctx),
		    void *ctx);

#endif /* TERN_TEST_NODES_H */
