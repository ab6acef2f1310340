/* SPDX-License-Identifier: MIT */
/*
 * What every cmocka test program of Tern includes first: cmocka, with
 * the headers it needs before it, and util.h (ARRAY_SIZE, the clock).
 */
#ifndef TERN_TEST_H
#define TERN_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#endif /* TERN_TEST_H */
