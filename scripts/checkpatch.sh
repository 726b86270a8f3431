#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict --no-tree on every kernel source, and on each of the
# test kernel's patches (kunit/kernel-patches/, as patches); any report fails.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=$("$TOP/scripts/kernel-tools.sh")
cd "$TOP"
# The ports' own test modules too (not shipped, so not in the list).
mapfile -t files < <(scripts/kernel-sources.sh
	git ls-files --cached --others --exclude-standard -- 'ulp-ports/*.[ch]')
out=$("$tools/scripts/checkpatch.pl" --strict --no-tree --quiet --no-summary \
	--show-types -f "${files[@]}" 2>&1) || true
patches=(kunit/kernel-patches/*.patch)
[ -e "${patches[0]}" ] || patches=()
# On stdin: checkpatch.pl takes a file that git tracks for a source file.
for p in "${patches[@]}"; do
	r=$("$tools/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--no-summary --show-types - <"$p" 2>&1) || true
	[ -z "$r" ] || out+="$p:"$'\n'"$r"$'\n'
done
if [ -n "$out" ]; then
	echo "$out"
	echo "checkpatch: reports in ${#files[@]} files and ${#patches[@]} patches"
	exit 1
fi
echo "checkpatch: ${#files[@]} files and ${#patches[@]} patches clean"
