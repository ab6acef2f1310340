#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tern-inspect sim: starting, listing and stopping the user's simulated
# machines. A machine starts once and is then found running; one of
# another shape under the same name is refused with what to do; a
# machine in use is not stopped unless forced, and forcing it takes the
# devices of the process using it; bad command lines exit 2. TAP output,
# then the cmocka-style summary tests/suite-lib.sh counts.
#
# Usage: tests/inspect/sim.sh [BUILD_DIR]     (default: build)
set -u

build=${1:-build}
inspect=$build/tern-inspect
hold=$build/tests/inspect/hold_memory
bench=$build/tern-bench
if [ ! -x "$inspect" ] || [ ! -x "$hold" ]; then
	echo "sim.sh: $inspect or $hold not found: run 'make userspace' first" >&2
	exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
hold_pid=
cleanup() {
	[ -n "$hold_pid" ] && kill -9 "$hold_pid" 2>/dev/null
	TERN_SIM_MACHINE=two "$inspect" sim stop --force >/dev/null 2>&1
	"$inspect" sim stop --force sim-test >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
# A directory of this script's own: no other machine is listed.
mkdir -m 0700 "$tmp/machines"
export TERN_BACKEND=sim TERN_SIM_DIR="$tmp/machines" TERN_SIM_MACHINE=sim-test
export TERN_SIM_DAEMON="${TERN_SIM_DAEMON:-$PWD/$build/tern-simd}"
unset TERN_SIM_DEVICES TERN_SIM_MEM_MB TERN_SIM_TOPOLOGY TERN_SIM_JOB_TIMEOUT_MS

# gone PID: no such process, or one that has exited and awaits its reaper.
gone() {
	! kill -0 "$1" 2>/dev/null || [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# field NAME KEY: machine NAME's KEY in the last run's --json output.
field() {
	python3 -c 'import json, sys
for m in json.load(open(sys.argv[1]))["machines"]:
    if m["name"] == sys.argv[2]:
        print(m[sys.argv[3]])' "$out" "$1" "$2"
}

run "$inspect" sim
check "status with no machine" sh -c "[ $rc -eq 0 ] && grep -qx 'no simulated machine runs' '$out'"
run "$inspect" --json sim status
check "status --json with no machine: an empty list" \
	sh -c "[ $rc -eq 0 ] && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"machines\"] == []' '$out'"

TERN_SIM_DEVICES=5 TERN_SIM_MEM_MB=32 TERN_SIM_JOB_TIMEOUT_MS=500 run "$inspect" sim start --persistent
check "start: a persistent machine of 5 devices" \
	sh -c "[ $rc -eq 0 ] && grep -q \"started 'sim-test' (pid [0-9]*): 5 devices of 32 MiB, persistent\" '$out'"
sim_pid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$out")
TERN_SIM_DEVICES=5 TERN_SIM_MEM_MB=32 run "$inspect" sim start
check "start again: it runs already, the same process" \
	sh -c "[ $rc -eq 0 ] && grep -q \"already running: 'sim-test' (pid $sim_pid)\" '$out'"
TERN_SIM_DEVICES=6 run "$inspect" sim start
check "start with another shape: refused, saying what to do" \
	sh -c "[ $rc -eq 2 ] && grep -q 'it has 5 devices, TERN_SIM_DEVICES asks for 6' '$err' && grep -q 'tern-inspect sim stop sim-test' '$err'"

TERN_SIM_MACHINE=two TERN_SIM_DEVICES=2 run "$inspect" sim start
check "start a second machine by name" sh -c "[ $rc -eq 0 ] && grep -q \"started 'two'\" '$out'"
run "$inspect" --json sim status
check "status lists both, by name" \
	sh -c "[ \"\$(python3 -c 'import json,sys; print(\" \".join(m[\"name\"] for m in json.load(open(sys.argv[1]))[\"machines\"]))' '$out')\" = 'sim-test two' ]"
check "status: the machine's pid, shape and lifetime" \
	sh -c "[ '$(field sim-test pid)' = '$sim_pid' ] && [ '$(field sim-test devices)' = 5 ] && [ '$(field sim-test memory_mb)' = 32 ] && [ '$(field sim-test lifetime)' = persistent ] && [ '$(field sim-test processes)' = 0 ]"
run "$inspect" sim status
check "status as text: a row per machine" \
	sh -c "grep -q '^NAME  *PID  *DEVICES' '$out' && grep -q \"^sim-test  *$sim_pid  *5  *32 \" '$out' && grep -q '^two ' '$out'"

"$hold" 0 4 >"$tmp/hold.out" 2>&1 &
hold_pid=$!
for _ in $(seq 100); do
	grep -q holding "$tmp/hold.out" && break
	sleep 0.1
done
run "$inspect" --json sim status
check "a process using the machine is counted" sh -c "[ '$(field sim-test processes)' = 1 ]"

# ---- the shared machine, live, from another process ----
run "$inspect" --json list -v
check "list -v shows the other process: pid, command, its 4 MiB" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
c = [c for c in d["clients"] if c["pid"] == int(sys.argv[2])]
assert c and c[0]["comm"] == "hold_memory" and c[0]["memory_device_bytes"] == 4 << 20, d
assert d["memory_used_bytes"] >= 4 << 20' "$out" "$hold_pid"
# link_bytes: every link's bytes both ways, summed, from topo --json.
link_bytes() {
	"$inspect" --json topo | python3 -c 'import json, sys
print(sum(l["bytes_a_to_b"] + l["bytes_b_to_a"] for l in json.load(sys.stdin)["links"]))'
}
bytes_before=$(link_bytes)
run "$bench" all-reduce -b 64K -e 64K -n 2 -w 1
bytes_after=$(link_bytes)
check "another process's all-reduce moves the link counters seen here" \
	sh -c "[ $rc -eq 0 ] && [ '$bytes_after' -gt '$bytes_before' ]"
# events: followed from here on, while the faults below are injected.
"$inspect" --json events -n 11 -t 60 >"$tmp/events.out" 2>"$tmp/events.err" &
events_pid=$!
for _ in $(seq 100); do
	run "$inspect" --json sim status
	[ "$(field sim-test processes)" = 2 ] && break
	sleep 0.1
done
sleep 0.2
run "$inspect" fault 0 link 0 down
check "fault link down: injected" sh -c "[ $rc -eq 0 ] && grep -qx 'device 0: fabric_link: 0 down' '$out'"
run "$inspect" health
check "health after link down: exit 1, device 0 degraded by link_down" \
	sh -c "[ $rc -eq 1 ] && grep -q '^0  *degraded  *link_down' '$out'"
run "$inspect" fault 0 link 0 up
run "$inspect" health -q
check "link up again: healthy" rc_is 0
run "$inspect" fault 1 mem-error uncorrectable 4096
run "$inspect" health
check "an uncorrectable memory error: device 1 failed" \
	sh -c "[ $rc -eq 1 ] && grep -q '^1  *failed  *mem_uncorrected  *0/1 ' '$out'"
run "$inspect" fault 2 engine-hang 0
check "fault engine-hang: injected" rc_is 0
run "$inspect" health
check "a hung engine: device 2 degraded by engine_hung" \
	sh -c "[ $rc -eq 1 ] && grep -q '^2  *degraded  *engine_hung' '$out'"
run "$hold" --job 2
check "another process's job on the hung engine times out" \
	sh -c "[ $rc -ne 0 ] && grep -q 'job: TERN_ERROR_TIMEOUT' '$out'"
run "$inspect" health
check "then the engine was reset: engine_reset, one timeout, one reset" \
	sh -c "grep -q '^2  *degraded  *engine_reset  *0/0  *1  *1 ' '$out'"
wait "$events_pid"
events_rc=$?
check "events: every fault as tern.ko announces it, in order" \
	python3 -c 'import json, sys
rc = int(sys.argv[2])
evs = [json.loads(l) for l in open(sys.argv[1])]
def say(e):
    if e["kind"].startswith("link"):
        return "%s:%d-%d:%s" % (e["kind"], e["device_a"], e["device_b"], e["state"])
    return "%s:%d:%s:%s" % (e["kind"], e["device"], e["health"], ",".join(e["health_reasons"]))
got = [say(e) for e in evs]
want = ["link_state:0-1:down", "health:0:degraded:link_down", "health:1:degraded:link_down",
        "link_state:0-1:up", "health:0:ok:", "health:1:ok:",
        "mem_error:1:failed:mem_uncorrected", "health:1:failed:mem_uncorrected",
        "health:2:degraded:engine_hung",
        "engine_reset:2:degraded:engine_reset", "health:2:degraded:engine_reset"]
assert rc == 0 and got == want, (rc, got)
m = evs[6]
assert m["error"] == "uncorrected" and m["address"] == 4096 and m["mem_errors_uncorrected"] == 1, m
r = evs[9]
assert r["engine"] == 0 and r["resets"] == 1 and r["guilty_comm"] == "hold_memory", r
assert r["guilty_client_id"] > 0, r
' "$tmp/events.out" "$events_rc"
usage_error_f() {
	run "$inspect" fault "$@"
	check "fault $*: exit 2, says what it wanted" sh -c "[ $rc -eq 2 ] && [ ! -s '$out' ] && [ -s '$err' ]"
}
usage_error_f 0 link 99 down
usage_error_f 0 link 0 sideways
usage_error_f 0 mem-error often
usage_error_f 0 engine-hang 99
usage_error_f 0 melt
usage_error_f 99 link 0 down
usage_error_f -j 0 link 0 down
usage_error_f 0
run "$inspect" sim stop
check "stop while a process uses it: refused" \
	sh -c "[ $rc -eq 1 ] && grep -q '1 other process uses it' '$err' && grep -q -- '--force' '$err' && kill -0 $sim_pid"
run "$inspect" sim stop --force
went=0
gone "$sim_pid" && went=1
check "stop --force: stopped and gone" \
	sh -c "[ $rc -eq 0 ] && grep -q \"stopped 'sim-test' (pid $sim_pid)\" '$out' && [ $went = 1 ]"
check "its process loses its devices, the socket goes" \
	sh -c "[ ! -e '$tmp/machines/sim-test.sock' ]"
kill -9 "$hold_pid" 2>/dev/null
wait "$hold_pid" 2>/dev/null
hold_pid=
run "$inspect" sim stop
check "stop a machine that does not run" \
	sh -c "[ $rc -eq 1 ] && grep -q \"no simulated machine 'sim-test' runs\" '$err'"
run "$inspect" sim stop two
check "stop another machine by name" sh -c "[ $rc -eq 0 ] && grep -q \"stopped 'two'\" '$out'"
run "$inspect" sim
check "status after both stopped" sh -c "[ $rc -eq 0 ] && grep -qx 'no simulated machine runs' '$out'"

chmod 0755 "$tmp/machines"
run "$inspect" sim start
check "a directory others can read is refused" \
	sh -c "[ $rc -eq 1 ] && grep -q 'is not a directory of uid' '$err'"
chmod 0700 "$tmp/machines"

usage_error() {
	name=$1 pattern=$2
	shift 2
	run "$@"
	check "$name" sh -c "[ $rc -eq 2 ] && [ ! -s '$out' ] && grep -q -e \"\$1\" '$err'" _ "$pattern"
}
usage_error "unknown action" "unknown action 'bogus'; actions are: status start stop" \
	"$inspect" sim bogus
usage_error "stop with two names" "unexpected argument 'b'" "$inspect" sim stop a b
usage_error "stop a name that cannot be one" "is not a machine name" "$inspect" sim stop 'a/b'
usage_error "start with an operand" "unexpected argument 'x'" "$inspect" sim start x
usage_error "unknown option" "unknown option '--bogus'" "$inspect" sim status --bogus
TERN_SIM_DEVICES=0 run "$inspect" sim start
check "start with TERN_SIM_DEVICES=0" sh -c "[ $rc -eq 2 ] && grep -q TERN_SIM_DEVICES '$err'"

tap_finish "inspect sim"
