/* SPDX-License-Identifier: MIT */
/*
 * test_unload: what happens around loading and unloading tern.ko, in a
 * VM boot of its own that keeps the module loaded for it
 * (tests/vm/run-vm.sh --keep-module -- build/tests/test_unload), and
 * devices of parameters no other suite loads.
 */
#ifndef TERN_TEST_UNLOAD_H
#define TERN_TEST_UNLOAD_H

#include <stdint.h>

/* delete_module("tern"), not waiting: 0 or its errno. */
int unload_tern(void);

#define UNLOAD_MAX_DEVICES	64

/*
 * A DEVICE_GET dump of the "tern" netlink family (netlink.c): the devices
 * it reported, and the engine nests of each of the first @max in
 * @engines. Fails the test on an error.
 */
uint32_t unload_netlink_engines(uint32_t *engines, uint32_t max);

/* A job's sync_file kept across rmmod (fence_unload.c); unloads tern. */
int unload_fence_tests(void);
/*
 * Loads with bad parameters fail, the most engines are reported whole
 * (params.c); needs tern unloaded.
 */
int unload_param_tests(void);

#endif /* TERN_TEST_UNLOAD_H */
