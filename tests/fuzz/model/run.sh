#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Runs the device model fuzzer (Documentation/fuzzing.rst).
#
#   run.sh [--time SECONDS] [-- LIBFUZZER_ARGS...]
#	builds $BUILD/fuzz/fuzz_model and fuzzes $BUILD/fuzz/run/corpus,
#	seeded from tests/fuzz/model/corpus (never written to): what earlier
#	runs found there is kept, so runs add up to a campaign
#   run.sh --check [--time SECONDS]
#	the bounded run of make check: the tree's corpus must be what
#	gen_corpus.py writes, then a fresh copy is fuzzed with a fixed seed;
#	exits 1 on any crash, sanitizer report or oracle failure, naming
#	the reproducer, and 77 (skipped) without clang-14's libFuzzer
#   run.sh --probe
#	exits 0 if $FUZZ_CC (default clang-14) links a libFuzzer program,
#	else says what to install and exits 1
#
# Either run ends with a line of executions, coverage and corpus size.
# Environment: BUILD (default build), MAKE, FUZZ_CC.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
make=${MAKE:-make}
cc=${FUZZ_CC:-clang-14}
fuzzer=$build/fuzz/fuzz_model
mode=run
time=60
check_seed=1

usage() {
	sed -n '4,19s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check ;;
	--probe) mode=probe ;;
	--time)
		[ $# -ge 2 ] || usage
		time=$2
		shift
		;;
	--) shift; break ;;
	*) usage ;;
	esac
	shift
done
case $time in '' | *[!0-9]*) usage ;; esac

# A program with a fuzz target links only where clang has libFuzzer and
# the sanitizer runtimes.
probe() {
	local tmp rc=0

	tmp=$(mktemp -d) || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>"$tmp/probe.c"
	"$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" \
		>/dev/null 2>&1 || rc=1
	rm -rf "$tmp"
	if [ "$rc" != 0 ]; then
		echo "fuzz-model: SKIP: $cc cannot build a libFuzzer program" \
			"(apt-get install clang-14 libfuzzer-14-dev libclang-rt-14-dev)"
	fi
	return "$rc"
}

# stat NAME LOG: a number from libFuzzer's -print_final_stats lines.
stat() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# summary LOG CORPUS: executions, speed, coverage and corpus, in one line,
# from the final stats or, with -fork (which prints none), the last status.
summary() {
	local log=$1 corpus=$2 last execs speed seconds
	last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1)
	execs=$(stat number_of_executed_units "$log")
	speed=$(stat average_exec_per_sec "$log")
	seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
	echo "fuzz-model: ${execs:-$(field '#' "$last")} execs" \
		"in ${seconds:-$(field ' time: ' "$last")} s" \
		"(${speed:-$(field 'exec/s:\{0,1\} ' "$last")}/s)," \
		"cov: $(field 'cov: ' "$last") ft: $(field 'ft: ' "$last")," \
		"corpus: $(find "$corpus" -type f | wc -l) inputs in ${corpus#"$top"/}"
}

# field PREFIX LINE: the number after PREFIX in a libFuzzer status line.
field() {
	sed -n "s|^.*$1\([0-9][0-9]*\).*|\1|p" <<<"$2"
}

# failure LOG: what went wrong and how to see it again.
failure() {
	local log=$1 unit
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	echo "fuzz-model: FAILED"
	grep -E 'oracle failed|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error|^SUMMARY' \
		"$log" | head -n 8 | sed 's/^/    /'
	if [ -n "$unit" ]; then
		echo "fuzz-model: reproducer: ${unit#"$top"/}"
		echo "fuzz-model: rerun it: ${fuzzer#"$top"/} ${unit#"$top"/}"
	fi
}

if [ "$mode" = probe ]; then
	probe
	exit
fi
if ! probe; then
	[ "$mode" = check ] && exit 77
	exit 0
fi

cd "$top" || exit 1
if [ "$mode" = check ] && ! python3 tests/fuzz/model/gen_corpus.py --check; then
	exit 1
fi
"$make" --no-print-directory -j"${FUZZ_JOBS:-2}" BUILD="$build" FUZZ_CC="$cc" \
	"$fuzzer" || exit 1

work=$build/fuzz/$mode
args=()
if [ "$mode" = check ]; then
	rm -rf "$work"
	args+=("-seed=$check_seed")
fi
mkdir -p "$work/corpus" "$work/artifacts"
# -n: a campaign keeps the inputs it found, and the seeds as they were.
cp -n tests/fuzz/model/corpus/* "$work/corpus/"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# From $work: -jobs and -fork write their logs to the current directory.
# libFuzzer's own failure code is 77, which tests/check.sh reads as a skip.
(cd "$work" && "$fuzzer" -max_total_time="$time" -print_final_stats=1 \
	-max_len=4096 -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 \
	-timeout_exitcode=1 -dict="$here/fuzz_model.dict" \
	-artifact_prefix="$work/artifacts/" "${args[@]}" "$@" "$work/corpus") 2>&1 |
	tee "$work/fuzz.log"
rc=${PIPESTATUS[0]}

if [ "$rc" != 0 ]; then
	failure "$work/fuzz.log"
	exit 1
fi
summary "$work/fuzz.log" "$work/corpus"
