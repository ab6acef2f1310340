#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Command-line tests of tern-bench and tern-inspect: output shape,
# verification results, JSON schema, and exit status 2 with a message for
# every kind of bad input. TAP output, then cmocka-style summary lines for
# tests/suite-lib.sh; exits 1 if any test failed.
#
# Usage: tests/tools/run.sh [--kernel] [BUILD_DIR]     (default: build)
#
# By default the tools run on simulated devices (TERN_BACKEND=sim), whatever
# this machine has. With --kernel they run on tern.ko's mock devices
# (TERN_BACKEND=kernel; the module must be loaded, as in the test VM), and
# the expected device count and memory come from its module parameters.
set -u

mode=sim
if [ "${1:-}" = --kernel ]; then
	mode=kernel
	shift
fi
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
bench=$build/tern-bench
inspect=$build/tern-inspect
for tool in "$bench" "$inspect"; do
	if [ ! -x "$tool" ]; then
		echo "run.sh: $tool not found: run 'make userspace' first" >&2
		exit 1
	fi
done

if [ "$mode" = sim ]; then
	export TERN_BACKEND=sim TERN_SIM_DEVICES=3 TERN_SIM_MEM_MB=64
	# chips without cores, unless a test asks for them
	unset TERN_SIM_CORES
	devices=3 mem_mb=64 dma_engines=4 cores=0
else
	params=/sys/module/tern/parameters
	if [ ! -r $params/mock_devices ]; then
		echo "run.sh: --kernel: tern.ko is not loaded" >&2
		exit 1
	fi
	export TERN_BACKEND=kernel
	devices=$(cat $params/mock_devices) mem_mb=$(cat $params/mock_mem_mb)
	dma_engines=$(cat $params/mock_engines)
	cores=$(cat $params/mock_cores 2>/dev/null || echo 0)
fi
mem_bytes=$((mem_mb * 1024 * 1024))
if [ $((mem_mb % 1024)) -eq 0 ]; then
	mem_shown="$((mem_mb / 1024))GiB"
else
	mem_shown="${mem_mb}MiB"
fi
last=$((devices - 1))

# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
trap 'rm -rf "$tmp"' EXIT
out_empty() { [ ! -s "$out" ]; }

# usage_error NAME PATTERN CMD...: exit 2, nothing on stdout, and a one-line
# message on stderr matching PATTERN.
usage_error() {
	name=$1 pattern=$2
	shift 2
	run "$@"
	check "$name" usage_error_ok "$pattern"
}
usage_error_ok() {
	rc_is 2 && out_empty && err_has "$1"
}

# Data rows of tern-bench output: lines not starting with '#'.
rows() { grep -v '^#' "$out"; }

# ---- tern-bench copy: a sweep ----

run "$bench" copy -b 1 -e 1M -f 4 -n 3 -w 1
check "bench copy -b 1 -e 1M -f 4 exits 0" rc_is 0
check "bench copy: one row per size, 11 rows" \
	test "$(rows | wc -l)" -eq 11
check "bench copy: sizes 1, 4, 16, ... 1M in order" \
	test "$(rows | awk '{ printf "%s ", $1 }')" = \
	"1 4 16 64 256 1024 4096 16384 65536 262144 1048576 "
check "bench copy: 12 numeric columns per row (3 directions, memcpy peer)" \
	test -z "$(rows | awk 'NF != 12 { print; next }
		{ for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) print }')"
check "bench copy: #wrong is 0 for h2d, d2h and d2d" \
	test -z "$(rows | awk '$4 != 0 || $7 != 0 || $10 != 0')"
check "bench copy: out-of-bounds summary says 0 OK" \
	out_has '^# Out of bounds values : 0 OK$'
check "bench copy: average bandwidth line for each direction" \
	out_has '^# Avg copy bandwidth: h2d [0-9.]* GB/s, d2h [0-9.]* GB/s, d2d [0-9.]* GB/s$'
check "bench copy: header names backend and device" \
	sh -c "grep -q '^# Backend: $mode (TERN_BACKEND=$mode)$' '$out' &&
		grep -q '^# Device 0: node ' '$out'"
check "bench copy: table header names the directions" \
	sh -c "grep '^#' '$out' | grep -q 'h2d.*d2h.*d2d'"
check "bench copy: nothing on stderr" test ! -s "$err"

run "$bench" copy -b 1K -e 4K -f 2 -n 1 -w 0
check "bench copy: K suffix, -f 2, -n 1 -w 0" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s \", \$1 }')\" = '1024 2048 4096 ' ]"

run "$bench" copy -b 1k -e 1k -n 1
check "bench copy: lower-case suffix, one size" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '{ print \$1 }')\" = 1024 ]"

run "$bench" copy -b 3 -e 100 -f 3 -n 1 -w 0
check "bench copy: sweep stops below -e (3 9 27 81)" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s \", \$1 }')\" = '3 9 27 81 ' ]"

run "$bench" copy --minbytes 1M --maxbytes=2M --stepfactor 2 --iters 2 --warmup_iters 1 --device "$last"
check "bench copy: long options and the last device" \
	sh -c "[ $rc -eq 0 ] && grep -q '^# Device $last:' '$out' && [ \$(grep -vc '^#' '$out') -eq 2 ]"

# ---- tern-bench: bad input, each flag ----

for flag in -b -e -f -n -w -d; do
	usage_error "bench copy $flag without a value" "$flag needs a value" \
		"$bench" copy "$flag"
	usage_error "bench copy $flag x" "$flag 'x': expected" \
		"$bench" copy "$flag" x
done
for value in 0 -1 +1 1T 1KB 1.5K 0x10 " 1" 18446744073709551616 2048G; do
	usage_error "bench copy -b '$value'" "-b '$value': expected a size" \
		"$bench" copy -b "$value"
done
for value in 0 2T 1X; do
	usage_error "bench copy -e '$value'" "-e '$value': expected a size" \
		"$bench" copy -e "$value"
done
for value in 0 1 1025 2.5 -4; do
	usage_error "bench copy -f '$value'" "-f '$value': expected" \
		"$bench" copy -f "$value"
done
for value in 0 -1 1000001 1e3; do
	usage_error "bench copy -n '$value'" "-n '$value': expected" \
		"$bench" copy -n "$value"
done
for value in -1 1000001 1.0; do
	usage_error "bench copy -w '$value'" "-w '$value': expected" \
		"$bench" copy -w "$value"
done
usage_error "bench copy -d -1" "-d '-1': expected a device index" \
	"$bench" copy -d -1
usage_error "bench copy -d past the last device" \
	"-d $devices: no such device; $devices device" "$bench" copy -d "$devices"
usage_error "bench copy -b above -e" "-b (2048 bytes) must not exceed -e (1024 bytes)" \
	"$bench" copy -b 2K -e 1K
usage_error "bench copy -e larger than device memory" \
	"needs .* of device memory .* free of" "$bench" copy -b 1M -e "$mem_bytes"
usage_error "bench copy unknown short option" "unknown option '-z'" \
	"$bench" copy -z
usage_error "bench copy unknown long option" "unknown option '--bogus'" \
	"$bench" copy --bogus
usage_error "bench copy stray argument" "unexpected argument 'extra'" \
	"$bench" copy -n 1 extra
usage_error "bench without a test" "Usage: tern-bench" "$bench"
usage_error "bench unknown test" "unknown test 'nope'; tests are: copy" \
	"$bench" nope
usage_error "bench option before the test" "expected a test name" \
	"$bench" -b 1 copy
usage_error "bench help for an unknown test" "no test named 'nope'" \
	"$bench" help nope

# ---- tern-bench: help ----

for args in "--help" "-h" "help"; do
	# shellcheck disable=SC2086
	run "$bench" $args
	check "bench $args lists the tests" \
		sh -c "[ $rc -eq 0 ] && for t in copy gemm act softmax; do
			grep -q \"^  \$t \" '$out' || exit 1; done"
done
for args in "copy --help" "copy -h" "help copy"; do
	# shellcheck disable=SC2086
	run "$bench" $args
	check "bench $args shows every copy option" \
		sh -c "[ $rc -eq 0 ] && for o in -b -e -f -n -w -d -h; do
			grep -q \"^  \$o, --\" '$out' || exit 1; done"
done

# ---- tern-inspect list ----

# list_rows: data rows of plain `list`, after the backend, summary and
# header lines.
list_rows() { tail -n +4 "$out"; }

run "$inspect" list
check "inspect list exits 0" rc_is 0
check "inspect list: first line states the backend" \
	test "$(head -n 1 "$out")" = "backend: $mode (TERN_BACKEND=$mode)"
if [ "$mode" = sim ]; then
	summary="simulator, $devices devices, "
else
	summary="tern.ko $(cat /sys/module/tern/version 2>/dev/null), $devices devices, "
fi
check "inspect list: second line names the source, device count, shape" \
	sh -c "sed -n 2p '$out' | grep -q '^${summary}[a-z]'"
check "inspect list: column header" \
	sh -c "sed -n 3p '$out' | grep -q '^DEVICE  *NODE  *BUS ID  *UTIL%  *MEMORY USED / TOTAL  *ENGINES  *LINKS  *HEALTH  *PROCS$'"
check "inspect list: one row per device ($devices)" \
	test "$(list_rows | wc -l)" -eq "$devices"
check "inspect list: rows are devices 0 to $last, each of $mem_shown" \
	test "$(list_rows | awk '{ printf "%s:%s ", $1, $8 $9 }')" = \
	"$(seq 0 $last | awk -v m="$mem_shown" '{ printf "%s:%s ", $1, m }')"
check "inspect list: memory percentage, engines busy/total, links up/total, health" \
	test -z "$(list_rows | awk '$4 !~ /^(-|[0-9]+)$/ || $10 !~ /^\([0-9]+%\)$/ ||
		$11 !~ /^[0-9]+\/[1-9][0-9]*$/ || $12 !~ /^[0-9]+\/[0-9]+$/ ||
		$13 !~ /^(ok|degraded|failed)$/ || $14 !~ /^[0-9]+$/')"
if [ "$mode" = sim ]; then
	check "inspect list on the simulator: no bus id, no utilisation (-)" \
		test -z "$(list_rows | awk '$3 != "-" || $4 != "-"')"
fi

run "$inspect" list --json
check "inspect list --json exits 0 with nothing on stderr" \
	sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ]"
check "inspect list --json: valid JSON (python3 -m json.tool)" \
	python3 -m json.tool "$out" /dev/null
check "inspect list --json: schema, $devices devices of $mem_shown" \
	python3 "$here/check_list_json.py" "$out" "$devices" "$mem_bytes" "$mode"
cp "$out" "$tmp/compact"
run "$inspect" -j list
check "inspect -j list: same document as list --json" \
	cmp -s "$out" "$tmp/compact"
run "$inspect" list -j --pretty
check "inspect list -j --pretty: indented, same data" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l < '$out') -gt 3 ] &&
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' '$out' '$tmp/compact'"
# A device's node and bus id, for the commands that take one.
node1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][-1]["node"])' "$tmp/compact")
bus1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][-1]["bus_id"])' "$tmp/compact")

run "$inspect" list -v
check "inspect list -v: a capabilities line under each device" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^        capabilities: ' '$out') -eq $devices ]"
check "inspect list -v: each device's clients, or none" \
	sh -c "[ \$(grep -c -e '^        PID  *COMMAND  *DEVICE MEM' -e '^        clients: none' '$out') -eq $devices ]"
run "$inspect" list --verbose --json
check "inspect list --verbose --json: schema with clients" \
	sh -c "[ $rc -eq 0 ] && python3 '$here/check_list_json.py' '$out' $devices $mem_bytes $mode verbose"

if [ "$mode" = sim ]; then
	for n in 1 5; do
		run env TERN_SIM_DEVICES=$n "$inspect" list
		check "inspect list: $n rows for TERN_SIM_DEVICES=$n" \
			sh -c "[ $rc -eq 0 ] && [ \$(tail -n +4 '$out' | wc -l) -eq $n ]"
		run env TERN_SIM_DEVICES=$n "$inspect" list --json
		check "inspect list --json: schema, $n devices for TERN_SIM_DEVICES=$n" \
			sh -c "[ $rc -eq 0 ] && python3 '$here/check_list_json.py' '$out' $n $mem_bytes sim"
	done
	if ls /dev/accel/accel* /dev/dri/renderD* >/dev/null 2>&1; then
		skip "inspect list: automatic backend is the simulator" \
			"this machine has DRM render or accel nodes"
	else
		run env -u TERN_BACKEND "$inspect" list
		check "inspect list: automatic backend says no node was found" \
			test "$(head -n 1 "$out")" = "backend: sim (no Tern device node found)"
	fi
	run "$inspect" list -v
	check "inspect list -v on the simulator: no clients while none runs" \
		sh -c "[ \$(grep -c '^        clients: none$' '$out') -eq $devices ]"
	# 64 chips of 16 cores: more engines than one answer of the machine holds
	run env TERN_SIM_TOPOLOGY=trn2-ultra TERN_SIM_DEVICES=64 TERN_SIM_CORES=16 TERN_SIM_MEM_MB=16 "$inspect" list
	check "inspect list on trn2-ultra with 16 cores: 64 devices of 80 engines" \
		sh -c "[ $rc -eq 0 ] && [ \$(tail -n +4 '$out' | awk '\$11 == \"0/80\"' | wc -l) -eq 64 ]"
else
	check "inspect list --json: nodes are accel or render nodes" \
		python3 -c 'import json,sys; sys.exit(not all(d["node"].startswith(("/dev/accel/accel", "/dev/dri/renderD")) for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/compact"
	check "inspect list --json: source is the driver" \
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["source"] != "driver")' "$tmp/compact"
	run env -u TERN_BACKEND "$inspect" list
	check "inspect list: automatic backend is the kernel's" \
		test "$(head -n 1 "$out")" = "backend: kernel (Tern device node found)"
fi

# ---- tern-inspect info ----

run "$inspect" info "$last"
check "inspect info $last exits 0" rc_is 0
check "inspect info $last: names the device, its node and memory" \
	sh -c "[ \"\$(head -n 1 '$out')\" = 'device $last' ] &&
		grep -q '^  node: *$node1$' '$out' &&
		grep -q '^  device used / total: .* / $(echo "$mem_shown" | sed 's/\([0-9]\)\([KMG]\)/\1 \2/') ' '$out'"
check "inspect info $last: sections for engines, links and clients" \
	sh -c "grep -q '^engines (' '$out' && grep -q '^  ENGINE  *TYPE  *CORE  *BUSY  *HUNG' '$out' &&
		grep -q '^links (' '$out' && grep -q '^clients (' '$out' && grep -q '^  health: ' '$out'"
run "$inspect" info "$last" --json
check "inspect info $last --json: schema, device $last, $dma_engines DMA engines and $cores cores" \
	sh -c "[ $rc -eq 0 ] && python3 '$here/check_inspect_json.py' info '$out' $mode $last $dma_engines $cores"
cp "$out" "$tmp/info"
run "$inspect" --json info "$node1"
check "inspect info by node ($node1): same device" \
	sh -c "[ $rc -eq 0 ] && python3 -c 'import json,sys; a, b = (json.load(open(f))[\"device\"] for f in sys.argv[1:]); sys.exit(a[\"index\"] != b[\"index\"])' '$out' '$tmp/info'"
if [ -z "$bus1" ]; then
	bus1=$node1	# the simulator's devices have no bus id
fi
run "$inspect" info -j "$bus1"
check "inspect info by bus id ($bus1): same device" \
	sh -c "[ $rc -eq 0 ] && python3 -c 'import json,sys; a, b = (json.load(open(f))[\"device\"] for f in sys.argv[1:]); sys.exit(a[\"index\"] != b[\"index\"])' '$out' '$tmp/info'"
usage_error "inspect info without a device" "info: expected a device: its index, node or bus id" \
	"$inspect" info
usage_error "inspect info of a device past the last" "info: no device '$devices'; devices are 0-$last" \
	"$inspect" info "$devices"
usage_error "inspect info of a bad name" "info: no device 'gpu0'; devices are 0-$last" \
	"$inspect" info gpu0
usage_error "inspect info -1" "info: unknown option '-1'" "$inspect" info -1
usage_error "inspect info with two devices" "info: unexpected argument '1'" \
	"$inspect" info 0 1
usage_error "inspect info unknown option" "info: unknown option '--all'" \
	"$inspect" info 0 --all

# ---- tern-inspect topo ----

# topo_expect TOPOLOGY DEVICES LINKS PORTS ENV...: plain and JSON topo on
# a fabric of that shape.
topo_expect() {
	shape=$1 n=$2 links=$3 ports=$4
	shift 4
	run "$@" "$inspect" topo --json
	check "inspect topo --json ($shape, $n devices): $links links, $ports per device" \
		sh -c "[ $rc -eq 0 ] && python3 '$here/check_inspect_json.py' topo '$out' $mode $n $links $ports $shape"
	run "$@" "$inspect" topo
	if [ "$links" -eq 0 ]; then
		check "inspect topo ($shape): no link table without links" \
			sh -c "[ $rc -eq 0 ] && ! grep -q '^LINK' '$out'"
		return
	fi
	check "inspect topo ($shape): a link table of $links links" \
		sh -c "[ $rc -eq 0 ] && grep -q '^LINK  *DEVICE/PORT  *PEER/PORT  *STATE  *BYTES A->B  *B->A  *ERRORS$' '$out' &&
			[ \$(sed -n '/^LINK /,\$p' '$out' | tail -n +2 | wc -l) -eq $links ]"
}

if [ "$mode" = sim ]; then
	topo_expect torus:4x4 16 32 4 env TERN_SIM_DEVICES=16 TERN_SIM_TOPOLOGY=torus:4x4
	check "inspect topo: a 4x4 torus is drawn as a grid with wraparound marks" \
		sh -c "grep -q '^torus 4x4: 16 devices, 32 links' '$out' &&
			grep -q '^  < \[ 0\]---\[ 1\]---\[ 2\]---\[ 3\] >$' '$out' &&
			grep -q '^  < \[12\]---\[13\]---\[14\]---\[15\] >$' '$out' &&
			[ \$(grep -c '^ *\^  *\^  *\^  *\^$' '$out') -eq 1 ] &&
			[ \$(grep -c '^ *|  *|  *|  *|$' '$out') -eq 3 ] &&
			[ \$(grep -c '^ *v  *v  *v  *v$' '$out') -eq 1 ]"
	topo_expect torus:2x3 6 12 4 env TERN_SIM_DEVICES=6 TERN_SIM_TOPOLOGY=torus:2x3
	topo_expect ring 8 8 2 env TERN_SIM_DEVICES=8 TERN_SIM_TOPOLOGY=ring
	check "inspect topo: a ring is drawn as a cycle" \
		sh -c "grep -q '^ring: 8 devices, 8 links' '$out' &&
			grep -q '^  0 --- 1 --- 2 --- 3 --- 4 --- 5 --- 6 --- 7 --- (back to 0)$' '$out'"
	topo_expect other 4 4 - env TERN_SIM_DEVICES=4 TERN_SIM_TOPOLOGY=custom:0-1,1-2,2-0,2-3
	check "inspect topo: another shape is listed device by device, ports in order" \
		sh -c "grep -q '^fabric: 4 devices, 4 links' '$out' &&
			grep -q '^    2: port 0 -> 1/1, port 1 -> 0/1, port 2 -> 3/0$' '$out'"
	topo_expect none 1 0 0 env TERN_SIM_DEVICES=1
	check "inspect topo: one device has no links" \
		grep -q '^    0: no links$' "$out"
else
	topology=$(cat /sys/module/tern/parameters/mock_topology 2>/dev/null || echo auto)
	case "$topology" in
	ring) topo_expect ring "$devices" "$devices" 2 ;;
	torus:*) topo_expect "$topology" "$devices" $((2 * devices)) 4 ;;
	*) topo_expect - "$devices" "$(python3 -c 'import json,sys; print(sum(d["links_total"] for d in json.load(open(sys.argv[1]))["devices"]) // 2)' "$tmp/compact")" - ;;
	esac
fi
usage_error "inspect topo stray argument" "topo: unexpected argument 'grid'" \
	"$inspect" topo grid
usage_error "inspect topo unknown option" "topo: unknown option '-v'" \
	"$inspect" topo -v

# ---- tern-inspect health ----

run "$inspect" health
if [ "$mode" = sim ]; then
	check "inspect health: every simulated device is ok, exit 0" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(tail -n 1 '$out')\" = 'healthy: $devices devices: $devices ok, 0 degraded, 0 failed' ]"
else
	# Other suites may have injected link faults: the status must match.
	check "inspect health: exit status agrees with the summary" \
		sh -c "{ [ $rc -eq 0 ] && tail -n 1 '$out' | grep -q '^healthy: $devices devices: $devices ok'; } ||
			{ [ $rc -eq 1 ] && tail -n 1 '$out' | grep -q '^UNHEALTHY: $devices devices: '; }"
fi
health_rc=$rc
check "inspect health: a header and one row per device" \
	sh -c "grep -q '^DEVICE  *HEALTH  *REASONS  *MEM ERR C/U  *TIMEOUTS  *RESETS  *LINKS DOWN  *LINK ERRORS$' '$out' &&
		[ \$(grep -cE '^[0-9]+  +(ok|degraded|failed)  ' '$out') -eq $devices ]"
run "$inspect" health -q
check "inspect health -q: nothing printed, same exit status" \
	sh -c "[ $rc -eq $health_rc ] && [ ! -s '$out' ] && [ ! -s '$err' ]"
run "$inspect" health --quiet --json
check "inspect health --quiet --json: still nothing printed" \
	sh -c "[ $rc -eq $health_rc ] && [ ! -s '$out' ]"
run "$inspect" health --json
check "inspect health --json: schema, same exit status, healthy agrees" \
	sh -c "[ $rc -eq $health_rc ] && python3 '$here/check_inspect_json.py' health '$out' $mode $devices &&
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"healthy\"] != (sys.argv[2] == \"0\"))' '$out' $health_rc"
if [ "$mode" = sim ]; then
	run env TERN_SIM_DEVICES=16 TERN_SIM_TOPOLOGY=torus:4x4 "$inspect" health
	check "inspect health on a 4x4 torus: exit 0, 16 ok" \
		sh -c "[ $rc -eq 0 ] && tail -n 1 '$out' | grep -q '^healthy: 16 devices: 16 ok, 0 degraded, 0 failed$'"
fi
usage_error "inspect health stray argument" "health: unexpected argument '0'" \
	"$inspect" health 0
usage_error "inspect health unknown option" "health: unknown option '-v'" \
	"$inspect" health -v

# ---- tern-inspect metrics ----

links_total=$(python3 -c 'import json,sys; print(sum(d["links_total"] for d in json.load(open(sys.argv[1]))["devices"]) // 2)' "$tmp/compact")
run "$inspect" metrics
check "inspect metrics: exit 0, valid exposition with every documented family" \
	sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ] && python3 '$here/check_metrics.py' '$out' $devices $links_total"
check "inspect metrics: memory total of each device" \
	test "$(grep -c "^tern_memory_total_bytes{device=\"[0-9]*\"} $mem_bytes\$" "$out")" -eq "$devices"
if [ "$mode" = sim ]; then
	run env TERN_SIM_DEVICES=16 TERN_SIM_TOPOLOGY=torus:4x4 "$inspect" metrics
	check "inspect metrics on a 4x4 torus: 16 devices, 32 links up" \
		sh -c "[ $rc -eq 0 ] && python3 '$here/check_metrics.py' '$out' 16 32 &&
			[ \$(grep -c '^tern_link_up{.*} 1$' '$out') -eq 32 ]"
fi
usage_error "inspect metrics --json" "metrics: --json and --pretty do not apply" \
	"$inspect" metrics --json
usage_error "inspect -j metrics" "metrics: --json and --pretty do not apply" \
	"$inspect" -j metrics
usage_error "inspect metrics stray argument" "metrics: unexpected argument 'all'" \
	"$inspect" metrics all

# ---- tern-inspect: chips of cores, each with a tensor, vector, scalar engine ----

# The simulator's chips get 2 cores here, on a machine of their own (the
# default machine, which the rest shares, keeps its shape); tern.ko's have
# its mock_cores.
if [ "$mode" = sim ]; then
	with_cores="env TERN_SIM_CORES=2 TERN_SIM_MACHINE=auto" core_count=2
else
	with_cores=env core_count=$cores
fi
last_engine=$((dma_engines + 3 * core_count - 1))
if [ "$core_count" -eq 0 ]; then
	skip "inspect info: each engine's type and core" "tern.ko was loaded without mock_cores"
else
	# shellcheck disable=SC2086
	run $with_cores "$inspect" info 0
	check "inspect info 0 on chips of $core_count cores: each engine's type and core" \
		sh -c "[ $rc -eq 0 ] && grep -qE '^  0 +dma +- +no ' '$out' &&
			grep -qE '^  $dma_engines +tensor +0 +no ' '$out' &&
			grep -qE '^  $((dma_engines + 1)) +vector +0 +no ' '$out' &&
			grep -qE '^  $last_engine +scalar +$((core_count - 1)) +no ' '$out'"
	check "inspect info 0 on chips of $core_count cores: the engines by type" \
		sh -c "grep -qE '^  TYPE +ENGINES +BUSY +BUSY TIME$' '$out' &&
			grep -qE '^  dma +$dma_engines +[0-9]+ ' '$out' &&
			grep -qE '^  tensor +$core_count +0 ' '$out' &&
			grep -qE '^  scalar +$core_count +0 ' '$out'"
	# shellcheck disable=SC2086
	run $with_cores "$inspect" info 0 --json
	check "inspect info 0 --json on chips of $core_count cores: types, cores, sums by type" \
		sh -c "[ $rc -eq 0 ] && python3 '$here/check_inspect_json.py' info '$out' $mode 0 $dma_engines $core_count"
	# shellcheck disable=SC2086
	run $with_cores "$inspect" metrics
	check "inspect metrics on chips of $core_count cores: engines labelled with type and core" \
		sh -c "[ $rc -eq 0 ] && python3 '$here/check_metrics.py' '$out' $devices $links_total &&
			[ \$(grep -c '^tern_engine_active{device=\"0\",engine=\"[0-9]*\",type=\"dma\",core=\"\"} [01]\$' '$out') -eq $dma_engines ] &&
			grep -q '^tern_engine_active{device=\"0\",engine=\"$dma_engines\",type=\"tensor\",core=\"0\"} [01]\$' '$out' &&
			grep -q '^tern_engine_busy_seconds_total{device=\"0\",engine=\"$last_engine\",type=\"scalar\",core=\"$((core_count - 1))\"} [0-9.]*\$' '$out'"
	check "inspect metrics on chips of $core_count cores: engines and busy time by type" \
		sh -c "grep -q '^tern_device_engines{device=\"0\",type=\"dma\"} $dma_engines\$' '$out' &&
			grep -q '^tern_device_engines{device=\"0\",type=\"tensor\"} $core_count\$' '$out' &&
			grep -q '^tern_device_engines{device=\"0\",type=\"scalar\"} $core_count\$' '$out' &&
			grep -q '^tern_device_engine_busy_seconds_total{device=\"0\",type=\"vector\"} [0-9.]*\$' '$out'"
	# shellcheck disable=SC2086
	run $with_cores "$inspect" top --json -n 2 -d 0.2
	check "inspect top --json on chips of $core_count cores: each device's engines by type" \
		sh -c "[ $rc -eq 0 ] && python3 '$here/check_inspect_json.py' top '$out' $mode $devices $dma_engines $core_count"
	# shellcheck disable=SC2086
	run $with_cores "$inspect" top -b -n 2 -d 0.2
	types_line="^     dma %s [0-9]+/$dma_engines  tensor %s [0-9]+/$core_count  vector %s [0-9]+/$core_count  scalar %s [0-9]+/$core_count\$"
	check "inspect top -b on chips of $core_count cores: a line of engine types under each device" \
		sh -c "[ $rc -eq 0 ] &&
			[ \$(grep -cE \"\$(printf '$types_line' - - - -)\" '$out') -eq $devices ] &&
			[ \$(grep -cE \"\$(printf '$types_line' '[0-9.]+%' '[0-9.]+%' '[0-9.]+%' '[0-9.]+%')\" '$out') -eq $devices ]"

	# A MATMUL on the last core's tensor engine moves its busy time, and
	# the tensor engines', in info, metrics and top.
	hold=$build/tests/inspect/hold_memory
	core=$((core_count - 1)) tensor=$((dma_engines + 3 * (core_count - 1)))
	# shellcheck disable=SC2086
	run $with_cores "$inspect" info 0 --json
	cp "$out" "$tmp/before-matmul"
	# shellcheck disable=SC2086
	run $with_cores "$hold" --matmul 0 $core
	check "a MATMUL on device 0's core $core: its tensor engine, $tensor, ran it" \
		sh -c "[ $rc -eq 0 ] && grep -q '^matmul on engine $tensor: TERN_SUCCESS\$' '$out'"
	# shellcheck disable=SC2086
	run $with_cores "$inspect" info 0 --json
	check "inspect info 0 --json after the MATMUL: engine $tensor and the tensor engines were busy" \
		python3 "$here/check_inspect_json.py" moved "$tmp/before-matmul" "$out" $tensor tensor
	# shellcheck disable=SC2086
	run $with_cores "$inspect" metrics
	check "inspect metrics after the MATMUL: engine $tensor's busy seconds, the tensor engines'" \
		sh -c "[ $rc -eq 0 ] &&
			grep -qE '^tern_engine_busy_seconds_total\\{device=\"0\",engine=\"$tensor\",type=\"tensor\",core=\"$core\"\\} (0\\.0*[1-9]|[1-9])' '$out' &&
			grep -qE '^tern_device_engine_busy_seconds_total\\{device=\"0\",type=\"tensor\"\\} (0\\.0*[1-9]|[1-9])' '$out' &&
			grep -qE '^tern_engine_jobs_total\\{device=\"0\",engine=\"$tensor\",type=\"tensor\",core=\"$core\",result=\"completed\"\\} [1-9]' '$out'"
	# shellcheck disable=SC2086
	$with_cores "$hold" --matmul 0 $core --repeat >"$tmp/matmul" 2>&1 &
	matmuls=$!
	tries=0
	while ! grep -q '^matmul on engine' "$tmp/matmul" && [ $tries -lt 300 ] &&
		kill -0 $matmuls 2>/dev/null; do
		sleep 0.1
		tries=$((tries + 1))
	done
	# shellcheck disable=SC2086
	run $with_cores "$inspect" top --json -n 2 -d 0.2
	kill $matmuls 2>/dev/null
	wait $matmuls 2>/dev/null
	check "inspect top --json while MATMULs run on core $core: the tensor engines' busy time" \
		sh -c "[ $rc -eq 0 ] && grep -q '^matmul on engine $tensor: TERN_SUCCESS\$' '$tmp/matmul' &&
			python3 '$here/check_inspect_json.py' top '$out' $mode $devices $dma_engines $core_count 0/tensor"
fi

# ---- tern-inspect: bad input and help ----

run "$inspect"
cp "$out" "$tmp/bare"
run "$inspect" list
check "inspect without a command runs list" \
	sh -c "[ $rc -eq 0 ] && diff '$tmp/bare' '$out'"
run "$inspect" help
check "inspect help: usage, every command, the man page for the schema" \
	sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-inspect' '$out' &&
		grep -q 'tern-inspect(1)' '$out' && ! grep -q 'Documentation/' '$out'"
usage_error "inspect unknown command" "unknown command 'nope'; commands are: list info topo health top events module metrics net fault sim help" \
	"$inspect" nope
usage_error "inspect unknown option" "unknown option '-x'" "$inspect" -x list
usage_error "inspect command options are not global" "tern-inspect: unknown option '-v'" \
	"$inspect" -v list
usage_error "inspect list unknown short option" "tern-inspect list: unknown option '-q'" \
	"$inspect" list -q
usage_error "inspect list unknown long option" "tern-inspect list: unknown option '--all'" \
	"$inspect" list --all
usage_error "inspect list stray argument" "unexpected argument '0'" \
	"$inspect" list 0
usage_error "inspect help for an unknown command" "unknown command 'nope'" \
	"$inspect" help nope
usage_error "inspect help with two names" "at most one command name" \
	"$inspect" help list list

for args in "--help" "-h" "help"; do
	# shellcheck disable=SC2086
	run "$inspect" $args
	check "inspect $args lists the commands" \
		sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-inspect' '$out' && grep -q '^  list ' '$out'"
done
for cmd in list info topo health metrics; do
	for args in "$cmd --help" "$cmd -h" "help $cmd"; do
		# shellcheck disable=SC2086
		run "$inspect" $args
		check "inspect $args shows the $cmd usage and options" \
			sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-inspect $cmd' '$out' && grep -q -- '--help' '$out'"
	done
done
run "$inspect" list --help
check "inspect list --help names -v" sh -c "grep -q -- '-v, --verbose' '$out'"
run "$inspect" health --help
check "inspect health --help names -q and the exit status" \
	sh -c "grep -q -- '-q, --quiet' '$out' && grep -q '^Exit status: 0 every device is ok' '$out'"

# ---- both tools: settings libtern refuses, and no kernel devices ----

settings=TERN_BACKEND=gpu
[ "$mode" = sim ] &&
	settings="$settings TERN_SIM_DEVICES=0 TERN_SIM_DEVICES=65 TERN_SIM_MEM_MB=abc TERN_SIM_TOPOLOGY=bogus TERN_SIM_JOB_TIMEOUT_MS=0 TERN_SIM_CLOCK=fast TERN_SIM_DATA=maybe TERN_SIM_TOPOLOGY=trn3 TERN_SIM_HOST_MEM_MB=lots TERN_SIM_CLIENT_HOST_MB=-1 TERN_SIM_CLIENT_JOBS=99999999999 TERN_SIM_CLIENT_JOB_MB=2000000000 TERN_SIM_CLIENT_BUFFERS=1e3 TERN_SIM_CORES=17 TERN_SIM_SBUF_KB=0 TERN_SIM_PSUM_KB=3 TERN_SIM_PSUM_KB=66"
for setting in $settings; do
	shown="${setting%%=*}='${setting#*=}'"
	usage_error "bench with $setting" "refused the backend configuration:.* $shown" \
		env "$setting" "$bench" copy -n 1
	for args in list "info 0" topo health metrics; do
		# shellcheck disable=SC2086
		usage_error "inspect $args with $setting" "refused the backend configuration:.* $shown" \
			env "$setting" "$inspect" $args
	done
done

if [ "$mode" = sim ]; then
	# tern-simd's limits, as libtern passes them: nonsense is a usage error.
	for opt in "--client-jobs abc" "--client-jobs 4294967296" \
		"--host-mem-mb 1073741825" "--client-host-mb -1" \
		"--client-job-mb 1e3" "--client-buffers ''"; do
		# shellcheck disable=SC2086
		usage_error "tern-simd $opt: usage" "^Usage: tern-simd" \
			eval "'$build/tern-simd' --socket /nonexistent/s --lock /nonexistent/l --foreground $opt"
	done
	# and a chip's shape out of range: a sentence naming all three
	simd_dir=$(mktemp -d)
	for opt in "--cores 17" "--sbuf-kb 0" "--sbuf-kb 1025" "--psum-kb 3" \
		"--psum-kb 66"; do
		# shellcheck disable=SC2086
		usage_error "tern-simd $opt: the shapes it takes" \
			"^tern-simd: 0-16 cores, 1-1024 KiB of SBUF and an even 2-64 KiB of PSUM a partition, not " \
			"$build/tern-simd" --socket "$simd_dir/s" --lock "$simd_dir/l" --foreground $opt
	done
	rm -rf "$simd_dir"
	run env TERN_SIM_TOPOLOGY=bogus "$inspect" list
	check "inspect with TERN_SIM_TOPOLOGY=bogus: names it and the forms it takes" \
		sh -c "[ $rc -eq 2 ] && grep -q \"TERN_SIM_TOPOLOGY='bogus'\" '$err' &&
			grep -q 'TERN_SIM_TOPOLOGY auto, ring, torus:RxC .*full .*none or custom:A-B' '$err' &&
			grep -q 'TERN_SIM_MEM_MB 1-1048576, TERN_SIM_JOB_TIMEOUT_MS 1-3600000' '$err'"
	run env TERN_SIM_CLOCK=fast "$bench" copy -n 1
	check "bench with TERN_SIM_CLOCK=fast: says what it takes" \
		sh -c "[ $rc -eq 2 ] && grep -q 'TERN_SIM_CLOCK=.fast. is neither .wall. nor .model.' '$err' &&
			grep -q 'TERN_SIM_CLOCK wall or model' '$err'"
	run env TERN_SIM_DATA=maybe "$bench" copy -n 1
	check "bench with TERN_SIM_DATA=maybe: says what it takes" \
		sh -c "[ $rc -eq 2 ] && grep -q 'TERN_SIM_DATA=.maybe. is neither .on. nor .off.' '$err' &&
			grep -q 'TERN_SIM_DATA on or off' '$err'"
	run env TERN_SIM_TOPOLOGY=trn2-ultra TERN_SIM_DEVICES=16 "$inspect" list
	check "inspect with trn2-ultra on 16 devices: names both" \
		sh -c "[ $rc -eq 2 ] && grep -q \"TERN_SIM_TOPOLOGY='trn2-ultra'\" '$err' &&
			grep -q 'does not fit 16 devices' '$err'"

	# Machines of another shape, in a directory of their own.
	machines=$tmp/machines
	TERN_SIM_DIR=$machines TERN_SIM_MACHINE=named TERN_SIM_DEVICES=2 \
		"$inspect" sim start >/dev/null
	run env TERN_SIM_DIR="$machines" TERN_SIM_MACHINE=named "$bench" copy -n 1
	check "bench on a named machine of another shape: its one sentence, exit 2" \
		sh -c "[ $rc -eq 2 ] && [ ! -s '$out' ] && [ \$(wc -l <'$err') -eq 1 ] &&
			grep -q \"^tern-bench copy: the simulated machine 'named' (pid [0-9]*) does not fit this process: it has 2 devices, TERN_SIM_DEVICES asks for 3; stop it\" '$err'"
	TERN_SIM_DIR=$machines TERN_SIM_MACHINE=named "$inspect" sim stop --force >/dev/null
	# Named none: runs of two shapes, one right after the other.
	run env -u TERN_SIM_MACHINE TERN_SIM_DIR="$machines" "$bench" copy -e 1K -n 1
	check "bench copy on 3 devices, no machine named" rc_is 0
	run env -u TERN_SIM_MACHINE TERN_SIM_DIR="$machines" TERN_SIM_DEVICES=4 \
		"$bench" all-reduce -b 1K -e 1K -n 1
	check "bench of another shape right after a run: the idle machine gives way" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ] && grep -q '^#  Rank  3: device  3' '$out'"
	TERN_SIM_DIR=$machines TERN_SIM_MACHINE=default "$inspect" sim stop --force >/dev/null
fi

if [ "$mode" = kernel ] || ls /dev/accel/accel* /dev/dri/renderD* >/dev/null 2>&1; then
	skip "inspect list: TERN_BACKEND=kernel without devices" \
		"this machine has DRM render or accel nodes (mode $mode)"
	skip "bench copy: TERN_BACKEND=kernel without devices" \
		"this machine has DRM render or accel nodes (mode $mode)"
else
	run env TERN_BACKEND=kernel "$inspect" list --json
	check "inspect list: TERN_BACKEND=kernel without tern.ko fails, says how to load it" \
		sh -c "[ $rc -eq 1 ] && grep -q 'tern.ko is not loaded .*sudo modprobe tern mock_devices=4.*sudo tern-inspect module load --mock-devices 4' '$err' &&
			python3 '$here/check_list_json.py' '$out' 0 0 kernel"
	for args in "info 0" topo health "health -q" metrics; do
		# shellcheck disable=SC2086
		run env TERN_BACKEND=kernel "$inspect" $args
		check "inspect $args: TERN_BACKEND=kernel without tern.ko: exit 1, says how to load it" \
			sh -c "[ $rc -eq 1 ] && [ ! -s '$out' ] && grep -q 'tern.ko is not loaded .*sudo modprobe tern' '$err'"
	done
	run env TERN_BACKEND=kernel "$bench" copy -n 1
	check "bench copy: TERN_BACKEND=kernel without devices fails, says how to load the driver" \
		sh -c "[ $rc -eq 1 ] && [ ! -s '$out' ] && grep -q 'no Tern device node was found: load' '$err'"
fi

# ---- tern-bench latency ----

run "$bench" latency -n 200 -w 10
check "bench latency: exit 0, the four measurements in order" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s \", \$1 }')\" = 'null submit+wait submit back-to-back ' ]"
check "bench latency: medians above 0, p99 at or above the median" \
	test -z "$(rows | awk '$2 <= 0 || $3 < $2')"
check "bench latency: samples as asked, back-to-back in batches of 100" \
	test "$(rows | awk '{ printf "%s ", $4 }')" = "200 200 200 2 "
check "bench latency: the ratios to the null request" \
	sh -c "grep -q '^# submit+wait / null: [0-9.]*; submit / null: [0-9.]* (medians)$' '$out'"
usage_error "bench latency takes no sizes" "unknown option '-b'" "$bench" latency -b 1K
usage_error "bench latency -n 0" "-n '0': expected a whole number of iterations from 1 to 1000000" \
	"$bench" latency -n 0
usage_error "bench latency -d past the devices" "-d 99: no such device" "$bench" latency -d 99
run "$bench" latency --help
check "bench latency --help: usage and options" \
	sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-bench latency' '$out' && grep -q -- '--iters' '$out'"

# ---- tern-bench gemm ----

# gemm_rows_ok: every data row has 12 columns, #wrong 0, and figures that
# are numbers, a share of the peak of at most 1; from side 100, the
# modelled rates are above 0 (side 1's round to 0.00). The host's rates
# are only numbers: on a loaded host the ratio to OpenBLAS can round to 0.
# Prints the rows that are not so.
gemm_rows_ok() {
	bad=$(rows | awk 'NF != 12 || $7 != "0" ||
		$6 > 1 || $4 <= 0 || $8 <= 0 ||
		($1 >= 100 && ($5 <= 0 || $6 <= 0)) { print; next }
		{ for (i = 4; i <= 12; i++) if ($i !~ /^[0-9]+\.[0-9]+$/ && i != 7) { print; next } }')
	[ -n "$(rows)" ] && [ -z "$bad" ] && return 0
	echo "rows not as wanted:"
	echo "${bad:-(none at all)}"
	return 1
}

# A warm-up call each: on a machine other tests' processes share, a
# core's engines may owe their modelled clocks to work done before, and a
# first call's modelled time would count that too (tern-bench.rst).
if [ "$mode" = sim ]; then
	run env TERN_SIM_CORES=2 "$bench" gemm --sizes 1,100,256 --dtype bf16,fp8,fp32 \
		--cores 1,2 -n 1 -w 1
	check "bench gemm on 2 cores exits 0, nothing on stderr" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ]"
	check "bench gemm: a row per type, core count and size, in that order" \
		test "$(rows | awk '{ printf "%s/%s/%s ", $2, $3, $1 }')" = \
		"bf16/1/1 bf16/1/100 bf16/1/256 bf16/2/1 bf16/2/100 bf16/2/256 fp8/1/1 fp8/1/100 fp8/1/256 fp8/2/1 fp8/2/100 fp8/2/256 fp32/1/1 fp32/1/100 fp32/1/256 fp32/2/1 fp32/2/100 fp32/2/256 "
	check "bench gemm: every C right to the bit, modelled rates above 0, peak at most 1" \
		gemm_rows_ok
	check "bench gemm: out-of-bounds and peer summaries say 0 OK" \
		sh -c "grep -q '^# Out of bounds values : 0 OK$' '$out' &&
			grep -q \"^# Peer values past float32's error bound : 0 OK$\" '$out'"
	check "bench gemm on the simulator: device time is modelled by default" \
		sh -c "grep -q '^# device: modelled device time' '$out'"
	check "bench gemm: header names the cores, their peak and the peer" \
		sh -c "grep -q '^# Compute: 2 cores at 2400000000 Hz, .* peak 78.64 TFLOPS (fp32 19.66)$' '$out' &&
			grep -q '^# peer: cblas_sgemm of the same values in float32, OpenBLAS' '$out' &&
			grep '^#' '$out' | grep -q 'device.*wall.*peer: OpenBLAS'"
	for t in nt tn tt; do
		run env TERN_SIM_CORES=2 "$bench" gemm --sizes 130 --transpose $t \
			--dtype fp16 -n 1 -w 1
		check "bench gemm --transpose $t: exits 0, says so in the header" \
			sh -c "[ $rc -eq 0 ] && grep -q '^# tern-bench gemm: .* transpose $t ' '$out'"
		check "bench gemm --transpose $t: C right to the bit" gemm_rows_ok
	done
	run env TERN_SIM_CORES=2 TERN_SIM_CLOCK=wall "$bench" gemm -b 64 -e 128 -n 1 -w 0 --dtype fp8e5m2
	check "bench gemm with TERN_SIM_CLOCK=wall: the engines' clock, no share of the peak" \
		sh -c "[ $rc -eq 0 ] && grep -q \"^# device: the engines' clock\" '$out' &&
			[ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s/%s/%s/%s \", \$1, \$3, \$6, \$7 }')\" = '64/2/n/a/0 128/2/n/a/0 ' ]"
	run env -u TERN_SIM_CORES "$bench" gemm --sizes 16 --dtype bf16 -n 1 -w 0
	check "bench gemm without TERN_SIM_CORES: a chip of 8 cores, all used" \
		sh -c "[ $rc -eq 0 ] && grep -q '^# Compute: 8 cores' '$out' &&
			grep -q '^# tern-bench gemm: sizes 16 types bf16 cores 8 ' '$out'"
	usage_error "bench gemm --cores past the device's" "--cores 3: device 0 has 2 cores" \
		env TERN_SIM_CORES=2 "$bench" gemm --cores 1,3
	usage_error "bench gemm on a device without cores" \
		"device 0 has no compute cores (on the simulator TERN_SIM_CORES" \
		env TERN_SIM_CORES=0 "$bench" gemm
	usage_error "bench gemm larger than device memory" \
		"side 4096 needs 192 MiB of device memory (A and B of the widest type, C of float32); device 0 has" \
		env TERN_SIM_CORES=2 "$bench" gemm --sizes 4K
fi
for args in "-b x" "-b 0" "-e 40K" "-f 1" "-n 0" "-w -1" "-d -1" \
	"--sizes 1,,2" "--sizes 128,128" "--sizes 0" "--dtype int8" \
	"--dtype bf16," "--cores 0" "--cores 1,1" "--transpose x" \
	"--transpose nnn"; do
	# shellcheck disable=SC2086
	usage_error "bench gemm $args" "^tern-bench gemm: ${args%% *} '.*': expected [a-z]" \
		"$bench" gemm $args
done
for flag in -b -e -f -n -w -d --sizes --dtype --cores --transpose; do
	usage_error "bench gemm $flag without a value" "$flag needs a value: expected" \
		"$bench" gemm "$flag"
done
usage_error "bench gemm -b above -e" "-b (512) must not exceed -e (256)" \
	"$bench" gemm -b 512 -e 256
usage_error "bench gemm --sizes with -b" "--sizes and -b, -e or -f both give the sizes" \
	"$bench" gemm --sizes 128 -b 256
usage_error "bench gemm unknown option" "unknown option '--bogus'" \
	"$bench" gemm --bogus
usage_error "bench gemm stray argument" "unexpected argument 'extra'" \
	"$bench" gemm -n 1 extra
usage_error "bench gemm -d past the devices" "-d $devices: no such device" \
	"$bench" gemm -d "$devices"
run "$bench" gemm --help
check "bench gemm --help: every option" \
	sh -c "[ $rc -eq 0 ] && for o in -b -e -f -n -w -d -h; do
		grep -q \"^  \$o, --\" '$out' || exit 1; done &&
		for o in sizes dtype cores transpose; do
		grep -q \"^      --\$o \" '$out' || exit 1; done"

# ---- tern-bench act and softmax ----

# rows_rows_ok: every data row has 14 columns, #wrong 0, numbers for the
# figures and a share of the bound of at most 1.
rows_rows_ok() {
	[ -n "$(rows)" ] && test -z "$(rows | awk 'NF != 14 || $7 != "0" ||
		$9 > 1 || $5 <= 0 || $10 <= 0 { print; next }
		{ for (i = 5; i <= 14; i++) if ($i !~ /^[0-9]+\.[0-9]+$/ && i != 7) print }')"
}

if [ "$mode" = sim ]; then
	run env TERN_SIM_CORES=2 "$bench" act --sizes 1,100,256 --function relu,gelu,log \
		--dtype bf16,fp32 -n 1 -w 0
	check "bench act on 2 cores exits 0, nothing on stderr" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ]"
	check "bench act: a row per type, function and size, in that order" \
		test "$(rows | awk '{ printf "%s/%s/%s ", $2, $3, $1 }')" = \
		"bf16/relu/1 bf16/relu/100 bf16/relu/256 bf16/gelu/1 bf16/gelu/100 bf16/gelu/256 bf16/log/1 bf16/log/100 bf16/log/256 fp32/relu/1 fp32/relu/100 fp32/relu/256 fp32/gelu/1 fp32/gelu/100 fp32/gelu/256 fp32/log/1 fp32/log/100 fp32/log/256 "
	check "bench act: a core per block of 128 rows, at most 2" \
		test "$(rows | awk '$2 == "bf16" && $3 == "relu" { printf "%s ", $4 }')" = "1 1 2 "
	check "bench act: every y right to the bit, figures numbers, bound ratio at most 1" \
		rows_rows_ok
	check "bench act: summaries say 0 OK, bound is one ACTIVATE a block" \
		sh -c "grep -q '^# Out of bounds values : 0 OK$' '$out' &&
			grep -q '^# Peer values past 2^-10 of the reference : 0 OK$' '$out' &&
			grep -q '^# bound: 1 ACTIVATE of F + 64 cycles a block' '$out'"
	run env TERN_SIM_CORES=2 "$bench" softmax -b 64 -e 256 -f 4 --dtype fp16 -n 1 -w 0
	check "bench softmax on 2 cores: exits 0, rows 64 and 256, y right to the bit" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$err' ] &&
			[ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s/%s/%s \", \$1, \$2, \$3 }')\" = '64/fp16/softmax 256/fp16/softmax ' ]"
	check "bench softmax: figures numbers, bound ratio at most 1" rows_rows_ok
	check "bench softmax: bound is two ACTIVATEs a block" \
		sh -c "grep -q '^# bound: 2 ACTIVATEs of F + 64 cycles a block' '$out'"
	run env TERN_SIM_CORES=2 TERN_SIM_CLOCK=wall "$bench" softmax --sizes 32 --dtype bf16 -n 1 -w 0
	check "bench softmax with TERN_SIM_CLOCK=wall: the engines' clock, no bound ratio" \
		sh -c "[ $rc -eq 0 ] && grep -q \"^# device: the engines' clock\" '$out' &&
			[ \"\$(grep -v '^#' '$out' | awk '{ print \$7 \"/\" \$9 }')\" = '0/n/a' ]"
	usage_error "bench act on a device without cores" \
		"device 0 has no compute cores" env TERN_SIM_CORES=0 "$bench" act
	usage_error "bench softmax larger than device memory" \
		"side 8192 needs 512 MiB of device memory (x and y of the widest type); device 0 has" \
		env TERN_SIM_CORES=2 "$bench" softmax --sizes 8K
fi
usage_error "bench act --dtype fp8" \
	"^tern-bench act: --dtype 'fp8': expected input types, comma-separated, each once: bf16, fp16 or fp32$" \
	"$bench" act --dtype fp8
usage_error "bench act --function softmax" \
	"^tern-bench act: --function 'softmax': expected activations, comma-separated, each once: identity, relu, gelu, silu, sigmoid, tanh, exp, log, rsqrt or square$" \
	"$bench" act --function softmax
usage_error "bench act --function gelu,gelu" "--function 'gelu,gelu': expected activations" \
	"$bench" act --function gelu,gelu
usage_error "bench act --function without a value" "--function needs a value: expected activations" \
	"$bench" act --function
usage_error "bench act takes no --cores" "unknown option '--cores'" \
	"$bench" act --cores 2
usage_error "bench softmax takes no --function" "unknown option '--function'" \
	"$bench" softmax --function gelu
usage_error "bench softmax takes no --transpose" "unknown option '--transpose'" \
	"$bench" softmax --transpose nn
usage_error "bench softmax -b above -e" "-b (512) must not exceed -e (256)" \
	"$bench" softmax -b 512 -e 256
usage_error "bench softmax -n 0" "-n '0': expected a whole number of iterations" \
	"$bench" softmax -n 0
run "$bench" act --help
check "bench act --help: --function, no --cores" \
	sh -c "[ $rc -eq 0 ] && grep -q '^      --function LIST ' '$out' &&
		! grep -q -- '--cores' '$out'"
run "$bench" softmax --help
check "bench softmax --help: neither --function nor --transpose" \
	sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-bench softmax' '$out' &&
		! grep -q -e '--function' -e '--transpose' '$out'"

# ---- tern-bench collectives ----

# coll_rows_ok: every data row has #wrong 0 out of place and in place (or
# N/A in place, for all-to-all), a fabric-eff ratio, the wall time and
# busbw, the bound with its ratio in (0, 1], and the algorithm.
coll_rows_ok() {
	[ -n "$(rows)" ] && test -z "$(rows | awk 'NF != 20 || $9 != "0" ||
		($13 != "0" && $13 != "N/A") || $16 <= 0 || $18 <= 0 ||
		$19 <= 0 || $19 > 1 ||
		$20 !~ /^(direct|ring|torus|chain|pairwise)$/')"
}

if [ "$mode" = sim ]; then
	run env TERN_SIM_DEVICES=4 "$bench" all-reduce -b 1K -e 64K -f 4 -n 2 -w 1
	check "bench all-reduce -b 1K -e 64K -f 4 on 4 devices exits 0" rc_is 0
	check "bench all-reduce: one row per size, 1K 4K 16K 64K" \
		test "$(rows | awk '{ printf "%s ", $1 }')" = "1024 4096 16384 65536 "
	check "bench all-reduce: count, type, redop and root columns" \
		test -z "$(rows | awk '$2 != $1 / 4 || $3 != "float" || $4 != "sum" || $5 != -1')"
	check "bench all-reduce: #wrong 0 out of place and in place" \
		test -z "$(rows | awk '$9 != "0" || $13 != "0"')"
	check "bench all-reduce: out-of-bounds and bus bandwidth summaries" \
		sh -c "grep -q '^# Out of bounds values : 0 OK$' '$out' &&
			grep -q '^# Avg bus bandwidth    : [0-9.e+-]*$' '$out'"
	check "bench all-reduce: header names both groups, fabric-eff, wall and bound" \
		sh -c "grep '^#' '$out' | grep -q 'out-of-place.*in-place.*fabric-eff.*wall.*bound'"
	check "bench all-reduce: nothing on stderr" test ! -s "$err"
	check "bench all-reduce on the simulator: times are modelled by default" \
		sh -c "grep -q '^# time: modelled device time' '$out'"
	run env TERN_SIM_DEVICES=4 TERN_SIM_CLOCK=wall "$bench" all-reduce -b 1K -e 1K -n 1 -w 0
	check "bench all-reduce with TERN_SIM_CLOCK=wall: the engines' clock" \
		sh -c "[ $rc -eq 0 ] && grep -q \"^# time: the engines' clock\" '$out'"

	# trn2: a 4x4 torus, 4 hops of 1.5 us apart at most, 1,024 GB/s a chip
	run env TERN_SIM_TOPOLOGY=trn2 TERN_SIM_DEVICES=16 "$bench" all-reduce -b 8 -e 2M -f 512 -n 2 -w 1 -c 0
	check "bench all-reduce on trn2: bounds 6 us at 8 B, 9.84 us at 2 MiB" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '{ printf \"%s:%s \", \$1, \$18 }')\" = '8:6.00 4096:6.01 2097152:9.84 ' ]"
	# 4 KiB goes straight to every peer over shared links, where turns
	# follow the host's order (Documentation/simulator.rst): not compared
	first=$(rows | awk '$1 != 4096 { print $6 }' | tr '\n' ' ')
	run env TERN_SIM_TOPOLOGY=trn2 TERN_SIM_DEVICES=16 "$bench" all-reduce -b 8 -e 2M -f 512 -n 2 -w 1 -c 0
	check "bench all-reduce on trn2: the same modelled times again" \
		test "$(rows | awk '$1 != 4096 { print $6 }' | tr '\n' ' ')" = "$first"
	check "bench all-reduce on trn2: direct up to a slot's piece, then by rows and columns" \
		test "$(rows | awk '{ printf "%s ", $20 }')" = "direct direct torus "

	# timing only: the same modelled times with no byte moved, unchecked
	run env TERN_SIM_TOPOLOGY=trn2 TERN_SIM_DEVICES=16 TERN_SIM_DATA=off "$bench" all-reduce -b 8 -e 2M -f 512 -n 2 -w 1 -c 0
	check "bench all-reduce with TERN_SIM_DATA=off: the same modelled times" \
		test "$(rows | awk '$1 != 4096 { print $6 }' | tr '\n' ' ')" = "$first"
	run env TERN_SIM_TOPOLOGY=trn2 TERN_SIM_DEVICES=16 TERN_SIM_DATA=off "$bench" all-reduce -b 8 -e 8 -n 1 -w 0
	check "bench all-reduce with TERN_SIM_DATA=off and checks: refused, says -c 0" \
		sh -c "[ $rc -eq 2 ] && grep -q 'TERN_SIM_DATA=off moves no data.*add -c 0' '$err'"

	run env TERN_SIM_DEVICES=4 TERN_ALGO=ring "$bench" all-reduce -b 8 -e 8 -n 1 -w 0
	check "bench all-reduce with TERN_ALGO=ring: rings at 8 B, exact" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '\$9 == 0 && \$13 == 0 { print \$20 }')\" = ring ]"
	run env TERN_SIM_DEVICES=4 TERN_ALGO=fastest "$bench" all-reduce -b 8 -e 8 -n 1 -w 0
	check "bench all-reduce with TERN_ALGO=fastest: fails, names the choices" \
		sh -c "[ $rc -eq 1 ] && grep -q 'TERN_ALGO=.fastest. is none of direct, ring, torus, chain or pairwise' '$err'"

	for test in all-gather reduce-scatter broadcast reduce all-to-all; do
		run env TERN_SIM_DEVICES=3 "$bench" $test -b 1K -e 96K -f 8 -n 1 -w 1 -r 2
		check "bench $test on 3 devices: exit 0, #wrong 0" \
			sh -c "[ $rc -eq 0 ] && grep -q '^# Out of bounds values : 0 OK$' '$out'"
		check "bench $test: rows of 15 columns, #wrong 0" coll_rows_ok
	done

	run env TERN_SIM_DEVICES=4 "$bench" all-reduce -b 1K -e 4K -n 1 -w 0 -d half -o max
	check "bench all-reduce -d half -o max: exit 0, #wrong 0" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '\$3 == \"half\" && \$4 == \"max\" && \$9 == 0 && \$13 == 0' | wc -l)\" -eq 2 ]"
	run env TERN_SIM_DEVICES=3 TERN_SIM_TOPOLOGY=ring "$bench" all-reduce -b 1K -e 512K -n 1 -w 0 -d bfloat16 -o avg
	check "bench all-reduce -d bfloat16 -o avg on a 3-ring: exit 0, #wrong 0" \
		sh -c "[ $rc -eq 0 ] && grep -q '^# Out of bounds values : 0 OK$' '$out'"
	run env TERN_SIM_DEVICES=5 TERN_SIM_TOPOLOGY=ring "$bench" reduce -b 1K -e 1K -n 1 -w 0 -d int8 -o prod -r 4
	check "bench reduce -d int8 -o prod -r 4 on a 5-ring: exit 0, #wrong 0" \
		sh -c "[ $rc -eq 0 ] && grep -q '^# Out of bounds values : 0 OK$' '$out'"

	# The ratio comes from exact link counters, not from timing.
	run env TERN_SIM_DEVICES=4 TERN_SIM_TOPOLOGY=ring "$bench" all-reduce -b 64K -e 64K -n 1 -w 0
	check "bench all-reduce 64K on a 4-device ring: fabric-eff ratio in (0, 1]" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '\$15 > 0 && \$15 <= 1.0 && \$14 > 0' | wc -l)\" -eq 1 ]"
	run env TERN_SIM_DEVICES=4 TERN_SIM_TOPOLOGY=none "$bench" all-reduce -b 1K -e 1K -n 1 -w 0 -g 1
	check "bench all-reduce without fabric links: fabric-eff n/a" \
		sh -c "[ $rc -eq 0 ] && grep -v '^#' '$out' | awk '\$14 == \"n/a\" && \$15 == \"n/a\" && \$20 == \"local\"' | grep -q ."
	usage_error "bench broadcast -r past the last rank" "-r 3: no such rank; 3 ranks" \
		env TERN_SIM_DEVICES=3 "$bench" broadcast -r 3
	usage_error "bench all-reduce -g past the devices" "-g 4: only 3 devices present" \
		env TERN_SIM_DEVICES=3 "$bench" all-reduce -g 4
fi

usage_error "bench all-reduce bad -d" "-d 'float33': expected a data type" \
	"$bench" all-reduce -d float33
usage_error "bench all-reduce bad -o" "-o 'mean': expected a reduction" \
	"$bench" all-reduce -o mean
usage_error "bench broadcast bad -r" "-r 'x': expected a root rank" \
	"$bench" broadcast -r x
usage_error "bench reduce negative -r" "-r '-1': expected a root rank" \
	"$bench" reduce -r -1
usage_error "bench all-reduce bad -c" "-c '2': expected 0" \
	"$bench" all-reduce -c 2
usage_error "bench all-gather -g 0" "-g '0': expected a number of devices" \
	"$bench" all-gather -g 0
run "$bench" all-reduce --help
check "bench all-reduce --help shows every collective option" \
	sh -c "[ $rc -eq 0 ] && for o in -b -e -f -n -w -c -d -o -r -g -h; do
		grep -q \"^  \$o, --\" '$out' || exit 1; done"

# ---- tern-inspect: a process holding device 0 open is its client ----

if [ "$mode" = kernel ]; then
	node0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["node"])' "$tmp/compact")
	python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
open(sys.argv[2], "w").close()
time.sleep(600)' "$node0" "$tmp/ready" &
	holder=$!
	tries=0
	while [ ! -e "$tmp/ready" ] && [ $tries -lt 300 ] && kill -0 $holder 2>/dev/null; do
		sleep 0.1
		tries=$((tries + 1))
	done
	run "$inspect" list -v --json
	check "inspect list -v --json: the process holding $node0 is a client of device 0" \
		python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))["devices"][0]
sys.exit(not any(c["pid"] == int(sys.argv[2]) and c["comm"] == "python3" for c in d["clients"]) or d["client_count"] < 1)' "$out" "$holder"
	run "$inspect" info 0
	check "inspect info 0: the client's pid and command" \
		grep -q "^  $holder  *python3  " "$out"
	run "$inspect" metrics
	check "inspect metrics: tern_client_memory_bytes for the client" \
		grep -q "^tern_client_memory_bytes{device=\"0\",pid=\"$holder\",client=\"[0-9]*\",comm=\"python3\",kind=\"device\"} 0$" "$out"
	kill $holder
	wait $holder 2>/dev/null
fi

# ---- tern-inspect on a link fault (tern.ko's debugfs; last: faults stick) ----

if [ "$mode" = kernel ]; then
	case "$node0" in
	/dev/dri/renderD*) link_file=/sys/kernel/debug/dri/${node0#/dev/dri/renderD}/fabric_link ;;
	*) link_file=/sys/kernel/debug/accel/tern.0/fabric_link ;;
	esac
	if [ "$links_total" -gt 0 ] && [ -w "$link_file" ] && echo "0 down" >"$link_file"; then
		run "$inspect" health
		check "inspect health with device 0's port 0 down: exit 1, the link and device 0 degraded" \
			sh -c "[ $rc -eq 1 ] && grep -q '^link [0-9]*: device [0-9]* port [0-9]* <-> device [0-9]* port [0-9]*: DOWN, ' '$out' &&
				grep -qE '^0  +degraded  +[a-z_,]*link_down' '$out' && tail -n 1 '$out' | grep -q '^UNHEALTHY: '"
		run "$inspect" health -q
		check "inspect health -q with a link down: exit 1, silent" \
			sh -c "[ $rc -eq 1 ] && [ ! -s '$out' ]"
		run "$inspect" topo
		check "inspect topo with a link down: drawn with an x, DOWN in the table" \
			sh -c "[ $rc -eq 0 ] && grep -q 'x' '$out' && [ \$(grep -c '  DOWN  ' '$out') -eq 1 ]"
		run "$inspect" metrics
		check "inspect metrics with a link down: tern_link_up 0 and health 1 for device 0" \
			sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^tern_link_up{.*} 0$' '$out') -eq 1 ] &&
				grep -q '^tern_device_health{device=\"0\"} [12]$' '$out'"
		echo "0 up" >"$link_file"
	else
		skip "inspect with a link down" "no writable $link_file or no links (needs root and debugfs)"
	fi
fi

# ---- tern-inspect net: counters' files libtern keeps (net/stats.h) ----
run_dir="$tmp/run"
mkdir -p "$run_dir"
# net_file NAME PID MAGIC: a comm of rank 1 of 8 on host a with two peer
# hosts, as libtern writes it.
net_file() {
	python3 - "$run_dir/$1" "$2" "$3" <<'PY'
import struct, sys
path, pid, magic = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
head = struct.pack('<8s4i2I64s64s', magic, pid, 1, 8, 3, 2, 0, b'a', b'tcp')
peers = struct.pack('<64s2I5Q', b'b', 4, 0, 1000, 10, 2000, 20, 0) + \
	struct.pack('<64s2I5Q', b'c"x', 4, 0, 3000, 30, 4000, 40, 5)
open(path, 'wb').write(head + peers)
PY
}
sh -c 'exit 0' &
dead=$!
wait "$dead"
net_file "net-$$-0" $$ ternnst1
net_file "net-$dead-0" "$dead" ternnst1
net_file "net-$$-1" $$ nonsense
run env TERN_RUN_DIR="$run_dir" "$inspect" net
check "inspect net: a row per peer host of the live process's comm" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^$$ ' '$out') -eq 2 ] &&
		grep -qE '^$$ +1/8 +a +b +4 +1000 +10 +2000 +20 +0\$' '$out' &&
		grep -qE '^$$ +1/8 +a +c\"x +4 +3000 +30 +4000 +40 +5\$' '$out' &&
		! grep -q '^$dead ' '$out'"
run env TERN_RUN_DIR="$run_dir" "$inspect" net --json
check "inspect net --json: the same comm, its peers' counters" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["comms"]
sys.exit(not (d["schema_version"] == 1 and len(c) == 1 and
	c[0]["pid"] == int(sys.argv[2]) and c[0]["provider"] == "tcp" and
	[p["tx_bytes"] for p in c[0]["peers"]] == [1000, 3000] and
	c[0]["peers"][1]["errors"] == 5))' "$out" $$
run env TERN_RUN_DIR="$run_dir" "$inspect" metrics
check "inspect metrics: tern_net_* per peer host, labels escaped" \
	sh -c "[ $rc -eq 0 ] &&
		grep -q '^tern_net_rx_bytes_total{pid=\"$$\",rank=\"1\",host=\"a\",peer_host=\"b\"} 2000\$' '$out' &&
		grep -q '^tern_net_errors_total{pid=\"$$\",rank=\"1\",host=\"a\",peer_host=\"c\\\\\"x\"} 5\$' '$out'"
run env TERN_RUN_DIR="$tmp/none" "$inspect" net
check "inspect net with no comm: says so, exit 0" \
	sh -c "[ $rc -eq 0 ] && grep -q '^no communicator across hosts runs\$' '$out'"

tap_finish "tools ($mode)"
