#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark, not a test: the tuner's choice against every algorithm forced
# (TERN_ALGO), in modelled time on a simulated preset, side by side. Prints
# per size the tuned time and algorithm, each forced algorithm's time (the
# one that ran, where the forced one cannot run at that size), the fabric's
# bound and the tuned time's share of it.
#
#   tools/compare/algorithms.sh [TOPOLOGY [COLLECTIVE]]   default: trn2 all-reduce
#
# Sizes: TERN_COMPARE_MIN / TERN_COMPARE_MAX bytes (default 8 / 1G), by
# factors of TERN_COMPARE_FACTOR (default 4). Timing only (TERN_SIM_DATA=off,
# Documentation/simulator.rst): the same modelled times as with data, and
# no host memory for the buffers.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
topology=${1:-trn2}
coll=${2:-all-reduce}
min=${TERN_COMPARE_MIN:-8}
max=${TERN_COMPARE_MAX:-1073741824}
factor=${TERN_COMPARE_FACTOR:-4}
case $coll in
broadcast|reduce) algos="direct chain" ;;
all-to-all) algos="pairwise" ;;
all-reduce) algos="direct ring torus" ;;
*) algos="direct ring" ;;
esac
[ -x "$BUILD/tern-bench" ] || { echo "algorithms: run make userspace first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the buffers, and the slots of up to 64 ranks
mem=$(( (max * 3) / 1048576 + 128 ))

# size, modelled time, algorithm that ran, bound, for one TERN_ALGO
sweep() {
	TERN_BACKEND=sim TERN_SIM_MACHINE=auto TERN_SIM_DIR="$tmp" \
		TERN_SIM_TOPOLOGY="$topology" TERN_SIM_MEM_MB=$mem TERN_ALGO="$1" \
		TERN_SIM_DATA=off \
		"$BUILD/tern-bench" "$coll" -b "$min" -e "$max" -f "$factor" \
		-n 2 -w 1 -c 0 | awk '!/^#/ { print $1, $6, $20, $18 }'
}

sweep "" > "$tmp/tuned"
for a in $algos; do
	sweep "$a" > "$tmp/$a"
done
echo "# $coll on the simulator's $topology preset, modelled time in us (TERN_SIM_CLOCK=model)"
printf '%12s %10s %9s' size tuned algo
for a in $algos; do
	printf ' %14s' "$a"
done
printf ' %10s %6s\n' bound ratio
awk -v algos="$algos" -v dir="$tmp" '
BEGIN {
	n = split(algos, name, " ")
	for (i = 1; i <= n; i++)
		while ((getline line < (dir "/" name[i])) > 0) {
			split(line, f, " ")
			t[i, f[1]] = f[2]
			ran[i, f[1]] = f[3]
		}
}
{
	printf "%12d %10.2f %9s", $1, $2, $3
	for (i = 1; i <= n; i++) {
		cell = sprintf("%.2f", t[i, $1])
		if (ran[i, $1] != name[i])
			cell = cell "(" ran[i, $1] ")"
		printf " %14s", cell
	}
	printf " %10.2f %6.2f\n", $4, ($2 > 0 ? $4 / $2 : 0)
}' "$tmp/tuned"
