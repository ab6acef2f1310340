#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tern-fuzz inside the test VM, as root, from the repository root, with
# tern.ko loaded, and the kernel's verdict on it:
#
#   tests/vm/run-vm.sh --params "$FUZZ_VM_PARAMS" --append "$FUZZ_VM_APPEND" \
#       -- tests/fuzz/vm-fuzz.sh SECONDS [tern-fuzz options]
#
# (fuzz_vm in tests/fuzz/fuzz-lib.sh, which has those settings, does this.)
# It records each device's memory, buffers and clients (sysfs), runs
# build/tests/tern-fuzz for SECONDS with the options given (bounded: a
# fuzzer stuck in the kernel is reported, not waited for), waits (bounded)
# for every job to end, then checks that the fuzzer itself worked, that
# every device is back to where it started, and that the kernel log since
# the start has no WARNING, BUG, Oops, general protection fault, refcount
# or list corruption, hung task, RCU stall, UBSAN or KASAN report. TAP
# lines, cmocka-style counts (tests/suite-lib.sh) and last
# "RESULT fuzz PASS|FAIL passed=N failed=N skipped=0 seed=S ...".
# guest.sh then fails the run if the kernel was tainted or tern.ko would
# not unload. TERN_TEST_BUILD: the build directory (default build).
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
build=${TERN_TEST_BUILD:-build}
if [ "$#" -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
	echo "usage: tests/fuzz/vm-fuzz.sh SECONDS [tern-fuzz options]" >&2
	exit 2
fi
seconds=$1
shift
fuzz=$build/tests/tern-fuzz
# tern-fuzz takes up to a minute to reap what it killed, then gives up.
fuzz_bound=$((seconds + 120))
# Jobs end within the job timeout; engines reset within a few more.
drain_bound=60

# shellcheck source=tests/tap-lib.sh
. tests/tap-lib.sh
# shellcheck source=tests/fuzz/fuzz-lib.sh
. tests/fuzz/fuzz-lib.sh
tap_init
trap 'rm -rf "$tmp"' EXIT

log_mark=$(dmesg | wc -l)
kernel_log_since_start() {
	dmesg | tail -n +"$((log_mark + 1))"
}

shopt -s nullglob
devices=(/sys/bus/platform/devices/tern.*/tern)
# The counters that must come back: memory, buffers, open files.
snapshot() {
	local dir counter
	for dir in "${devices[@]}"; do
		for counter in mem_used_bytes mem_host_used_bytes buffers clients; do
			echo "${dir%/tern}/$counter $(cat "$dir/$counter")"
		done
	done
}

engines_idle() {
	local dir
	for dir in "${devices[@]}"; do
		[ "$(cat "$dir/engines_busy")" = 0 ] || return 1
	done
}

echo "vm-fuzz: kernel $(uname -r), ${#devices[@]} devices, $seconds s, hung task" \
	"timeout $(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo none) s"
baseline=$(snapshot)
check "Tern devices are there" test "${#devices[@]}" -gt 0

"$fuzz" --time "$seconds" --second-uid 65534 "$@" >"$tmp/fuzz.log" 2>&1 &
fuzz_pid=$!
for ((waited = 0; waited < fuzz_bound; waited++)); do
	kill -0 "$fuzz_pid" 2>/dev/null || break
	sleep 1
done
if kill -0 "$fuzz_pid" 2>/dev/null; then
	fuzz_rc=124
	kill -KILL "$fuzz_pid" 2>/dev/null
else
	wait "$fuzz_pid"
	fuzz_rc=$?
fi
echo "---- tern-fuzz output ----"
cat "$tmp/fuzz.log"
echo "---- end of tern-fuzz output ----"
seed=$(sed -n 's/^tern-fuzz: seed \([0-9]*\)$/\1/p' "$tmp/fuzz.log")
rate=$(sed -n 's/^tern-fuzz: \([0-9]* calls\) in .* s, \([0-9]* calls\/s\)$/\1, \2/p' "$tmp/fuzz.log")
rc=$fuzz_rc
check "tern-fuzz ran and exited 0 (124: still running after $fuzz_bound s)" rc_is 0

for ((waited = 0; waited < drain_bound; waited++)); do
	now=$(snapshot)
	[ "$now" = "$baseline" ] && engines_idle && break
	sleep 1
done
if [ "$now" = "$baseline" ]; then
	pass "every device back to its memory, buffers and clients"
else
	# (files, not process substitution: the guest has no /dev/fd)
	echo "$baseline" >"$tmp/baseline"
	echo "$now" >"$tmp/now"
	fail "every device back to its memory, buffers and clients" \
		"after $drain_bound s (- before, + after):" \
		"$(diff "$tmp/baseline" "$tmp/now" | grep '^[<>]' | sed 's/^</-/; s/^>/+/')"
fi
if engines_idle; then
	pass "every engine idle"
else
	fail "every engine idle" "$(grep -H . /sys/bus/platform/devices/tern.*/tern/engines_busy)"
fi

kernel_log_since_start >"$tmp/kernel.log"
if grep -q -E "$FUZZ_KERNEL_BAD" "$tmp/kernel.log"; then
	fail "kernel log clean" "$(grep -m 1 -B 2 -A 40 -E "$FUZZ_KERNEL_BAD" "$tmp/kernel.log")"
	echo "---- kernel log, matching lines ----"
	grep -E "$FUZZ_KERNEL_BAD" "$tmp/kernel.log" | head -n 40
	echo "---- end of kernel log ----"
else
	pass "kernel log clean"
fi

status=PASS
tap_finish fuzz || status=FAIL
echo "RESULT fuzz $status passed=$((count - failed - skipped)) failed=$failed" \
	"skipped=$skipped seed=${seed:-?}${rate:+, $rate}"
[ "$failed" -eq 0 ]
