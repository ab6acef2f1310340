#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What a test that does not end is waiting for, printed inside the test
# VM before the suite's timeout kills it (tests/suite-lib.sh calls it
# through SUITE_STALL_DUMP): each test process's kernel stack, every
# engine's jobs (debugfs "engines") and the tasks blocked in the kernel.
#
#   tests/vm/stall-dump.sh PID   PID: the suite's process; its descendants too
set -u

tree() {
	local pid=$1 child
	echo "$pid"
	# shellcheck disable=SC2013 # space-separated pids
	for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
		tree "$child"
	done
}

echo "stall-dump: still running after the suite's time; what it waits for"
for pid in $(tree "$1"); do
	[ -r /proc/"$pid"/cmdline ] || continue
	echo "--- pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c 1-120)"
	for task in /proc/"$pid"/task/*; do
		echo "  task ${task##*/}:"
		sed 's/^/    /' "$task/stack" 2>/dev/null
	done
done
for f in /sys/kernel/debug/accel/*/engines /sys/kernel/debug/dri/*/engines; do
	[ -r "$f" ] || continue
	# Only engines with jobs: idle ones say nothing.
	awk -v f="$f" '/^tern/ { show = $3 != "0" || / hung/ }
		show { if (!said++) print "--- " f; print }' "$f"
done
echo w 2>/dev/null >/proc/sysrq-trigger &&
	echo "--- blocked tasks: see the kernel log (sysrq w)"
echo "stall-dump: end"
