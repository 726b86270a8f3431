#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer targets of the mirror (clang, ASan + UBSan), from the checked-in
# corpus in mirror/fuzz/corpus/.  New inputs go to build/fuzz/work-<target>,
# not to the corpus.
#
#   scripts/fuzz.sh            the short run of make check (fixed run counts)
#   scripts/fuzz.sh --long     make fuzz: MRCORE_FUZZ_SECONDS (300) per target
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/build/fuzz
CC=clang CXX=clang++ cmake -S "$TOP/mirror" -B "$B" -G Ninja -DMRCORE_FUZZ=ON >/dev/null
ninja -C "$B" sg_planner_fuzz io_chain_fuzz key_life_fuzz >/dev/null

declare -A runs=([sg_planner]=50000 [io_chain]=2000 [key_life]=2000)
total=0
for t in sg_planner io_chain key_life; do
	mkdir -p "$B/work-$t"
	if [ "${1:-}" = --long ]; then
		limit=(-max_total_time="${MRCORE_FUZZ_SECONDS:-300}")
	else
		limit=(-runs="${runs[$t]}")
	fi
	log=$B/$t.log
	if ! "$B/${t}_fuzz" "${limit[@]}" -seed=1 -artifact_prefix="$B/" \
		"$B/work-$t" \
		"$TOP/mirror/fuzz/corpus/$t" >"$log" 2>&1; then
		tail -n 40 "$log"
		echo "fuzz: $t failed (crash input in $B)"
		exit 1
	fi
	n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n1)
	echo "fuzz: $t: ${n:-?} executions, no crash"
	# io_chain's tally: I/Os moved and verified, refusals by cause
	grep -h "^$t: [0-9]* I/Os" "$log" | sed 's/^/fuzz: /' || true
	# key_life's tally: steps, keys seen, the peer's tries
	grep -h "^$t: [0-9]* inputs" "$log" | sed 's/^/fuzz: /' || true
	total=$((total + ${n:-0}))
done
echo "fuzz: $total executions in all, no crash"
