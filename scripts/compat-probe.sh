#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the kernel feature probes (compat/probes/*.c) against one kernel tree
# outside a module build, through the same kbuild fragment the module uses
# (compat/Kbuild.include), and print the generated header.
#
#   scripts/compat-probe.sh <KDIR> [out.h]
#
# With out.h the header is also copied there.  The work happens in a
# scratch directory; the source tree is not touched.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kdir=${1:?usage: compat-probe.sh <KDIR> [out.h]}
out=${2:-}
[ -e "$kdir/Makefile" ] || { echo "compat-probe: $kdir is not a kernel build tree" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mrcore-compat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/compat"
cp -r "$TOP/compat/probes" "$TOP/compat/run-probes.sh" \
	"$TOP/compat/Kbuild.include" "$tmp/compat/"
cat >"$tmp/mrcore_probe_host.c" <<'C'
// SPDX-License-Identifier: GPL-2.0-only
#include <linux/module.h>
#include <mrcore_compat_gen.h>
MODULE_DESCRIPTION("rdma-mrcore compat probe host");
MODULE_LICENSE("GPL");
C
cat >"$tmp/Kbuild" <<'K'
obj-m := mrcore_probe_host.o
include $(src)/compat/Kbuild.include
K

if ! make -C "$kdir" M="$tmp" modules >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	echo "compat-probe: kbuild against $kdir failed" >&2
	exit 1
fi
gen=$tmp/compat/generated/mrcore_compat_gen.h
[ -s "$gen" ] || { echo "compat-probe: no header generated" >&2; exit 1; }
cat "$gen"
if [ -n "$out" ]; then
	mkdir -p "$(dirname "$out")"
	cp "$gen" "$out"
	rm -rf "${out%.h}.probes"
	cp -r "$tmp/compat/generated/probes" "${out%.h}.probes"
fi
