// SPDX-License-Identifier: MIT
/*
 * test_unload: the fence test first, which unloads tern.ko, then the
 * module parameter test, which needs it unloaded and leaves it so.
 */
#include <stddef.h>
#include <stdint.h>

#include "test.h"
#include "unload.h"

int main(void)
{
	int failed = unload_fence_tests();

	failed += unload_param_tests();
	return failed ? 1 : 0;
}
