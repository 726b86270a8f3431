#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: boot the test kernel, create siw (iWARP) and rxe (RoCEv2)
# devices on veth pairs, connect an RC QP pair over each with rdma_cm, and
# move data with rdma-mrcore: the owner exposes memory with
# rdma_map_sg_rkey(), the peer READs or WRITEs it through its own
# rdma_map_sg_lkey() mapping, the owner invalidates its key, and the data is
# compared byte for byte.  Prints a table; fails if a transfer is not
# verified or the kernel reports a problem.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${MRCORE_DEMO_OUT:-$TOP/build/demo}
mkdir -p "$OUT"
# One run per output directory at a time (and QEMU runs are CPU-bound).
exec 8>"$OUT/.lock"
if ! flock -n 8; then
	echo "demo: another run is using $OUT; waiting for it"
	flock 8
fi
start=$(date +%s)

KDIR=$("$TOP/scripts/test-kernel.sh" --print-dir)
if [ ! -f "$KDIR/.mrcore-key" ]; then
	echo "demo: the test kernel is not built yet: building it now from Debian's"
	echo "demo: linux-source-6.12 with KUnit, rxe, siw, KASAN, lockdep, kmemleak"
	echo "demo: (about 11 min on an idle 2-core machine, up to about 45 under load; once, cached in $KDIR)"
fi
if ! "$TOP/scripts/guest-build.sh" "$OUT"; then
	echo "demo: build failed" >&2
	exit 1
fi
KSRC=$("$TOP/scripts/test-kernel.sh" --print-src)

echo "demo: booting the guest (QEMU TCG): siw0/siw1 on veth 192.0.2.1/.2,"
echo "demo: rxe0/rxe1 on veth 198.51.100.1/.2; loading rdma_mrcore, the harness, the demo"
set +e
"$TOP/scripts/qemu-run.sh" --kernel "$KDIR/arch/x86/boot/bzImage" \
	--initrd "$OUT/initramfs.cpio.gz" --mode demo --out "$OUT" \
	--timeout "${MRCORE_QEMU_TIMEOUT:-600}"
rc=$?
set -e
echo "demo: done in $(($(date +%s) - start)) s; console: $OUT/console.log"
echo
exec python3 "$TOP/scripts/guest-report.py" demo "$OUT" "$KSRC" "$TOP" "$rc"
