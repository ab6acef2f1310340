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
	devices=3 mem_mb=64
else
	params=/sys/module/tern/parameters
	if [ ! -r $params/mock_devices ]; then
		echo "run.sh: --kernel: tern.ko is not loaded" >&2
		exit 1
	fi
	export TERN_BACKEND=kernel
	devices=$(cat $params/mock_devices) mem_mb=$(cat $params/mock_mem_mb)
fi
mem_bytes=$((mem_mb * 1024 * 1024))
if [ $((mem_mb % 1024)) -eq 0 ]; then
	mem_shown="$((mem_mb / 1024))GiB"
else
	mem_shown="${mem_mb}MiB"
fi
last=$((devices - 1))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out err=$tmp/err
count=0 failed=0

pass() {
	count=$((count + 1))
	echo "ok $count - $1"
}

# fail NAME DETAIL...: each DETAIL becomes a "#" line under the result.
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
	echo "ok $count - $1 # SKIP $2"
}

# check NAME CONDITION...: passes if the condition command succeeds; on
# failure shows what it printed, then the last run's status and output.
check() {
	name=$1
	shift
	if "$@" >"$tmp/why" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(cat "$tmp/why")" "exit status $rc" \
			"stdout: $(head -c 600 "$out")" \
			"stderr: $(head -c 600 "$err")"
	fi
}

# run CMD...: runs CMD with output in $out and $err, status in $rc.
run() {
	"$@" >"$out" 2>"$err"
	rc=$?
}

rc_is() { [ "$rc" -eq "$1" ]; }
out_has() { grep -q -e "$1" "$out"; }
err_has() { grep -q -e "$1" "$err"; }
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
		sh -c "[ $rc -eq 0 ] && grep -q '^  copy ' '$out'"
done
for args in "copy --help" "copy -h" "help copy"; do
	# shellcheck disable=SC2086
	run "$bench" $args
	check "bench $args shows every copy option" \
		sh -c "[ $rc -eq 0 ] && for o in -b -e -f -n -w -d -h; do
			grep -q \"^  \$o, --\" '$out' || exit 1; done"
done

# ---- tern-inspect list ----

# list_rows: data rows of plain `list`, after the backend and header lines.
list_rows() { tail -n +3 "$out"; }

run "$inspect" list
check "inspect list exits 0" rc_is 0
check "inspect list: first line states the backend" \
	test "$(head -n 1 "$out")" = "backend: $mode (TERN_BACKEND=$mode)"
check "inspect list: column header" \
	sh -c "sed -n 2p '$out' | grep -q '^DEVICE  *NODE  *MEMORY USED / TOTAL  *ENGINES  *PORTS$'"
check "inspect list: one row per device ($devices)" \
	test "$(list_rows | wc -l)" -eq "$devices"
check "inspect list: rows are devices 0 to $last, each of $mem_shown" \
	test "$(list_rows | awk '{ printf "%s:%s ", $1, $6 $7 }')" = \
	"$(seq 0 $last | awk -v m="$mem_shown" '{ printf "%s:%s ", $1, m }')"

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

if [ "$mode" = sim ]; then
	for n in 1 5; do
		run env TERN_SIM_DEVICES=$n "$inspect" list
		check "inspect list: $n rows for TERN_SIM_DEVICES=$n" \
			sh -c "[ $rc -eq 0 ] && [ \$(tail -n +3 '$out' | wc -l) -eq $n ]"
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
else
	check "inspect list --json: nodes are accel or render nodes" \
		python3 -c 'import json,sys; sys.exit(not all(d["node"].startswith(("/dev/accel/accel", "/dev/dri/renderD")) for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/compact"
	run env -u TERN_BACKEND "$inspect" list
	check "inspect list: automatic backend is the kernel's" \
		test "$(head -n 1 "$out")" = "backend: kernel (Tern device node found)"
fi

# ---- tern-inspect: bad input and help ----

usage_error "inspect without a command" "expected a command" "$inspect"
usage_error "inspect unknown command" "unknown command 'nope'; commands are: list help" \
	"$inspect" nope
usage_error "inspect unknown option" "unknown option '-x'" "$inspect" -x list
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
for args in "list --help" "list -h" "help list"; do
	# shellcheck disable=SC2086
	run "$inspect" $args
	check "inspect $args shows the list options" \
		sh -c "[ $rc -eq 0 ] && grep -q '^Usage: tern-inspect list' '$out' && grep -q -- '--json' '$out'"
done

# ---- both tools: settings libtern refuses, and no kernel devices ----

settings=TERN_BACKEND=gpu
[ "$mode" = sim ] &&
	settings="$settings TERN_SIM_DEVICES=0 TERN_SIM_DEVICES=65 TERN_SIM_MEM_MB=abc"
for setting in $settings; do
	shown="${setting%%=*}='${setting#*=}'"
	usage_error "bench with $setting" "refused the backend configuration:.* $shown" \
		env "$setting" "$bench" copy -n 1
	usage_error "inspect list with $setting" "refused the backend configuration:.* $shown" \
		env "$setting" "$inspect" list
done

if [ "$mode" = kernel ] || ls /dev/accel/accel* /dev/dri/renderD* >/dev/null 2>&1; then
	skip "inspect list: TERN_BACKEND=kernel without devices" \
		"this machine has DRM render or accel nodes (mode $mode)"
	skip "bench copy: TERN_BACKEND=kernel without devices" \
		"this machine has DRM render or accel nodes (mode $mode)"
else
	run env TERN_BACKEND=kernel "$inspect" list --json
	check "inspect list: TERN_BACKEND=kernel without devices fails, says how to load the driver" \
		sh -c "[ $rc -eq 1 ] && grep -q 'no Tern device node was found: load' '$err' &&
			python3 '$here/check_list_json.py' '$out' 0 0 kernel"
	run env TERN_BACKEND=kernel "$bench" copy -n 1
	check "bench copy: TERN_BACKEND=kernel without devices fails, says how to load the driver" \
		sh -c "[ $rc -eq 1 ] && [ ! -s '$out' ] && grep -q 'no Tern device node was found: load' '$err'"
fi

# ---- tern-bench collectives ----

# coll_rows_ok: every data row has #wrong 0 out of place and in place (or
# N/A in place, for all-to-all), and a fabric-eff ratio column.
coll_rows_ok() {
	[ -n "$(rows)" ] && test -z "$(rows | awk 'NF != 15 || $9 != "0" ||
		($13 != "0" && $13 != "N/A")')"
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
	check "bench all-reduce: header names both groups and fabric-eff" \
		sh -c "grep '^#' '$out' | grep -q 'out-of-place.*in-place.*fabric-eff'"
	check "bench all-reduce: nothing on stderr" test ! -s "$err"

	for test in all-gather reduce-scatter broadcast reduce all-to-all; do
		run env TERN_SIM_DEVICES=3 "$bench" $test -b 1K -e 96K -f 8 -n 1 -w 1 -r 2
		check "bench $test on 3 devices: exit 0, #wrong 0" \
			sh -c "[ $rc -eq 0 ] && grep -q '^# Out of bounds values : 0 OK$' '$out'"
		check "bench $test: rows of 15 columns, #wrong 0" coll_rows_ok
	done

	run env TERN_SIM_DEVICES=4 "$bench" all-reduce -b 1K -e 4K -n 1 -w 0 -d half -o max
	check "bench all-reduce -d half -o max: exit 0, #wrong 0" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '\$3 == \"half\" && \$4 == \"max\" && \$9 == 0 && \$13 == 0' | wc -l)\" -eq 2 ]"
	run env TERN_SIM_DEVICES=5 TERN_SIM_TOPOLOGY=ring "$bench" reduce -b 1K -e 1K -n 1 -w 0 -d int8 -o prod -r 4
	check "bench reduce -d int8 -o prod -r 4 on a 5-ring: exit 0, #wrong 0" \
		sh -c "[ $rc -eq 0 ] && grep -q '^# Out of bounds values : 0 OK$' '$out'"

	# The ratio comes from exact link counters, not from timing.
	run env TERN_SIM_DEVICES=4 TERN_SIM_TOPOLOGY=ring "$bench" all-reduce -b 64K -e 64K -n 1 -w 0
	check "bench all-reduce 64K on a 4-device ring: fabric-eff ratio in (0, 1]" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -v '^#' '$out' | awk '\$15 > 0 && \$15 <= 1.0 && \$14 > 0' | wc -l)\" -eq 1 ]"
	run env TERN_SIM_DEVICES=4 TERN_SIM_TOPOLOGY=none "$bench" all-reduce -b 1K -e 1K -n 1 -w 0 -g 1
	check "bench all-reduce without fabric links: fabric-eff n/a" \
		sh -c "[ $rc -eq 0 ] && grep -v '^#' '$out' | grep -q ' n/a  *n/a$'"
	usage_error "bench broadcast -r past the last rank" "-r 3: no such rank; 3 ranks" \
		env TERN_SIM_DEVICES=3 "$bench" broadcast -r 3
	usage_error "bench all-reduce -g past the devices" "-g 4: only 3 devices present" \
		env TERN_SIM_DEVICES=3 "$bench" all-reduce -g 4
fi

usage_error "bench all-reduce bad -d" "-d 'float33': expected a data type" \
	"$bench" all-reduce -d float33
usage_error "bench all-reduce bad -o" "-o 'avg': expected a reduction" \
	"$bench" all-reduce -o avg
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

echo "1..$count"
echo "# tools ($mode): $((count - failed)) passed, $failed failed"
# The summary tests/suite-lib.sh counts (cmocka's wording).
echo "[  PASSED  ] $((count - failed)) test(s)."
[ "$failed" -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
[ "$failed" -eq 0 ]
