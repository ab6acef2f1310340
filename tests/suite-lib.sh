# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Shared by tests/check.sh and tests/vm-suite.sh: runs one test program and
# reports it as a line
#
#   RESULT <suite> <PASS|FAIL|SKIP> passed=<n> failed=<n> skipped=<n> [note]
#
# counting cmocka's summaries. A program exiting 77 skipped as a whole (its
# first "SKIP" line says why); one exiting non-zero without a counted
# failure (a crash, a sanitizer report, a timeout) counts one failure.
#
# Needs TERN_TEST_LOGS (a directory for the logs). SUITE_TIMEOUT (seconds,
# default 900) bounds each program; SUITE_STALL_DUMP, when set, is a command
# run with the program's pid 15 s before that bound, its output added to the
# log (what the program still waits for); SUITE_SKIP_IS_FAIL=1 turns a
# whole-suite skip into a failure (in the VM, where the device must be there).

SUITE_TIMEOUT=${SUITE_TIMEOUT:-900}
SUITE_SKIP_IS_FAIL=${SUITE_SKIP_IS_FAIL:-0}

# cmocka_counts LOG: prints "passed failed skipped" summed over its groups.
cmocka_counts() {
	awk '
		/^\[  PASSED  \] [0-9]+ test/ { p += $4 }
		/^\[  FAILED  \] [0-9]+ test/ { f += $4 }
		/^\[  FAILED  \] GROUP SETUP/ { f += 1 }
		/^\[  SKIPPED \] [0-9]+ test/ { s += $4 }
		END { printf "%d %d %d\n", p, f, s }' "$1"
}

# The lines of LOG worth showing when a suite failed.
failure_excerpt() {
	grep -E '^\[  (FAILED|ERROR   )\]|[Ee]rror|ERROR|[Ff]ail|Sanitizer|runtime error|SUMMARY|Segmentation' "$1" |
		grep -v -E '^\[  (PASSED|SKIPPED) \]' | head -n 40 | sed 's/^/    | /'
}

# run_suite NAME COMMAND [ARGS...]
run_suite() {
	local name=$1 log status note="" rc=0 passed failed skipped pid watch=""
	shift
	log="$TERN_TEST_LOGS/${name//\//-}.log"
	timeout -k 10 "$SUITE_TIMEOUT" "$@" >"$log" 2>&1 &
	pid=$!
	if [ -n "${SUITE_STALL_DUMP:-}" ] && [ "$SUITE_TIMEOUT" -gt 30 ]; then
		# Its own output is elsewhere: the caller reads ours to the end.
		(
			trap 'kill $! 2>/dev/null; exit 0' TERM
			sleep $((SUITE_TIMEOUT - 15)) &
			wait $!
			$SUITE_STALL_DUMP "$pid" >>"$log" 2>&1
		) </dev/null >/dev/null 2>&1 &
		watch=$!
	fi
	wait "$pid" || rc=$?
	if [ -n "$watch" ]; then
		kill "$watch" 2>/dev/null
		wait "$watch" 2>/dev/null
	fi
	# (a here-string: the test VM has no /dev/fd for process substitution)
	read -r passed failed skipped <<<"$(cmocka_counts "$log")"

	if [ "$rc" = 77 ]; then
		status=SKIP
		note=$(grep -m 1 'SKIP' "$log" | sed 's/^[^:]*: *SKIP: *//')
		if [ "$SUITE_SKIP_IS_FAIL" = 1 ]; then
			status=FAIL
			failed=$((failed + 1))
			note="skipped where it must run: $note"
		fi
	elif [ "$rc" != 0 ] || [ "$failed" -gt 0 ]; then
		status=FAIL
		if [ "$failed" = 0 ]; then
			failed=1
			case $rc in
			124 | 137) note="timed out after ${SUITE_TIMEOUT}s" ;;
			126 | 127) note="could not run $1" ;;
			*) note="exit status $rc" ;;
			esac
		fi
	elif [ "$passed" = 0 ] && [ "$skipped" -gt 0 ]; then
		status=SKIP
		note="every test skipped"
	else
		status=PASS
	fi
	echo "RESULT $name $status passed=$passed failed=$failed skipped=$skipped${note:+ $note}"
	if [ "$status" = FAIL ]; then
		echo "    log: $log"
		failure_excerpt "$log"
	fi
	[ "$status" != FAIL ]
}
