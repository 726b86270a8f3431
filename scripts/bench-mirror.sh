#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmarks of the READ/WRITE helper's CPU path in the userspace mirror
# (make bench-mirror): an optimized build without sanitizers, Google
# Benchmark's time per I/O and callgrind's instructions per I/O for every
# row of mirror/bench/rig.cpp.  Prints a table; writes build/bench/mirror.json.
#
#   scripts/bench-mirror.sh [REGEX]   only the rows whose name matches REGEX
#
# MRCORE_BENCH_MIN_TIME (seconds per repetition, default 0.1) and
# MRCORE_BENCH_REPS (repetitions, default 3) size the Google Benchmark runs.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/callgrind.sh
. "$TOP/scripts/lib/callgrind.sh"
B=$TOP/build/mirror-bench
OUT=$TOP/build/bench
CG_NAME=bench-mirror
CG=$OUT/callgrind
CG_PROG=$B/bench/mirror_io_count
filter=${1:-.}
# I/Os of the two callgrind runs; their difference is 256 turns of the
# pool's 32 MRs (mirror/bench/io_count.cpp): an MR's device MR is replaced
# once in 256 keys.
N1=64
N2=8256

cg_need valgrind python3
cg_build "$B" "" -- mirror_bench mirror_io_count
cg_rows "$filter"
echo "bench-mirror: $(wc -l <"$CG/rows") rows"

# Google Benchmark's row names are "io/<row>": anchor the same rows.
gfilter="^io/($(sed 's/[.[\()*+?{|^$]/\\&/g' "$CG/rows" | paste -sd'|'))\$"
"$B/bench/mirror_bench" --benchmark_filter="$gfilter" \
	--benchmark_min_time="${MRCORE_BENCH_MIN_TIME:-0.1}" \
	--benchmark_repetitions="${MRCORE_BENCH_REPS:-3}" \
	--benchmark_report_aggregates_only=true \
	--benchmark_out="$OUT/mirror-gbench.json" --benchmark_out_format=json \
	>"$OUT/mirror-gbench.log" 2>&1 || {
	tail -n 20 "$OUT/mirror-gbench.log"
	exit 1
}

# One callgrind run per (row, N), as many at once as there are CPUs.
cg_count_rows "$N1" "$N2" "$(nproc)"

cg_report "$TOP/mirror/bench/report.py" "$OUT/mirror-gbench.json" "$CG" \
	"$N1" "$N2" "$OUT/mirror.json" "$TOP"
echo "bench-mirror: build/bench/mirror.json; callgrind profiles in build/bench/callgrind/"
