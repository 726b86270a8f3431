#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build rdma_rxe_stock.ko: the soft RoCE driver of Linux 6.12 as Debian
# ships it, out of tree against the test kernel, whose own rxe is built in
# and carries kunit/kernel-patches/ (the stale-ACK fix).  The stock module
# keeps the defect that fix mends, so that a run on it shows the defect is
# there (scripts/kunit-2host.sh --stock-rxe).
#
#   scripts/rxe-stock.sh OUTDIR
#
# The files come from the linux-source-6.12 that scripts/test-kernel.sh
# extracted, into OUTDIR/src/drivers/infiniband/sw/rxe/, with the test
# kernel's patches that touch rxe reverted (the tarball's files again) and
# kunit/rxe-stock/coexist.patch applied: another link type ("rxe_stock")
# and UDP port (4792), which two rxe drivers in one kernel cannot share.
# Nothing of upstream is kept in the repository.  Unchanged files keep
# their times (the rebuild is incremental).  Last line: the module's path.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() {
	echo "rxe-stock: ERROR: $*" >&2
	exit 1
}
[ $# = 1 ] || die "usage: $0 OUTDIR"
mkdir -p "$1"
out=$(cd "$1" && pwd)
ksrc=$("$TOP/scripts/test-kernel.sh" --print-src)
kdir=$("$TOP/scripts/test-kernel.sh" --print-dir)
[ -f "$kdir/Module.symvers" ] || die "no test kernel built in $kdir (scripts/test-kernel.sh)"
rel=drivers/infiniband/sw/rxe
[ -d "$ksrc/$rel" ] || die "$ksrc/$rel missing (scripts/test-kernel.sh extracts it)"

stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/$rel"
cp -p "$ksrc/$rel"/*.[ch] "$stage/$rel/"
# The test kernel's patches applied to the extraction, last first.
for p in $(find "$ksrc/.mrcore-patches" -name '*.patch' 2>/dev/null | sort -r); do
	grep -q "^+++ b/$rel/" "$p" || continue
	patch -d "$stage" -p1 -R -s --no-backup-if-mismatch <"$p" ||
		die "cannot revert $(basename "$p") from the copy of $rel"
	echo "rxe-stock: reverted $(basename "$p")"
done
patch -d "$stage" -p1 -N -s --no-backup-if-mismatch \
	<"$TOP/kunit/rxe-stock/coexist.patch" ||
	die "kunit/rxe-stock/coexist.patch does not apply"

# Into the build directory, only what changed (kbuild then rebuilds that).
src=$out/src
mkdir -p "$src"
for f in "$stage/$rel"/*.[ch] "$TOP/kunit/rxe-stock/Kbuild"; do
	cmp -s "$f" "$src/$(basename "$f")" || cp "$f" "$src/"
done
rm -rf "$stage"
make -C "$kdir" M="$src" -j"$(nproc)" modules >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; die "the build failed ($out/build.log)"; }
[ -f "$src/rdma_rxe_stock.ko" ] || die "no rdma_rxe_stock.ko built"
echo "$src/rdma_rxe_stock.ko"
