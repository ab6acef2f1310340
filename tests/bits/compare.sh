#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The same compute on tern.ko and on the simulator, to the bit: runs
# test_compute_bits (millions of random elements through every compute
# instruction) on both backends and compares each instruction's digest.
# Run where tern.ko is loaded (the test VM: tests/vm-suite.sh). TAP
# output, then the summary lines tests/suite-lib.sh counts.
#
# Usage: tests/bits/compare.sh [BUILD_DIR]     (default: build)
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
trap 'rm -rf "$tmp"' EXIT

bits=$build/tests/test_compute_bits
# same LINE LINE: both there, and equal
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
run env TERN_BACKEND=kernel "$bits"
cp "$out" "$tmp/kernel"
check "tern.ko runs every instruction" rc_is 0
mkdir -m 700 "$tmp/sim"
run env TERN_BACKEND=sim TERN_SIM_DIR="$tmp/sim" TERN_SIM_CORES=2 \
	TERN_SIM_DEVICES=1 TERN_SIM_DAEMON="$build/tern-simd" "$bits"
cp "$out" "$tmp/simulator"
check "the simulator runs every instruction" rc_is 0
echo "# tern.ko:"
sed 's/^/#   /' "$tmp/kernel"
echo "# simulator:"
sed 's/^/#   /' "$tmp/simulator"
for op in dma matmul copy tensor_tensor tensor_scalar reduce activate; do
	k=$(grep "^$op " "$tmp/kernel")
	s=$(grep "^$op " "$tmp/simulator")
	check "$op: the same bits on both" same "$k" "$s"
done
tap_finish compute-bits
