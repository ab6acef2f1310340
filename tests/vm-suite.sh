#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The test suites that need tern.ko, run inside the test VM from the
# repository root with the module loaded (tests/vm/run-vm.sh -- tests/vm-suite.sh):
# the uapi tests, the fabric tests (on a ring), the conformance suite on
# the kernel backend, the compute bits against the simulator's, processes
# sharing devices, the Python module on it
# and, last, hot unplug.
#
# Prints each program's output, a RESULT line per suite (see
# tests/suite-lib.sh) and last "vm-suite: N passed, M failed"; exits non-zero
# on any failure. TERN_TEST_BUILD names the build directory (default build);
# TERN_TEST_SUITES, when set, the suites to run (e.g. "uapi fabric unplug").
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
build=${TERN_TEST_BUILD:-build}
TERN_TEST_LOGS=$(mktemp -d /tmp/tern-vm-suite.XXXXXX)
export TERN_TEST_LOGS
# The module is loaded: a suite that finds no device has failed.
export SUITE_SKIP_IS_FAIL=1
# A suite that hangs fails alone, well within the VM's own timeout, and
# says what it waited for.
export SUITE_TIMEOUT=${SUITE_TIMEOUT:-300}
export SUITE_STALL_DUMP=tests/vm/stall-dump.sh
# shellcheck source=tests/suite-lib.sh
. tests/suite-lib.sh

shopt -s nullglob
nodes=(/dev/accel/accel* /dev/dri/renderD*)
echo "vm-suite: kernel $(uname -r); device nodes: ${nodes[*]:-none}"

passed=0
failed=0
results=()

suite() {
	local name=$1 line
	shift
	case " ${TERN_TEST_SUITES:-$name} " in
	*" $name "*) ;;
	*) return ;;
	esac
	line=$(run_suite "$name" "$@")
	echo "---- $name output ----"
	cat "$TERN_TEST_LOGS/$name.log"
	echo "---- end of $name ----"
	echo "$line"
	results+=("$(head -n 1 <<<"$line")")
	passed=$((passed + $(sed -n 's/.* passed=\([0-9]*\).*/\1/p' <<<"$line" | head -n 1)))
	failed=$((failed + $(sed -n 's/.* failed=\([0-9]*\).*/\1/p' <<<"$line" | head -n 1)))
}

suite uapi env TERN_BACKEND=kernel "$build/tests/test_uapi"
# Fault injection and netlink: a ring of three or more mock devices.
topology=$(cat /sys/module/tern/parameters/mock_topology 2>/dev/null || echo auto)
if [ "$topology" = ring ] && [ "$(cat /sys/module/tern/parameters/mock_devices 2>/dev/null || echo 1)" -ge 3 ]; then
	suite fabric "$build/tests/test_fabric_ko"
fi
suite conformance env TERN_BACKEND=kernel "$build/tests/test_conformance"
# The compute instructions on millions of random elements: tern.ko's
# integers and the simulator's FPU give the same bits.
suite compute-bits sh tests/bits/compare.sh "$build"
# Two processes' collectives on the same devices, and a process killed
# beside a bystander: as on the simulator (tests/unit/test_sharing.c).
suite sharing env TERN_BACKEND=kernel TERN_TEST_SECONDS=15 \
	TERN_TEST_CYCLES=20 "$build/tests/test_sharing"
suite tools env TERN_BACKEND=kernel tests/tools/run.sh --kernel "$build"
# The Python module over tern.ko, where the build has it.
if [ -d "$build/python/tern" ]; then
	suite python env TERN_BACKEND=kernel PYTHONPATH="$build/python" \
		/usr/bin/python3 tests/python/kernel_check.py
fi
# Another device of the same module, when there is one: each device keeps
# its own memory and engines.
mock_devices=$(cat /sys/module/tern/parameters/mock_devices 2>/dev/null || echo 1)
if [ "$mock_devices" -ge 2 ]; then
	suite conformance-device1 env TERN_BACKEND=kernel TERN_TEST_DEVICE=1 \
		"$build/tests/test_conformance"
fi
# Last: unbinds a device and binds it again.
if [ "$mock_devices" -ge 2 ]; then
	suite unplug "$build/tests/test_unplug"
fi

echo
printf '%s\n' "${results[@]}" | sed 's/^RESULT /vm-suite: /'
echo "vm-suite: $passed passed, $failed failed"
[ "$failed" = 0 ]
