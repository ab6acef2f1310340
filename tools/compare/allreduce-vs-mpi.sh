#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark, not a test: tern-bench all-reduce on the simulator against
# Open MPI's MPI_Allreduce (Debian's openmpi-bin) with the same rank counts
# and sizes, measured side by side in one run on this machine. Prints, per
# rank count and size, both times and bus bandwidths (float sum, out of
# place) and the ratio Open MPI time / Tern time (above 1: Tern is faster).
#
#   tools/compare/allreduce-vs-mpi.sh [RANKS...]     default: 2 4 8 16
#
# Needs: openmpi-bin libopenmpi-dev (apt-get install), `make userspace`.
# Sizes: TERN_COMPARE_MIN / TERN_COMPARE_MAX bytes (default 8 / 32M), by
# factors of TERN_COMPARE_FACTOR (default 4); TERN_COMPARE_ITERS (20).
# Tern's time is the host's clock around the iterations (tern-bench's wall
# column), as MPI_Wtime() is; TERN_COMPARE_CLOCK=engine takes the engines'
# clock between events instead (TERN_SIM_CLOCK=wall), as this script did
# before tern-bench had a wall column.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
min=${TERN_COMPARE_MIN:-8}
max=${TERN_COMPARE_MAX:-33554432}
factor=${TERN_COMPARE_FACTOR:-4}
iters=${TERN_COMPARE_ITERS:-20}
case ${TERN_COMPARE_CLOCK:-wall} in
wall) tcol=16 bcol=17 clock=model ;;
engine) tcol=6 bcol=8 clock=wall ;;
*) echo "allreduce-vs-mpi: TERN_COMPARE_CLOCK takes wall or engine" >&2; exit 2 ;;
esac
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
printf '%6s %13s %12s %12s %12s %12s %8s\n' ranks size tern-us mpi-us \
	tern-busbw mpi-busbw ratio
for n in "${ranks[@]}"; do
	tern=$(TERN_BACKEND=sim TERN_SIM_MACHINE=auto TERN_SIM_CLOCK=$clock TERN_SIM_DEVICES=$n TERN_SIM_MEM_MB=$(( (max * 6) / 1048576 + 64 )) \
		"$BUILD/tern-bench" all-reduce -b "$min" -e "$max" -f "$factor" -n "$iters" -w 2 -d float -o sum |
		awk -v t="$tcol" -v b="$bcol" '!/^#/ && NF >= 17 { print $1, $t, $b }')
	mpi=$(mpirun --allow-run-as-root --oversubscribe -np "$n" \
		"$BUILD/compare/mpi_allreduce" -b "$min" -e "$max" -n "$iters" -w 2 |
		awk '!/^#/ { print $1, $2, $4 }')
	join <(sort -k1,1 <<<"$tern") <(sort -k1,1 <<<"$mpi") | sort -n |
		awk -v n="$n" '{ printf "%6d %13d %12.2f %12.2f %12.2f %12.2f %8.2f\n", n, $1, $2, $4, $3, $5, ($2 > 0 ? $4 / $2 : 0) }'
done
