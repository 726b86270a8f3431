#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Print a directory holding the kernel's own tools from Debian's
# linux-source-6.12 (scripts/checkpatch.pl, scripts/kernel-doc,
# tools/testing/kunit): the test kernel's extracted tree when it exists,
# else a small cached extraction of just those files.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MRCORE_CACHE:-/var/cache/rdma-mrcore}
TARBALL=/usr/src/linux-source-6.12.tar.xz

src=$("$TOP/scripts/test-kernel.sh" --print-src)
if [ -x "$src/scripts/checkpatch.pl" ] && [ -e "$src/scripts/kernel-doc" ]; then
	echo "$src"
	exit 0
fi

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
dir=$CACHE/tools/linux-source-6.12_$ver
if [ ! -e "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$TARBALL" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/scripts/kernel-doc' \
		'*/tools/testing/kunit/*'
	touch "$dir/.done"
fi
echo "$dir"
