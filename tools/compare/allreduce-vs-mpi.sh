#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark, not a test: tern-bench all-reduce on the simulator against
# Open MPI's MPI_Allreduce (Debian's openmpi-bin) with the same rank counts
# and sizes, measured side by side in one run on this machine. Prints, per
# rank count and size, both bus bandwidths (float sum, out of place) and
# their ratio.
#
#   tools/compare/allreduce-vs-mpi.sh [RANKS...]     default: 2 4 8 16
#
# Needs: openmpi-bin libopenmpi-dev (apt-get install), `make userspace`.
# Sizes: TERN_COMPARE_MIN / TERN_COMPARE_MAX bytes (default 1M / 64M).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
min=${TERN_COMPARE_MIN:-1048576}
max=${TERN_COMPARE_MAX:-67108864}
iters=${TERN_COMPARE_ITERS:-5}
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 4 8 16)

if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
	echo "allreduce-vs-mpi: needs Open MPI: apt-get install openmpi-bin libopenmpi-dev" >&2
	exit 2
fi
[ -x "$BUILD/tern-bench" ] || { echo "allreduce-vs-mpi: run make userspace first" >&2; exit 2; }
mkdir -p "$BUILD/compare"
mpicc -O2 -std=c11 -o "$BUILD/compare/mpi_allreduce" tools/compare/mpi_allreduce.c

echo "# all-reduce, float sum, out of place, busbw in GB/s (nccl-tests definition)"
echo "# machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "# tern: simulator (TERN_SIM_TOPOLOGY auto: torus KxK when ranks = K*K, else ring)"
printf '%6s %13s %12s %12s %8s\n' ranks size tern-busbw mpi-busbw ratio
for n in "${ranks[@]}"; do
	tern=$(TERN_BACKEND=sim TERN_SIM_DEVICES=$n TERN_SIM_MEM_MB=$(( (max * 6) / 1048576 + 64 )) \
		"$BUILD/tern-bench" all-reduce -b "$min" -e "$max" -f 4 -n "$iters" -w 1 -d float -o sum |
		awk '!/^#/ && NF >= 8 { print $1, $8 }')
	mpi=$(mpirun --allow-run-as-root --oversubscribe -np "$n" \
		"$BUILD/compare/mpi_allreduce" -b "$min" -e "$max" -n "$iters" -w 1 |
		awk '!/^#/ { print $1, $4 }')
	join <(sort -k1,1 <<<"$tern") <(sort -k1,1 <<<"$mpi") | sort -n |
		awk -v n="$n" '{ printf "%6d %13d %12.2f %12.2f %8.2f\n", n, $1, $2, $3, ($3 > 0 ? $2 / $3 : 0) }'
done
