/* SPDX-License-Identifier: MIT */
/*
 * test_unload: what happens around loading and unloading tern.ko, in a
 * VM boot of its own that keeps the module loaded for it
 * (tests/vm/run-vm.sh --keep-module -- build/tests/test_unload).
 */
#ifndef TERN_TEST_UNLOAD_H
#define TERN_TEST_UNLOAD_H

/* delete_module("tern"), not waiting: 0 or its errno. */
int unload_tern(void);

/* A job's sync_file kept across rmmod (fence_unload.c); unloads tern. */
int unload_fence_tests(void);
/* Loads with bad parameters fail (params.c); needs tern unloaded. */
int unload_param_tests(void);

#endif /* TERN_TEST_UNLOAD_H */
