#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make nfsrdma: real NFS over RDMA on rdma-mrcore.  Builds the test kernel
# (cached), rdma_mrcore.ko and the rpcrdma port (scripts/ulp-ports.sh:
# xprtrdma and svcrdma from linux-source-6.12, stock and converted); boots
# guests whose root is the host's own Debian (nfs-utils, rpcbind, fio,
# kmod, iproute2 unmodified; scripts/guest-init.sh, mode rootfs) and runs
# scripts/nfsrdma-guest.sh in them: on siw and rxe, for each pairing of
# client and server transport and each NFS version, the kernel NFS server
# exporting a tmpfs over RDMA, the kernel client mounting it with
# -o proto=rdma, fio with crc32c verification and a tree of files
# compared after a remount, umount, every module unloaded, a kmemleak
# scan; in one guest (both ends on one rpcrdma module: stock/stock and
# mrcore/mrcore), then in two joined by a virtio-net wire (client in one,
# server in the other: every pairing).  scripts/nvmeof-report.py --ulp
# nfsrdma writes build/nfsrdma/results.json and judges the run (last line
# "nfsrdma: N passed, M failed").
#
# Environment:
#   MRCORE_NFSRDMA_OUT        output directory (default build/nfsrdma)
#   MRCORE_NFSRDMA_DEVICES    device kinds (default "siw rxe")
#   MRCORE_NFSRDMA_PAIRINGS   client/server pairings (default
#                             "mrcore/stock stock/mrcore mrcore/mrcore";
#                             in one kernel the mixed ones are skipped)
#   MRCORE_NFSRDMA_TOPOLOGIES "one", "two" or both (default)
#   MRCORE_NFSRDMA_VERSIONS   NFS versions (default "3 4.2")
#   MRCORE_NFSRDMA_MIB        MiB written and verified by fio per device,
#                             pairing and version, over its four shapes
#                             (default 64, a multiple of 16)
#   MRCORE_NFSRDMA_TREE_MIB   MiB of the tree of files (default 8; 0: none)
#   MRCORE_NFSRDMA_FAULTS     1 (default): per device, after the pairings,
#                             on the converted ends, during a verifying fio
#                             job: the server restarted (one kernel), the
#                             link down 30 s past the mount's 10 s
#                             retransmit timeout (two kernels)
#   MRCORE_NFSRDMA_BUILD      a build of scripts/guest-build.sh to use, its
#                             lock held by the caller (make demo's)
#   MRCORE_QEMU_TIMEOUT       bound on each guest (default 3600 s)
#
# --smoke (make check): siw, both ends converted, one kernel, NFSv4.2,
# 16 MiB and a tree of 2 MiB, on make kunit's build.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
if [ "${1:-}" = --smoke ]; then
	OUT=${MRCORE_NFSRDMA_OUT:-$TOP/build/nfsrdma-smoke}
	BUILD=$TOP/build/kunit
	export MRCORE_GUEST_SAMPLE=1
	: "${MRCORE_NFSRDMA_DEVICES:=siw}" "${MRCORE_NFSRDMA_PAIRINGS:=mrcore/mrcore}"
	: "${MRCORE_NFSRDMA_TOPOLOGIES:=one}" "${MRCORE_NFSRDMA_VERSIONS:=4.2}"
	: "${MRCORE_NFSRDMA_MIB:=16}" "${MRCORE_NFSRDMA_TREE_MIB:=2}"
	: "${MRCORE_NFSRDMA_FAULTS:=0}"
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--smoke]" >&2
	exit 2
fi
OUT=${OUT:-${MRCORE_NFSRDMA_OUT:-$TOP/build/nfsrdma}}
# make demo passes its own build, whose lock it holds.
BUILD=${BUILD:-${MRCORE_NFSRDMA_BUILD:-$OUT}}
mkdir -p "$OUT" "$BUILD"
OUT=$(cd "$OUT" && pwd) BUILD=$(cd "$BUILD" && pwd)
guest_start nfsrdma "$OUT" counts

devices=${MRCORE_NFSRDMA_DEVICES:-siw rxe}
pairings=${MRCORE_NFSRDMA_PAIRINGS:-mrcore/stock stock/mrcore mrcore/mrcore}
topologies=${MRCORE_NFSRDMA_TOPOLOGIES:-one two}
versions=${MRCORE_NFSRDMA_VERSIONS:-3 4.2}
mib=${MRCORE_NFSRDMA_MIB:-64}
tree_mib=${MRCORE_NFSRDMA_TREE_MIB:-8}
[ $((mib % 16)) -eq 0 ] && [ "$mib" -gt 0 ] ||
	guest_fail "MRCORE_NFSRDMA_MIB=$mib is not a positive multiple of 16"
# The four shapes, bs:iodepth:MiB: 1, 1, 6 and 8 16ths of the total.
u=$((mib / 16))
jobs="4k:1:$u 4k:16:$u 128k:16:$((6 * u)) 1m:4:$((8 * u))"

ulp_prepare nfsrdma MRCORE_NFSRDMA_BUILD nfs

# What the guests read (/mrcore-out/config.sh), besides ROLE and TOPOLOGY.
ulp_config() {
	cat <<CFG
MODROOT='$modroot'
MRCORE_KO='$BUILD/src/rdma_mrcore.ko'
PORTS='$OUT/ports'
DEVICES='$devices'
PAIRINGS='$pairings'
VERSIONS='$versions'
JOBS='$jobs'
TREE_MIB=$tree_mib
FAULTS=${MRCORE_NFSRDMA_FAULTS:-1}
CFG
}
rcs=()
echo "nfsrdma: guests on the host's root (read-only, under a tmpfs overlay), QEMU TCG;"
echo "nfsrdma: devices $devices; pairings (client/server) $pairings; NFS $versions;"
echo "nfsrdma: $mib MiB by fio and a tree of $tree_mib MiB verified per device, pairing and version"
ulp_topologies "$TOP/scripts/nfsrdma-guest.sh" client server $topologies
echo "nfsrdma: total $(($(date +%s) - start)) s"
exec python3 "$TOP/scripts/nvmeof-report.py" --ulp nfsrdma "$OUT" "${rcs[@]}"
