#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make format-check: clang-format (Debian's clang-format 14) with the
# project's .clang-format, in dry-run mode, over every kernel C source
# (scripts/kernel-sources.sh).  Nothing is rewritten: files that differ are
# listed with the number of lines clang-format would change, and the
# check fails if there is any.
#
#   scripts/format-check.sh [file...]     default: all kernel sources
#
# Last line: "format-check: N files clean" or "format-check: M of N files differ".
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"

cf=
for c in clang-format-14 clang-format; do
	command -v "$c" >/dev/null && { cf=$c; break; }
done
[ -n "$cf" ] || { echo "format-check: clang-format missing (scripts/deps.sh installs it)"; exit 1; }
[ -e .clang-format ] || { echo "format-check: no .clang-format at the top"; exit 1; }

if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(scripts/kernel-sources.sh)
fi

bad=0
for f in "${files[@]}"; do
	if ! formatted=$("$cf" --style=file --assume-filename="$f" <"$f" 2>&1); then
		echo "$formatted"
		echo "format-check: clang-format failed on $f"
		exit 1
	fi
	# lines of the file that clang-format would remove or replace
	n=$(diff <(cat "$f") <(printf '%s\n' "$formatted") | grep -c '^<' || true)
	added=$(diff <(cat "$f") <(printf '%s\n' "$formatted") | grep -c '^>' || true)
	if [ "$n" -gt 0 ] || [ "$added" -gt 0 ]; then
		printf 'format-check: %-32s %4d lines differ\n' "$f" "$n"
		bad=$((bad + 1))
	fi
done

if [ "$bad" -gt 0 ]; then
	echo "format-check: one file's changes: $cf --style=file <file> | diff -u <file> -"
	echo "format-check: $bad of ${#files[@]} files differ"
	exit 1
fi
echo "format-check: ${#files[@]} files clean"
