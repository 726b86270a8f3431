#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict --no-tree on every kernel source; any report fails.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=$("$TOP/scripts/kernel-tools.sh")
cd "$TOP"
mapfile -t files < <(scripts/kernel-sources.sh)
out=$("$tools/scripts/checkpatch.pl" --strict --no-tree --quiet --no-summary \
	--show-types -f "${files[@]}" 2>&1) || true
if [ -n "$out" ]; then
	echo "$out"
	echo "checkpatch: reports in ${#files[@]} files"
	exit 1
fi
echo "checkpatch: ${#files[@]} files clean"
