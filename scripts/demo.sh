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

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
guest_start demo "${MRCORE_DEMO_OUT:-$TOP/build/demo}"

guest_kdir
guest_unbuilt "the test kernel is not built yet: building it now from Debian's" \
	"linux-source-6.12 with KUnit, rxe, siw, KASAN, lockdep, kmemleak" \
	"(about 11 min on an idle 2-core machine, up to about 45 under load; once, cached in $KDIR)"
guest_build "$OUT"

echo "demo: booting the guest (QEMU TCG): siw0/siw1 on veth 192.0.2.1/.2,"
echo "demo: rxe0/rxe1 on veth 198.51.100.1/.2; loading rdma_mrcore, the harness, the demo"
guest_qemu demo --timeout "${MRCORE_QEMU_TIMEOUT:-600}"
echo "demo: done in $(($(date +%s) - start)) s; console: $OUT/console.log"
echo
guest_report demo "$rc"
