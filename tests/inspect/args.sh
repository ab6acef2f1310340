#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tern-inspect top, events, health --clear and module on this machine,
# without tern.ko: every kind of bad command line exits 2 with a message
# naming what was wanted, load, unload and clearing health need root,
# events and status say the module is not loaded, and top runs on
# simulated devices, on a pseudo-terminal too (check_top_tty.py). TAP output, then the
# cmocka-style summary tests/suite-lib.sh counts; exits 1 if a test failed.
#
# Usage: tests/inspect/args.sh [BUILD_DIR]     (default: build)
#
# Nothing here loads a module: every load is refused before libkmod is
# asked to (bad values, or not root).
set -u

build=${1:-build}
inspect=$build/tern-inspect
if [ ! -x "$inspect" ]; then
	echo "args.sh: $inspect not found: run 'make userspace' first" >&2
	exit 1
fi
export TERN_BACKEND=sim TERN_SIM_DEVICES=3 TERN_SIM_MEM_MB=64
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
trap 'rm -rf "$tmp"' EXIT

# usage_error NAME PATTERN CMD...: exit 2, nothing on stdout, one line on
# stderr matching PATTERN.
usage_error() {
	name=$1 pattern=$2
	shift 2
	run "$@"
	check "$name" usage_error_ok "$pattern"
}
usage_error_ok() {
	rc_is 2 && [ ! -s "$out" ] && err_has "$1" && [ "$(wc -l <"$err")" -eq 1 ]
}

module_loaded=0
[ -d /sys/module/tern ] && module_loaded=1

# ---- top ----

for value in 0 0.05 3601 abc 1.2345 -1 1e2 .5 1. " 1" ""; do
	usage_error "top -d '$value'" "-d '$value': expected seconds between frames, 0.1-3600" \
		"$inspect" top -d "$value"
done
for value in 0 -1 x 1.5 1000000001; do
	usage_error "top -n '$value'" "-n '$value': expected a number of frames" \
		"$inspect" top -n "$value"
done
usage_error "top -d without a value" "-d needs a value" "$inspect" top -d
usage_error "top --iterations without a value" "--iterations needs a value" \
	"$inspect" top --iterations
usage_error "top unknown option" "top: unknown option '--bogus'" "$inspect" top --bogus
usage_error "top unknown short option" "top: unknown option '-x'" "$inspect" top -x
usage_error "top stray argument" "top: unexpected argument 'now'" "$inspect" top now
run "$inspect" top --help
check "top --help names every option" \
	sh -c "[ $rc -eq 0 ] && for o in -d -n -b -j -p -h; do grep -q -- \"^  \$o, --\" '$out' || exit 1; done"

run "$inspect" top -b -n 2 -d 0.1
check "top -b -n 2 on 3 simulated devices: exit 0, two frames" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^tern-inspect top - ' '$out') -eq 2 ]"
check "top -b: a row per device in each frame, no escape codes" \
	sh -c "[ \$(grep -c '^[0-2]  *\([0-9.]*\|-\)  *[0-9]*/[0-9]* ' '$out') -eq 6 ] && ! grep -q \"\$(printf '\\033')\" '$out'"
check "top -b: the first frame at once, rates '-' until the second" \
	sh -c "grep -q '^tern-inspect top - .*, rates from the next frame, backend sim' '$out' &&
		[ \$(grep -c '^[0-2]  *-  ' '$out') -eq 3 ] &&
		[ \$(grep -c '^[0-2]  *[0-9.][0-9.]*  ' '$out') -eq 3 ]"
check "top -b: header counts the devices and their health" \
	out_has '^devices: 3 (3 ok, 0 degraded, 0 failed)'
run "$inspect" top --json -n 2 -d 0.1
check "top --json -n 2: two JSON lines of 3 devices each" \
	python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for line in lines:
    frame = json.loads(line)
    assert frame["schema_version"] == 1
    assert frame["backend"] == "sim"
    assert frame["interval_ns"] > 0
    assert [d["index"] for d in frame["devices"]] == [0, 1, 2]
    for d in frame["devices"]:
        assert d["memory_total_bytes"] == 64 << 20
        assert 0 <= d["utilisation_percent"] <= 100
        assert d["health"] == "ok" and d["health_reasons"] == []
    assert frame["totals"]["devices"] == 3
    assert frame["clients"] == []
' "$out"
# On a terminal: q ends it (0), SIGTERM, SIGHUP and SIGQUIT with 128 + the
# signal, Ctrl-Z gives the terminal back until continued; each time the
# terminal's modes are restored and the alternate screen left.
for how in q SIGTERM SIGHUP SIGQUIT SIGTSTP; do
	run python3 "$here/check_top_tty.py" "$inspect" "$how"
	check "top on a terminal, ended by $how: terminal restored" rc_is 0
done
run env TERN_BACKEND=gpu "$inspect" top -n 1
check "top with TERN_BACKEND=gpu: exit 2, names the setting" \
	sh -c "[ $rc -eq 2 ] && grep -q \"TERN_BACKEND='gpu'\" '$err'"

# ---- health --clear ----

usage_error "health --clear without a device" "--clear: expected a device (index, node or bus id) or all" \
	"$inspect" health --clear
usage_error "health --clear of a device past the last" "--clear '3': expected all or a device; devices are 0-2" \
	"$inspect" health --clear 3
usage_error "health with a device but no --clear" "health: unexpected argument '1'" \
	"$inspect" health 1
usage_error "health --clear with two devices" "health: unexpected argument '1'" \
	"$inspect" health --clear 0 1
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# The user has a machine of its own, not in root's directory, and a
	# copy of tern-simd it can reach: the directories holding this
	# checkout may be closed to it.
	daemon_dir=$(mktemp -d /tmp/tern-args-simd.XXXXXX)
	chmod 0755 "$daemon_dir"
	cp "$build/tern-simd" "$daemon_dir/"
	run env -u TERN_SIM_DIR TERN_SIM_DAEMON="$daemon_dir/tern-simd" setpriv --reuid=65534 --regid=65534 --clear-groups "$inspect" health --clear all
	rm -rf "$daemon_dir"
	check "health --clear as a user: exit 1, says it needs root" \
		sh -c "[ $rc -eq 1 ] && grep -q 'clearing health needs root: sudo tern-inspect health --clear all' '$err'"
elif [ "$(id -u)" != 0 ]; then
	run "$inspect" health --clear all
	check "health --clear as a user: exit 1, says it needs root" \
		sh -c "[ $rc -eq 1 ] && grep -q 'clearing health needs root: sudo tern-inspect health --clear all' '$err'"
else
	skip "health --clear as a user: needs root" "no setpriv to drop root"
fi
if [ "$(id -u)" = 0 ]; then
	run "$inspect" health --clear 0
	check "health --clear on the simulator: exit 1, nothing to clear" \
		sh -c "[ $rc -eq 1 ] && grep -q 'the simulator keeps no health to clear' '$err'"
else
	skip "health --clear on the simulator" "not root"
fi

# ---- events ----

for value in 0 -1 x 2.5; do
	usage_error "events -n '$value'" "-n '$value': expected a number of events" \
		"$inspect" events -n "$value"
done
for value in 0 x 1e3 1.2345 ""; do
	usage_error "events -t '$value'" "-t '$value': expected seconds" \
		"$inspect" events -t "$value"
done
usage_error "events -n without a value" "-n needs a value" "$inspect" events -n
usage_error "events unknown option" "events: unknown option '--follow'" \
	"$inspect" events --follow
usage_error "events stray argument" "events: unexpected argument 'link'" \
	"$inspect" events link
run "$inspect" events --help
check "events --help names every option" \
	sh -c "[ $rc -eq 0 ] && for o in -n -t -j -p -h; do grep -q -- \"^  \$o, --\" '$out' || exit 1; done"
if [ "$module_loaded" = 1 ]; then
	skip "events without tern.ko: exit 1 with how to load it" "tern.ko is loaded here"
else
	run env TERN_BACKEND=kernel "$inspect" events -n 1 -t 1
	check "events without tern.ko: exit 1 with how to load it" \
		sh -c "[ $rc -eq 1 ] && grep -q 'tern.ko is not loaded' '$err' && grep -q 'tern-inspect module load' '$err'"
	run env TERN_BACKEND= "$inspect" events -n 1 -t 0.5
	check "events without tern.ko: follows the simulated machine" \
		sh -c "[ $rc -eq 1 ] && grep -q '0 of the 1 events asked for arrived' '$err' && ! grep -q 'not loaded' '$err'"
fi
run env TERN_BACKEND=gpu "$inspect" events -n 1 -t 1
check "events with TERN_BACKEND=gpu: exit 2, says what it takes" \
	sh -c "[ $rc -eq 2 ] && grep -q TERN_BACKEND '$err'"

# ---- module ----

for case in "--mock-devices 65:--mock-devices '65': expected a number of devices, 0-64" \
	"--mock-devices -1:--mock-devices '-1': expected a number of devices" \
	"--mock-devices x:--mock-devices 'x': expected" \
	"--engines 0:--engines '0': expected a number of engines, 1-16" \
	"--engines 17:--engines '17': expected a number of engines, 1-16" \
	"--mem-mb 0:--mem-mb '0': expected MiB of device memory, 1-65536" \
	"--mem-mb 65537:--mem-mb '65537': expected MiB" \
	"--job-timeout-ms 0:--job-timeout-ms '0': expected milliseconds, 1-600000" \
	"--job-timeout-ms 600001:--job-timeout-ms '600001': expected milliseconds" \
	"--topology mesh:--topology 'mesh': expected auto, none, ring, full, torus:RxC" \
	"--topology torus:4x:--topology 'torus:4x': expected" \
	"--topology torus:axb:--topology 'torus:axb': expected" \
	"--topology custom::--topology 'custom:': expected" \
	"--path /nonexistent/tern.ko:--path '/nonexistent/tern.ko': No such file"; do
	args=${case%%:--*} pattern=--${case#*:--}
	# shellcheck disable=SC2086 # an option and its value
	usage_error "module load $args" "$pattern" "$inspect" module load $args
done
usage_error "module load --topology ''" "--topology '': expected" \
	"$inspect" module load --topology ""
usage_error "module load --topology with a space" "--topology 'ring x=1': expected" \
	"$inspect" module load --topology "ring x=1"
usage_error "module load --engines without a value" "--engines needs a value" \
	"$inspect" module load --engines
usage_error "module load unknown option" "load: unknown option '--devices'" \
	"$inspect" module load --devices 4
usage_error "module load stray argument" "load: unexpected argument 'now'" \
	"$inspect" module load now
usage_error "module unknown action" "unknown action 'reload'; actions are: status load unload" \
	"$inspect" module reload
usage_error "module unknown option" "module: unknown option '--all'" \
	"$inspect" module --all
usage_error "module status stray argument" "module status: unexpected argument 'tern'" \
	"$inspect" module status tern
usage_error "module unload stray argument" "module unload: unexpected argument 'now'" \
	"$inspect" module unload now
run "$inspect" module --help
check "module --help names the actions and every load option" \
	sh -c "[ $rc -eq 0 ] && grep -q 'module load' '$out' && grep -q 'module unload' '$out' &&
		for o in --mock-devices --topology --mem-mb --engines --job-timeout-ms --path; do
			grep -q -- \"^  \$o \" '$out' || exit 1; done"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(id -u)" != 0 ]; then
	as_user=""
else
	as_user=none
fi
if [ "$as_user" = none ]; then
	skip "module load as a user: needs root" "no setpriv to drop root"
	skip "module unload as a user: needs root" "no setpriv to drop root"
else
	# shellcheck disable=SC2086 # the command that drops root, in words
	run $as_user "$inspect" module load --mock-devices 2
	check "module load as a user: exit 1, says it needs root" \
		sh -c "[ $rc -eq 1 ] && grep -q 'loading tern.ko needs root: sudo tern-inspect module load' '$err'"
	# shellcheck disable=SC2086
	run $as_user "$inspect" module unload
	check "module unload as a user: exit 1, says it needs root" \
		sh -c "[ $rc -eq 1 ] && grep -q 'unloading tern.ko needs root' '$err'"
fi

if [ "$module_loaded" = 1 ]; then
	skip "module status without tern.ko" "tern.ko is loaded here"
	skip "module status --json without tern.ko" "tern.ko is loaded here"
	skip "module unload without tern.ko" "tern.ko is loaded here"
else
	run "$inspect" module
	check "module status without tern.ko: exit 0, not loaded, how to load it" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(head -n 1 '$out')\" = 'tern.ko: not loaded' ] &&
			grep -q 'kernel: *$(uname -r)\$' '$out' && grep -q 'load it: *sudo tern-inspect module load' '$out'"
	run "$inspect" module status --json
	check "module status --json without tern.ko: loaded false, no parameters" \
		python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["schema_version"] == 1 and m["module"] == "tern"
assert m["loaded"] is False and m["state"] == "unloaded"
assert m["parameters"] == {} and m["holders"] == [] and m["refcount"] == 0
assert isinstance(m["installed"], bool)
assert m["kernel_release"] == sys.argv[2]
' "$out" "$(uname -r)"
	if [ "$(id -u)" = 0 ]; then
		run "$inspect" module unload
		check "module unload without tern.ko: exit 1, says so" \
			sh -c "[ $rc -eq 1 ] && grep -q 'tern.ko is not loaded' '$err'"
	else
		skip "module unload without tern.ko" "not root"
	fi
fi

tap_finish "inspect args"
