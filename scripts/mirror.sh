#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the userspace mirror (ASan + UBSan) and run its tests with CTest.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/build/mirror
cmake -S "$TOP/mirror" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Debug >/dev/null
ninja -C "$B" >/dev/null
cd "$B"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure -j"$(nproc)" >ctest.log 2>&1 || {
	tail -n 60 ctest.log
	exit 1
}
grep -E 'tests passed' ctest.log | sed 's/^/mirror: /'
