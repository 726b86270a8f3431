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
#
# Then its two-host part, in make kunit-2host's topology (two guests, one
# vCPU each, joined by a virtio-net wire; scripts/kunit-2host.sh): the
# initiator guest's mrcore_2host_demo.ko READs from and WRITEs to memory
# the peer guest's mrcore_2host_peer.ko exposes, on rxe and on siw,
# through its own lkey mapping and through the READ/WRITE helper, both
# kernels checking the bytes; a second table names the host, the device
# and the peer of each row, and tcpdump's counts show the packets on the
# wire.  Output in build/demo/2host/{initiator,peer}/.
#
# The two-host part takes about 5 minutes more; MRCORE_DEMO_2HOST=0 leaves
# it out; MRCORE_DEMO_2HOST_TIMEOUT (default 900 s) bounds each of its
# guests.  Then make nvmeof's converted NVMe ends on siw and rxe, 64 MiB
# each (about 6 minutes; MRCORE_DEMO_NVMEOF=0 leaves it out), and make
# nfsrdma's converted NFS client and server on siw and rxe, NFSv3 and
# NFSv4.2, 16 MiB and a tree of files each (about 8 minutes;
# MRCORE_DEMO_NFSRDMA=0 leaves it out).
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
echo "demo: one guest ran $(($(date +%s) - boot)) s; console: $OUT/console.log"
pair=()
if [ "${MRCORE_DEMO_2HOST:-1}" != 0 ]; then
	echo "demo: booting two guests (TCG, one vCPU each) joined by a virtio-net"
	echo "demo: wire: the initiator 203.0.113.1 (rxe0; siw0 198.18.0.1) moves data"
	echo "demo: to and from the peer 203.0.113.2 (rxe0; siw0 198.18.0.2)"
	boot=$(date +%s)
	guest_pair "$OUT/2host" "$OUT/initramfs.cpio.gz" demo2host "" \
		"${MRCORE_DEMO_2HOST_TIMEOUT:-900}"
	echo "demo: two guests ran $(($(date +%s) - pair_boot)) s"
	pair=("$rc_init" "$rc_peer")
fi
# Real NVMe over Fabrics on the core (make nvmeof, small): the converted
# nvme-rdma and nvmet-rdma, Debian's nvme-cli and fio, on siw and rxe.
nv_rc=0
if [ "${MRCORE_DEMO_NVMEOF:-1}" != 0 ]; then
	echo "demo: real NVMe over Fabrics: nvme-rdma and nvmet-rdma converted to the"
	echo "demo: core, nvme connect -t rdma and fio (crc32c) from Debian, 64 MiB per device"
	MRCORE_NVMEOF_OUT=$OUT/nvmeof MRCORE_NVMEOF_BUILD=$OUT \
		MRCORE_NVMEOF_TOPOLOGIES=one MRCORE_NVMEOF_MIB=64 \
		MRCORE_NVMEOF_PAIRINGS=mrcore/mrcore MRCORE_NVMEOF_FAULTS=0 \
		MRCORE_NVMEOF_SECURITY= "$TOP/scripts/nvmeof.sh" >"$OUT/nvmeof.log" 2>&1 || nv_rc=$?
	sed -n '/^dev  topo/,$p' "$OUT/nvmeof.log"
fi
# Real NFS over RDMA on the core (make nfsrdma, small): the converted
# rpcrdma, the kernel NFS server and client, Debian's nfs-utils and fio.
nf_rc=0
if [ "${MRCORE_DEMO_NFSRDMA:-1}" != 0 ]; then
	echo "demo: real NFS over RDMA: rpcrdma (client and server) converted to the core,"
	echo "demo: mount -o proto=rdma, fio (crc32c) and a tree of files, NFSv3 and v4.2"
	MRCORE_NFSRDMA_OUT=$OUT/nfsrdma MRCORE_NFSRDMA_BUILD=$OUT \
		MRCORE_NFSRDMA_TOPOLOGIES=one MRCORE_NFSRDMA_MIB=16 \
		MRCORE_NFSRDMA_TREE_MIB=4 MRCORE_NFSRDMA_PAIRINGS=mrcore/mrcore \
		MRCORE_NFSRDMA_FAULTS=0 MRCORE_NFSRDMA_SECURITY= \
		"$TOP/scripts/nfsrdma.sh" >"$OUT/nfsrdma.log" 2>&1 || nf_rc=$?
	sed -n '/^dev  topo/,$p' "$OUT/nfsrdma.log"
fi
echo "demo: done in $(($(date +%s) - start)) s"
echo
if [ "$nv_rc" -ne 0 ] || [ "$nf_rc" -ne 0 ]; then
	python3 "$TOP/scripts/guest-report.py" demo "$OUT" "$KSRC" "$TOP" \
		"$rc" "${pair[@]}" || true
	[ "$nv_rc" -ne 0 ] &&
		echo "demo: the NVMe over Fabrics rows FAILED (see $OUT/nvmeof.log)"
	[ "$nf_rc" -ne 0 ] &&
		echo "demo: the NFS over RDMA rows FAILED (see $OUT/nfsrdma.log)"
	exit 1
fi
guest_report demo "$rc" "${pair[@]}"
