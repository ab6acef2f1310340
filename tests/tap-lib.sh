# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# The TAP helpers of the command-line test scripts (tests/tools/run.sh,
# tests/inspect/args.sh and vm-inspect.sh, tests/install/run.sh). POSIX sh.
#
#   tap_init                     makes $tmp; $out and $err hold the last run
#   run CMD...                   runs CMD: output in $out, $err; status in $rc
#   check NAME CONDITION...      a test: passes if CONDITION succeeds; on
#                                failure shows what it and the last run printed
#   pass NAME, fail NAME DETAIL..., skip NAME REASON
#   tap_finish LABEL             the plan, a summary and the cmocka-style
#                                lines tests/suite-lib.sh counts; returns 1
#                                if any test failed
#
# The caller removes $tmp (trap 'rm -rf "$tmp"' EXIT).

tap_init() {
	tmp=$(mktemp -d)
	out=$tmp/out err=$tmp/err
	: >"$out"
	: >"$err"
	rc=0 count=0 failed=0 skipped=0
}

pass() {
	count=$((count + 1))
	echo "ok $count - $1"
}

# fail NAME DETAIL...: each DETAIL becomes "#" lines under the result.
fail() {
	count=$((count + 1))
	failed=$((failed + 1))
	echo "not ok $count - $1"
	shift
	for detail in "$@"; do
		printf '%s\n' "$detail" | sed 's/^/#   /'
	done
}

skip() {
	count=$((count + 1))
	skipped=$((skipped + 1))
	echo "ok $count - $1 # SKIP $2"
}

run() {
	"$@" >"$out" 2>"$err"
	rc=$?
}

# excerpt FILE: its first 600 bytes and, if longer, its last 600, where
# a tool's verdict usually is.
excerpt() {
	if [ "$(wc -c <"$1")" -le 1200 ]; then
		cat "$1"
	else
		head -c 600 "$1"
		printf '\n[...]\n'
		tail -c 600 "$1"
	fi
}

check() {
	name=$1
	shift
	if "$@" >"$tmp/why" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(cat "$tmp/why")" "exit status $rc" \
			"stdout: $(excerpt "$out")" \
			"stderr: $(excerpt "$err")"
	fi
}

rc_is() { [ "$rc" -eq "$1" ]; }
out_has() { grep -q -e "$1" "$out"; }
err_has() { grep -q -e "$1" "$err"; }

tap_finish() {
	echo "1..$count"
	echo "# $1: $((count - failed - skipped)) passed, $failed failed, $skipped skipped"
	echo "[  PASSED  ] $((count - failed - skipped)) test(s)."
	[ "$skipped" -eq 0 ] || echo "[  SKIPPED ] $skipped test(s)."
	[ "$failed" -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
	[ "$failed" -eq 0 ]
}
