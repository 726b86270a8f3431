#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make docs: render Documentation/ with Sphinx (Debian's python3-sphinx) and
# the kernel's kernel-doc extension into build/docs/html.  Zero warnings:
# Sphinx runs with -W, and anything kernel-doc prints fails the build too.
#
# The kernel's tools come from scripts/kernel-tools.sh (the test kernel's
# source tree, or its small extraction); when that directory lacks
# Documentation/sphinx/kerneldoc.py, the two extension files and kernel-doc
# are extracted from Debian's linux-source-6.12 into the cache.
#
# Then scripts/doc-names.py: every counter, tracepoint, module parameter
# and kernel message Documentation/operating.rst quotes exists in the code,
# and every counter, tracepoint and parameter of the code is in the page.
# And scripts/doc-patch-lines.py: the lines each port patch adds and
# removes, as Documentation/ulp-guide.rst quotes them, are the patch's.
#
# Last line: "docs: N pages in build/docs/html, no warnings".
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MRCORE_CACHE:-/var/cache/rdma-mrcore}
TARBALL=/usr/src/linux-source-6.12.tar.xz
OUT=$TOP/build/docs

command -v sphinx-build >/dev/null ||
	{ echo "docs: sphinx-build missing (scripts/deps.sh installs python3-sphinx)"; exit 1; }

tools=$("$TOP/scripts/kernel-tools.sh")
have() { [ -e "$1/Documentation/sphinx/kerneldoc.py" ] &&
	 [ -e "$1/Documentation/sphinx/kernellog.py" ] && [ -e "$1/scripts/kernel-doc" ]; }
if ! have "$tools"; then
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	tools=$CACHE/tools/docs-linux-source-6.12_$ver
	if [ ! -e "$tools/.done" ]; then
		rm -rf "$tools"
		mkdir -p "$tools"
		tar -xJf "$TARBALL" -C "$tools" --strip-components=1 --wildcards \
			'*/Documentation/sphinx/kerneldoc.py' \
			'*/Documentation/sphinx/kernellog.py' '*/scripts/kernel-doc'
		touch "$tools/.done"
	fi
	have "$tools" || { echo "docs: kernel-doc extension missing in $tools"; exit 1; }
fi

rm -rf "$OUT"
mkdir -p "$OUT"
log=$OUT/sphinx.log
export MRCORE_KERNEL_TOOLS=$tools
if ! sphinx-build -b html -W --keep-going -q -d "$OUT/doctrees" \
	"$TOP/Documentation" "$OUT/html" >"$log" 2>&1; then
	cat "$log"
	echo "docs: sphinx-build failed (warnings are errors)"
	exit 1
fi
# kernel-doc's own diagnostics reach stderr without being Sphinx warnings.
if [ -s "$log" ]; then
	cat "$log"
	echo "docs: warnings"
	exit 1
fi
if ! python3 "$TOP/scripts/doc-names.py" "$TOP"; then
	echo "docs: Documentation/operating.rst quotes names the code does not have, or misses some"
	exit 1
fi
if ! python3 "$TOP/scripts/doc-patch-lines.py" "$TOP"; then
	echo "docs: Documentation/ulp-guide.rst's line counts of the port patches are not theirs"
	exit 1
fi
n=$(find "$OUT/html" -maxdepth 1 -name '*.html' ! -name genindex.html ! -name search.html | wc -l)
echo "docs: $n pages in build/docs/html, no warnings"
