#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2317 # functions run through check, wait_for and trap
#
# tern-inspect end to end on tern.ko, inside the test VM, as root, from the
# repository root, with tern.ko NOT loaded at the start:
#
#   tests/vm/run-vm.sh --kernel 6.1 --no-module --timeout 900 -- \
#       tests/inspect/vm-inspect.sh [--module FILE]
#
# It checks the tools without the module, loads it with `tern-inspect module
# load` (16 mock devices in a 4x4 torus), checks list, topo, health, info,
# metrics, top and events while traffic runs, a process holds memory and
# faults are injected through debugfs, then unloads it. The plain list, topo
# and health of the healthy torus are printed between "---- inspect:" and
# "---- end" markers. TAP lines, cmocka-style counts (tests/suite-lib.sh),
# and last "RESULT inspect PASS|FAIL passed=N failed=N skipped=N".
#
# --module FILE: the tern.ko to load (default: driver/tern.ko on 6.1,
# build/trixie-module/tern.ko on 6.12). TERN_TEST_BUILD: the build
# directory (default build).
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
build=${TERN_TEST_BUILD:-build}
case $(uname -r) in
6.12.*) module=build/trixie-module/tern.ko ;;
*) module=driver/tern.ko ;;
esac
if [ "${1:-}" = --module ] && [ -n "${2:-}" ]; then
	module=$2
elif [ "$#" -gt 0 ]; then
	echo "usage: tests/inspect/vm-inspect.sh [--module FILE]" >&2
	exit 2
fi
inspect=$build/tern-inspect
bench=$build/tern-bench
hold=$build/tests/inspect/hold_memory
checker=tests/inspect/check_inspect.py
devices=16 rows=4 cols=4 mem_mb=64
mem_bytes=$((mem_mb << 20))

# shellcheck source=tests/tap-lib.sh
. tests/tap-lib.sh
tap_init
background=()

cleanup() {
	local pid
	for pid in "${background[@]}"; do
		kill "$pid" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# Patterns here are extended regular expressions.
out_has() { grep -q -E -e "$1" "$out"; }
err_has() { grep -q -E -e "$1" "$err"; }

finish() {
	local status=PASS
	tap_finish inspect || status=FAIL
	echo "RESULT inspect $status passed=$((count - failed - skipped)) failed=$failed skipped=$skipped"
	[ "$failed" -eq 0 ]
	exit
}

# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS (a bound,
# not a measurement).
wait_for() {
	local tries=$(($1 * 5))
	shift
	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.2
	done
}

# Whether process $1 has a generic netlink socket in a multicast group
# (groups 1-31 show in /proc/net/netlink; later ones fall back to the bound).
subscribed() {
	local fd link inode
	for fd in /proc/"$1"/fd/*; do
		link=$(readlink "$fd") || continue
		case $link in socket:\[*\]) ;; *) continue ;; esac
		inode=${link#socket:[}
		inode=${inode%]}
		awk -v inode="$inode" '$2 == 16 && $10 == inode && $4 != "00000000" { found = 1 }
			END { exit !found }' /proc/net/netlink && return 0
	done
	return 1
}

# start_events FILE ARGS...: tern-inspect events in the background, once
# it listens; its pid in $events_pid.
start_events() {
	local file=$1
	shift
	"$inspect" events "$@" >"$file" 2>"$file.err" &
	events_pid=$!
	background+=("$events_pid")
	wait_for 10 subscribed "$events_pid" ||
		echo "# events $*: no multicast membership seen in /proc/net/netlink; going on"
}

# debugfs_dir DEVICE: the device's DRM debugfs directory.
debugfs_dir() {
	local node minor
	node=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][int(sys.argv[2])]["node"])' \
		"$tmp/list.json" "$1")
	case $node in
	/dev/dri/renderD*)
		minor=${node#/dev/dri/renderD}
		echo "/sys/kernel/debug/dri/$minor"
		;;
	*) echo "/sys/kernel/debug/accel/tern.$1" ;;
	esac
}

echo "# vm-inspect: kernel $(uname -r), module $module, build $build"
for file in "$inspect" "$bench" "$hold"; do
	if [ ! -x "$file" ]; then
		fail "$file is built" "run 'make userspace' (and the tests' build)"
		finish
	fi
done
if [ "$(id -u)" != 0 ] || [ ! -f "$module" ]; then
	fail "running as root with $module present" "uid $(id -u)"
	finish
fi
if [ -d /sys/module/tern ]; then
	fail "tern.ko is not loaded at the start" "run with run-vm.sh --no-module"
	finish
fi

# ---- without the module ----

run "$inspect" module status
check "module status: not loaded" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(head -n 1 '$out')\" = 'tern.ko: not loaded' ]"
run "$inspect" module --json
check "module --json: loaded false" \
	python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); sys.exit(m["loaded"] is not False)' "$out"
for command in list topo health; do
	run env TERN_BACKEND=kernel "$inspect" "$command"
	check "$command without the module (TERN_BACKEND=kernel): exit 1, not loaded, how to load it" \
		sh -c "[ $rc -eq 1 ] && grep -q 'not loaded' '$err' && grep -q 'module load' '$err'"
done
run env TERN_BACKEND=kernel "$inspect" events -n 1 -t 1
check "events without the module (TERN_BACKEND=kernel): exit 1, how to load it" \
	sh -c "[ $rc -eq 1 ] && grep -q 'not loaded' '$err' && grep -q 'module load' '$err'"
run env TERN_BACKEND=kernel "$inspect" top -b -n 1 -d 0.1
check "top without the module (TERN_BACKEND=kernel): exit 1, not loaded" \
	sh -c "[ $rc -eq 1 ] && grep -q 'not loaded' '$err'"
run "$inspect" module unload
check "module unload without the module: exit 1, says so" \
	sh -c "[ $rc -eq 1 ] && grep -q 'tern.ko is not loaded' '$err'"

# ---- load ----

run "$inspect" module load --path "$module" --mock-devices $devices \
	--topology torus:${rows}x$cols --mem-mb $mem_mb --job-timeout-ms 2000
check "module load --path: exit 0, says what it loaded" \
	sh -c "[ $rc -eq 0 ] && grep -q '^loaded tern.ko from $module (mock_devices=$devices mock_topology=torus:${rows}x$cols mock_mem_mb=$mem_mb job_timeout_ms=2000)\$' '$out'"
if [ ! -d /sys/module/tern ]; then
	fail "tern.ko is loaded" "$(cat "$err")"
	finish
fi
export TERN_BACKEND=kernel
run "$inspect" module load --path "$module" --mock-devices 2
check "module load when loaded: exit 1, unload first" \
	sh -c "[ $rc -eq 1 ] && grep -q 'already loaded; unload it first' '$err'"
run "$inspect" module
check "module status: loaded, version, parameters" \
	sh -c "[ $rc -eq 0 ] && grep -q '^tern.ko: loaded (live)\$' '$out' &&
		grep -q '^  version: ' '$out' &&
		grep -q '^    mock_devices  *$devices\$' '$out' &&
		grep -q '^    mock_topology  *torus:${rows}x$cols\$' '$out' &&
		grep -q '^    mock_mem_mb  *$mem_mb\$' '$out' &&
		grep -q '^    job_timeout_ms  *2000\$' '$out'"
run "$inspect" module --json
check "module --json: loaded, live, parameters" \
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["loaded"] is True and m["state"] == "live", m
p = m["parameters"]
assert p["mock_devices"] == "16" and p["mock_topology"] == "torus:4x4", p
assert p["mock_mem_mb"] == "64" and p["job_timeout_ms"] == "2000", p
' "$out"

# ---- the healthy torus ----

run "$inspect" list
cp "$out" "$tmp/list.txt"
check "list: $devices devices, each ok" \
	sh -c "[ $rc -eq 0 ] && [ \$(tail -n +4 '$out' | grep -c ' ok ') -eq $devices ] &&
		sed -n 2p '$out' | grep -q '^tern.ko [0-9][^,]*, $devices devices, torus:${rows}x$cols\$'"
run "$inspect" list --json
cp "$out" "$tmp/list.json"
check "list --json: $devices devices of $mem_mb MiB, health ok, 4 links up" \
	python3 "$checker" list "$out" $devices $mem_bytes
run "$inspect" topo
cp "$out" "$tmp/topo.txt"
check "topo: the ${rows}x$cols grid and $((2 * rows * cols)) links" \
	sh -c "[ $rc -eq 0 ] && grep -q '^torus ${rows}x$cols: $devices devices, $((2 * rows * cols)) links' '$out' &&
		grep -q '\\[ 0\\]---\\[ 1\\]---\\[ 2\\]---\\[ 3\\]' '$out' &&
		grep -q '\\[12\\]---\\[13\\]---\\[14\\]---\\[15\\]' '$out'"
run "$inspect" topo --json
cp "$out" "$tmp/topo-before.json"
check "topo --json: wiring is torus:${rows}x$cols (neighbours (r±1,c), (r,c±1) mod $rows)" \
	python3 "$checker" torus "$out" $rows $cols
run "$inspect" health
cp "$out" "$tmp/health.txt"
check "health: exit 0, all $devices ok" \
	sh -c "[ $rc -eq 0 ] && grep -q '$devices ok, 0 degraded, 0 failed' '$out'"

for view in list topo health; do
	echo "---- inspect: tern-inspect $view ($devices mock devices, torus:${rows}x$cols, kernel $(uname -r)) ----"
	cat "$tmp/$view.txt"
	echo "---- end of tern-inspect $view ----"
done

# ---- traffic ----

# metric_sum NAME: the sum of NAME's samples in $out.
metric_sum() {
	awk -v name="$1" 'index($0, name "{") == 1 { sum += $NF } END { printf "%.0f\n", sum }' "$out"
}
run "$inspect" metrics
link_bytes_before=$(metric_sum tern_port_tx_bytes_total)
run "$bench" all-reduce -b 4K -e 64K -f 4 -n 1 -w 0
check "tern-bench all-reduce on the $devices devices: exit 0" rc_is 0
run "$inspect" topo --json
before=$(python3 "$checker" link-bytes "$tmp/topo-before.json")
after=$(python3 "$checker" link-bytes "$out")
check "topo --json: link byte counters moved ($before -> $after)" \
	test "${after:-0}" -gt "${before:-0}"
run "$inspect" metrics
link_bytes_after=$(metric_sum tern_port_tx_bytes_total)
check "metrics: tern_port_tx_bytes_total moved with the traffic ($link_bytes_before -> $link_bytes_after)" \
	test "${link_bytes_after:-0}" -gt "${link_bytes_before:-0}"
check "metrics: port bytes sum to the link bytes" \
	test "$link_bytes_after" -eq "$(metric_sum tern_link_bytes_total)"
check "metrics: link bytes, engine busy time, memory and health" \
	sh -c "[ $rc -eq 0 ] && grep -q '^tern_link_bytes_total{.*} [1-9]' '$out' &&
		grep -q '^tern_engine_busy_seconds_total{' '$out' &&
		grep -q '^tern_memory_total_bytes{device=\"15\"} $mem_bytes\$' '$out' &&
		grep -q '^tern_device_health{device=\"0\"} 0\$' '$out' &&
		grep -q '^# TYPE tern_link_bytes_total counter\$' '$out'"

# ---- a process holding memory ----

"$hold" 3 8 >"$tmp/hold.out" 2>&1 &
hold_pid=$!
background+=("$hold_pid")
if wait_for 30 grep -q '^holding' "$tmp/hold.out"; then
	pass "hold_memory holds 8 MiB on device 3"
else
	fail "hold_memory holds 8 MiB on device 3" "$(cat "$tmp/hold.out")"
fi
run "$inspect" list -v
check "list -v: device 3 shows the process" \
	sh -c "[ $rc -eq 0 ] && grep -q '$hold_pid' '$out' && grep -q 'hold_memory' '$out'"
run "$inspect" info 3
check "info 3: the process and its memory" \
	sh -c "[ $rc -eq 0 ] && grep -q '$hold_pid' '$out' && grep -q 'hold_memory' '$out' && grep -q '8 MiB' '$out'"
run "$inspect" top -b -n 2 -d 0.5
check "top -b -n 2: two frames of $devices devices, the first without rates" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^tern-inspect top - ' '$out') -eq 2 ] &&
		[ \$(grep -E -c '^[0-9]+ +- +[0-9]+/[0-9]+ ' '$out') -eq $devices ] &&
		[ \$(grep -E -c '^[0-9]+ +[0-9.]+ +[0-9]+/[0-9]+ ' '$out') -eq $devices ] &&
		[ \$(grep -c '^devices: $devices ' '$out') -eq 2 ]"
check "top -b: the process row (pid, command, device 3, 8 MiB)" \
	sh -c "[ \$(grep -c '^$hold_pid  *hold_memory  *3  *8 MiB ' '$out') -eq 2 ]"
run "$inspect" top --json -n 2 -d 0.5
check "top --json -n 2: two frames, $devices devices, the process on device 3" \
	python3 "$checker" top "$out" 2 $devices "$hold_pid" 3 $((8 << 20))

# ---- what another user sees: their own processes, the others counted ----

as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
hidden_note='1 client of another user hidden (run as root or with CAP_PERFMON to see it)'
run "${as_nobody[@]}" "$inspect" list -v
check "list -v as a user: root's process not shown, counted, how to see it" \
	sh -c "[ $rc -eq 0 ] && ! grep -q '$hold_pid' '$out' &&
		[ \$(grep -c '^        $hidden_note\$' '$out') -eq 1 ] &&
		grep -q '^        clients: none of yours\$' '$out'"
run "${as_nobody[@]}" "$inspect" list -v --json
check "list -v --json as a user: device 3 lists no client, clients_hidden 1" \
	python3 "$checker" clients "$out" 3 1 -
run "$inspect" list -v --json
check "list -v --json as root: device 3 lists the process, none hidden" \
	python3 "$checker" clients "$out" 3 0 "$hold_pid"
run "${as_nobody[@]}" "$inspect" info 3
check "info 3 as a user: no pid, the client counted and said hidden" \
	sh -c "[ $rc -eq 0 ] && ! grep -q '$hold_pid' '$out' && grep -q '^clients (1)\$' '$out' &&
		grep -q '^  $hidden_note\$' '$out'"
run "${as_nobody[@]}" "$inspect" top -b -n 1
check "top -b as a user: the process not shown, said hidden" \
	sh -c "[ $rc -eq 0 ] && ! grep -q '^$hold_pid ' '$out' &&
		grep -q 'clients: 0 (1 of other users hidden)' '$out' &&
		grep -q '^$hidden_note\$' '$out'"
# The user's own process: the nodes open to everyone while it opens them.
# (no process substitution: the VM has no /dev/fd)
read -r -a nodes <<<"$(python3 -c 'import json,sys; print(" ".join(d["node"] for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/list.json")"
modes=$(stat -c '%a' "${nodes[0]}")
chmod 0666 "${nodes[@]}"
"${as_nobody[@]}" "$hold" 4 2 >"$tmp/hold-user.out" 2>&1 &
user_pid=$!
background+=("$user_pid")
if wait_for 30 grep -q '^holding' "$tmp/hold-user.out"; then
	pass "hold_memory as a user holds 2 MiB on device 4"
else
	fail "hold_memory as a user holds 2 MiB on device 4" "$(cat "$tmp/hold-user.out")"
fi
chmod "$modes" "${nodes[@]}"
run "${as_nobody[@]}" "$inspect" list -v --json
check "list -v --json as a user: its own process on device 4, root's hidden on 3" \
	sh -c "python3 '$checker' clients '$out' 4 0 '$user_pid' &&
		python3 '$checker' clients '$out' 3 1 -"
run "$inspect" list -v --json
check "list -v --json as root: both processes" \
	sh -c "python3 '$checker' clients '$out' 4 0 '$user_pid' &&
		python3 '$checker' clients '$out' 3 0 '$hold_pid'"
run "${as_nobody[@]}" --inh-caps=+perfmon --ambient-caps=+perfmon "$inspect" list -v --json
if [ "$rc" -ne 0 ] && grep -q setpriv "$err"; then
	skip "list -v --json as a user with CAP_PERFMON: every client" \
		"setpriv cannot grant it: $(head -n 1 "$err")"
else
	check "list -v --json as a user with CAP_PERFMON: every client, none hidden" \
		sh -c "python3 '$checker' clients '$out' 4 0 '$user_pid' &&
			python3 '$checker' clients '$out' 3 0 '$hold_pid'"
fi
kill "$user_pid"
wait "$user_pid" 2>/dev/null
# Both kernels of the VM (6.1.68+ and 6.12) check the group's capability.
events_refused() {
	[ "$rc" -eq 1 ] && [ ! -s "$out" ] &&
		err_has "lets only root .CAP_SYS_ADMIN. follow tern.ko.s events: run 'sudo tern-inspect events'"
}
run "${as_nobody[@]}" "$inspect" events -n 1 -t 1
check "events as a user: exit 1, only root may follow them" events_refused

run "$inspect" module unload
check "module unload while a process uses it: exit 1, names the process" \
	sh -c "[ $rc -eq 1 ] && grep -q 'in use' '$err' && grep -q 'pid $hold_pid (hold_memory)' '$err' && [ -d /sys/module/tern ]"
kill "$hold_pid"
wait "$hold_pid" 2>/dev/null

# ---- events: a link down and up ----

dir0=$(debugfs_dir 0)
start_events "$tmp/ev-down" --json -n 1 -t 30
# tern-inspect fault writes the same debugfs file.
run "$inspect" fault 0 link 1 down
check "fault 0 link 1 down: written to tern.ko's debugfs" \
	sh -c "[ $rc -eq 0 ] && grep -qx 'device 0: fabric_link: 1 down' '$out'"
wait "$events_pid"
rc=$?
cp "$tmp/ev-down" "$out"
cp "$tmp/ev-down.err" "$err"
check "events --json -n 1: exit 0 after the link went down" rc_is 0
check "events --json: link_state down naming device 0 port 1" \
	python3 "$checker" link-event "$tmp/ev-down" down 0 1
run "$inspect" health --json
check "health --json: device 0 degraded, a link down" \
	python3 "$checker" health "$out" 0 degraded links_down 1
start_events "$tmp/ev-up" -n 1 -t 30
echo "1 up" >"$dir0/fabric_link"
wait "$events_pid"
rc=$?
cp "$tmp/ev-up" "$out"
check "events -n 1: one plain line, link_state ... dev 0 port 1 ... up" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <'$out') -eq 1 ] &&
		grep -E -q '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z link_state link [0-9]+ dev ([0-9]+ port [0-9]+ <-> dev 0 port 1|0 port 1 <-> dev [0-9]+ port [0-9]+) up errors 0\$' '$out'"
run "$inspect" events -n 1 -t 0.5
check "events -n 1 -t 0.5 with nothing happening: exit 1, says how many came" \
	sh -c "[ $rc -eq 1 ] && grep -q '0 of the 1 events' '$err'"
run "$inspect" events -t 0.5
check "events -t 0.5 without -n: exit 0" rc_is 0

# ---- an uncorrectable memory error on device 2 ----

start_events "$tmp/ev-mem" -t 60
run "$inspect" fault 2 mem-error uncorrectable 0
check "fault 2 mem-error uncorrectable 0: written to tern.ko's debugfs" \
	sh -c "[ $rc -eq 0 ] && grep -qx 'device 2: mem_error: uncorrectable 0' '$out'"
run "${as_nobody[@]}" "$inspect" fault 2 mem-error correctable
check "fault as a user: exit 1, needs root" \
	sh -c "[ $rc -eq 1 ] && grep -q 'needs root' '$err'"
wait_for 10 grep -q 'mem_error dev 2 ' "$tmp/ev-mem"
kill "$events_pid" 2>/dev/null
wait "$events_pid" 2>/dev/null
cp "$tmp/ev-mem" "$out"
check "events: mem_error dev 2 uncorrected, health failed" \
	out_has ' mem_error dev 2 uncorrected addr 0x0 corrected 0 uncorrected 1 health failed'
run "$inspect" health
check "health: exit 1, device 2 failed, mem_uncorrected" \
	sh -c "[ $rc -eq 1 ] && grep -q '^2  *failed  *[^ ]*mem_uncorrected' '$out'"
run "$inspect" health --json
check "health --json: device 2 failed with an uncorrected memory error" \
	python3 "$checker" health "$out" 2 failed mem_errors_uncorrected 1

# ---- an engine hang on device 5 ----

dir5=$(debugfs_dir 5)
if [ ! -e "$dir5/engine_hang" ]; then
	fail "engine hang: the job fails, the engine resets, the next job runs" \
		"tern.ko has no debugfs engine_hang ($dir5)"
else
	start_events "$tmp/ev-reset" --json -t 60
	echo 0 >"$dir5/engine_hang"
	# --keep: the guilty file stays open, so events can look its pid up
	"$hold" --job 5 --keep >"$tmp/job.out" 2>&1 &
	job_pid=$!
	background+=("$job_pid")
	wait_for 30 grep -q '^job: ' "$tmp/job.out"
	check "a job on the hung engine fails" grep -q '^job: TERN_ERROR' "$tmp/job.out"
	wait_for 10 grep -q '"engine_reset"' "$tmp/ev-reset"
	kill "$events_pid" 2>/dev/null
	wait "$events_pid" 2>/dev/null
	kill "$job_pid"
	wait "$job_pid" 2>/dev/null
	check "events --json: engine_reset dev 5 engine 0, resets 1" \
		python3 "$checker" device-event "$tmp/ev-reset" engine_reset 5 resets 1
	check "engine_reset names the guilty command" \
		python3 "$checker" device-event "$tmp/ev-reset" engine_reset 5 guilty_comm hold_memory
	check "engine_reset names the guilty client by id, and its pid looked up" \
		python3 "$checker" guilty "$tmp/ev-reset" 5 "$job_pid"
	run "$inspect" health --json
	check "health --json: device 5 degraded with engine_resets 1" \
		python3 "$checker" health "$out" 5 degraded engine_resets 1
	run "$hold" --job 5
	check "the next job on device 5 runs" \
		sh -c "[ $rc -eq 0 ] && grep -q '^job: TERN_SUCCESS' '$out'"
	run "$inspect" info 5 --json
	check "info --json: device 5 counts one reset after a hang" \
		python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))["device"]; sys.exit(d["engine_hang_resets"] != 1)' "$out"
	run "$inspect" metrics
	check "metrics: device 5 degraded, reason engine_reset named" \
		sh -c "grep -q '^tern_device_health_reason{device=\"5\",reason=\"engine_reset\"} 1\$' '$out' &&
			grep -q '^tern_engine_hang_resets_total{device=\"5\"} 1\$' '$out'"
fi

# ---- health --clear: past faults forgotten, a link still down is not ----

echo "1 down" >"$dir0/fabric_link"
# For the record: what an operator sees after the faults and the traffic.
for view in health topo; do
	echo "---- inspect: tern-inspect $view after the faults (device 0 port 1 down, memory error on 2, engine reset on 5) ----"
	"$inspect" "$view" 2>&1
	echo "---- end of tern-inspect $view (exit status $?) ----"
done
run setpriv --reuid=65534 --regid=65534 --clear-groups "$inspect" health --clear all
check "health --clear as a user: exit 1, needs root" \
	sh -c "[ $rc -eq 1 ] && grep -q 'clearing health needs root: sudo tern-inspect health --clear all' '$err'"
run "$inspect" health --clear 16
check "health --clear 16: exit 2, no such device" \
	sh -c "[ $rc -eq 2 ] && grep -q -- \"--clear '16': expected all or a device\" '$err'"
run "$inspect" health --clear 2 --json
check "health --clear 2 --json: exit 0, cleared [2]" \
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(d["cleared"] != [2] or d["schema_version"] != 1)' "$out"
run "$inspect" health --clear all
check "health --clear all: exit 0, says so" \
	sh -c "[ $rc -eq 0 ] && grep -q '^cleared the health of all $devices devices\$' '$out'"
run "$inspect" health --json
cp "$out" "$tmp/health-cleared.json"
check "health --json after --clear: devices 2 and 5 ok, counters kept" \
	python3 -c '
import json, sys
devs = {d["index"]: d for d in json.load(open(sys.argv[1]))["devices"]}
assert devs[2]["health"] == "ok" and devs[2]["mem_errors_uncorrected"] == 1, devs[2]
assert devs[5]["health"] == "ok" and devs[5]["engine_resets"] >= 1, devs[5]
assert devs[0]["health"] == "degraded" and devs[0]["health_reasons"] == ["link_down"], devs[0]
' "$tmp/health-cleared.json"
run "$inspect" health
check "health after --clear with a link down: exit 1, only link_down" \
	sh -c "[ $rc -eq 1 ] && grep -q '^0  *degraded  *link_down ' '$out' &&
		grep -q '$((devices - 2)) ok, 2 degraded, 0 failed' '$out'"
echo "1 up" >"$dir0/fabric_link"
run "$inspect" health
check "health once the link is up again: exit 0, all ok" \
	sh -c "[ $rc -eq 0 ] && grep -q '$devices ok, 0 degraded, 0 failed' '$out'"

# ---- bad input on the live module ----

usage_error_ok() { [ "$rc" -eq 2 ] && [ ! -s "$out" ] && grep -q -e "$1" "$err"; }
run "$inspect" info 16
check "info 16: exit 2, no such device" usage_error_ok "16"
run "$inspect" top -d 0
check "top -d 0: exit 2" usage_error_ok "-d '0': expected seconds"
run "$inspect" events -n x
check "events -n x: exit 2" usage_error_ok "-n 'x': expected"
run "$inspect" module load --mock-devices 99
check "module load --mock-devices 99: exit 2 before anything else" \
	usage_error_ok "--mock-devices '99': expected a number of devices, 0-64"
run "$inspect" topo extra
check "topo extra: exit 2" usage_error_ok "unexpected argument 'extra'"

# ---- unload ----

run "$inspect" module unload
check "module unload: exit 0, unloaded" \
	sh -c "[ $rc -eq 0 ] && grep -q '^unloaded tern.ko\$' '$out' && [ ! -d /sys/module/tern ]"
run "$inspect" module
check "module status after unload: not loaded" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(head -n 1 '$out')\" = 'tern.ko: not loaded' ]"
run "$inspect" list
check "list after unload: exit 1, not loaded" \
	sh -c "[ $rc -eq 1 ] && grep -q 'not loaded' '$err'"

finish
