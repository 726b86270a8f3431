#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel-doc -none -Wall -Werror on every kernel source.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=$("$TOP/scripts/kernel-tools.sh")
cd "$TOP"
# The ports' own test modules too (not shipped, so not in the list).
mapfile -t files < <(scripts/kernel-sources.sh
	git ls-files --cached --others --exclude-standard -- 'ulp-ports/*.[ch]')
out=$("$tools/scripts/kernel-doc" -none -Wall -Werror "${files[@]}" 2>&1) || {
	echo "$out"
	echo "kernel-doc: failed"
	exit 1
}
if [ -n "$out" ]; then
	echo "$out"
	echo "kernel-doc: warnings"
	exit 1
fi
echo "kernel-doc: ${#files[@]} files clean"
