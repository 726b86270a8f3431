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
#                             job: the server restarted and 4 WRs of the
#                             two ends' chains refused by the core's
#                             post_wr fault (one kernel), the link down 30 s
#                             past the mount's 10 s retransmit timeout (two
#                             kernels); post_wr, restart (one kernel) or
#                             link (two): that fault alone; 0: none
#   MRCORE_NFSRDMA_FAULT_TRACE 1: each fault's events (rpcrdma's client and
#                             server, sunrpc's transport, rdma_mrcore's
#                             I/Os) traced in the guest and saved as
#                             trace-FAULT-DEVICE.txt beside its console
#   MRCORE_NFSRDMA_SECURITY   rpcrdma variants attacked, one kernel (client
#                             and server on it), per device, after the
#                             faults (default "stock mrcore"; "" for none):
#                             an attacker on another connection of the
#                             client's PD tries the keys of NFSv3 RPCs in
#                             flight and just completed, the export an
#                             ext4 on a slow null_blk
#                             (ulp-ports/nfs/key_attack.c)
#   MRCORE_NFSRDMA_SEC_SAMPLES samples per direction of each attack (4)
#   MRCORE_NFSRDMA_MOUNT_OPTS more options of every mount, with a leading
#                             comma (a planted bug's run, MRCORE_ULP_MUTANT:
#                             ",soft,timeo=50,retrans=2,retry=0", so that
#                             RPCs the server keeps refusing fail in about
#                             30 s instead of retrying forever)
#   MRCORE_NFSRDMA_BUILD      a build of scripts/guest-build.sh to use, its
#                             lock held by the caller (make demo's)
#   MRCORE_NFSRDMA_AB_ROUNDS  --ab: rounds, each variant once per round (3)
#   MRCORE_NFSRDMA_AB_SECS    --ab: seconds of guest time per fio run (3)
#   MRCORE_NFSRDMA_AB_JOBS    --ab: the fio shapes, rw:bs:iodepth (default
#                             4k random read and write at iodepth 1 and
#                             16, 1m sequential read and write at 4)
#   MRCORE_NFSRDMA_AB_VERSION --ab: the NFS version (default 3: the data
#                             path, READ and WRITE with their chunks, is
#                             the same in 4.2, which adds a grace period
#                             to each of the run's server starts)
#   MRCORE_NFSRDMA_AB_VARIANTS --ab: name:transport of each variant, the
#                             transport of both ends (default "aa:stock
#                             aa2:stock mrcore:mrcore")
#   MRCORE_NFSRDMA_AB_PROFILE --ab: 1 samples each fio run with perf
#                             (cpu-clock, the guest's clock: its
#                             instructions in icount mode) into
#                             ab-*.perf.txt; such a run's figures are not
#                             the A/B's
#   MRCORE_QEMU_TIMEOUT       bound on each guest (default 3600 s)
#
# --smoke (make check): siw, both ends converted, one kernel, NFSv4.2,
# 16 MiB and a tree of 2 MiB, the server restarted during a verifying fio
# job (the fault that found the test kernel's siw fix), the attacker on
# the converted client's PD (1 sample per direction), on make kunit's
# build (or on MRCORE_NFSRDMA_BUILD's).
#
# --ab (make nfsrdma-ab): fio's IOPS and MB/s on the mount, stock against
# converted, with an A/A pair (stock twice) for the noise, runs
# interleaved, on the bench kernel in make bench's icount mode; one
# kernel, so both ends run the same rpcrdma.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
if [ "${1:-}" = --smoke ]; then
	OUT=${MRCORE_NFSRDMA_OUT:-$TOP/build/nfsrdma-smoke}
	BUILD=${MRCORE_NFSRDMA_BUILD:-$TOP/build/kunit}
	export MRCORE_GUEST_SAMPLE=1
	: "${MRCORE_NFSRDMA_DEVICES:=siw}" "${MRCORE_NFSRDMA_PAIRINGS:=mrcore/mrcore}"
	: "${MRCORE_NFSRDMA_TOPOLOGIES:=one}" "${MRCORE_NFSRDMA_VERSIONS:=4.2}"
	: "${MRCORE_NFSRDMA_MIB:=16}" "${MRCORE_NFSRDMA_TREE_MIB:=2}"
	: "${MRCORE_NFSRDMA_FAULTS:=restart}" "${MRCORE_NFSRDMA_SECURITY=mrcore}"
	: "${MRCORE_NFSRDMA_SEC_SAMPLES:=1}"
elif [ "${1:-}" = --ab ]; then
	# The bench kernel (no KASAN, kmemleak, lockdep, DMA-API debugging),
	# one vCPU whose clock advances by the instructions it runs, so that
	# rates measure the guest's work, not the host's load.
	OUT=${MRCORE_NFSRDMA_OUT:-$TOP/build/nfsrdma-ab}
	export MRCORE_KERNEL_FLAVOUR=bench
	export MRCORE_QEMU_ACCEL=tcg MRCORE_QEMU_SMP=1
	export MRCORE_QEMU_EXTRA="${MRCORE_QEMU_EXTRA:-} -icount shift=1,sleep=off"
	AB=1
	MRCORE_NFSRDMA_TOPOLOGIES=one MRCORE_NFSRDMA_FAULTS=0
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--smoke | --ab]" >&2
	exit 2
fi
OUT=${OUT:-${MRCORE_NFSRDMA_OUT:-$TOP/build/nfsrdma}}
# make demo passes its own build, whose lock it holds.
BUILD=${BUILD:-${MRCORE_NFSRDMA_BUILD:-$OUT}}
mkdir -p "$OUT" "$BUILD"
OUT=$(cd "$OUT" && pwd) BUILD=$(cd "$BUILD" && pwd)
guest_start nfsrdma "$OUT" counts

devices=${MRCORE_NFSRDMA_DEVICES:-siw rxe}
pairings=${MRCORE_NFSRDMA_PAIRINGS-mrcore/stock stock/mrcore mrcore/mrcore}
topologies=${MRCORE_NFSRDMA_TOPOLOGIES:-one two}
versions=${MRCORE_NFSRDMA_VERSIONS:-3 4.2}
mib=${MRCORE_NFSRDMA_MIB:-64}
tree_mib=${MRCORE_NFSRDMA_TREE_MIB:-8}
faults=${MRCORE_NFSRDMA_FAULTS:-1}
security=${MRCORE_NFSRDMA_SECURITY-stock mrcore}
[ $((mib % 16)) -eq 0 ] && [ "$mib" -gt 0 ] ||
	guest_fail "MRCORE_NFSRDMA_MIB=$mib is not a positive multiple of 16"
# The four shapes, bs:iodepth:MiB: 1, 1, 6 and 8 16ths of the total.
u=$((mib / 16))
jobs="4k:1:$u 4k:16:$u 128k:16:$((6 * u)) 1m:4:$((8 * u))"

if [ -n "${MRCORE_ULP_MUTANT:-}" ]; then
	# A planted bug (ulp-ports/nfs/mutants/): a run that must fail, on soft
	# mounts, without the faults and the tree.
	[ -n "${MRCORE_NFSRDMA_OUT:-}" ] ||
		guest_fail "MRCORE_ULP_MUTANT needs an MRCORE_NFSRDMA_OUT of its own"
	: "${MRCORE_NFSRDMA_MOUNT_OPTS=,soft,timeo=50,retrans=2,retry=0}"
	faults=0 tree_mib=0
	echo "nfsrdma: planted bug(s) $MRCORE_ULP_MUTANT: this run must fail"
fi
ulp_prepare nfsrdma MRCORE_NFSRDMA_BUILD nfs

# What the guests read (/mrcore-out/config.sh), besides ROLE and TOPOLOGY.
ulp_config() {
	cat <<CFG
MODROOT='$modroot'
MRCORE_KO='$BUILD/src/rdma_mrcore.ko'
HARNESS_KO='$BUILD/src/kunit/mrcore_harness.ko'
PORTS='$OUT/ports'
DEVICES='$devices'
PAIRINGS='$pairings'
VERSIONS='$versions'
JOBS='$jobs'
TREE_MIB=$tree_mib
FAULTS=$faults
FAULT_TRACE=${MRCORE_NFSRDMA_FAULT_TRACE:-0}
SECURITY='$security'
SEC_SAMPLES=${MRCORE_NFSRDMA_SEC_SAMPLES:-4}
MOUNT_EXTRA='${MRCORE_NFSRDMA_MOUNT_OPTS:-}'
AB=${AB:-0}
AB_ROUNDS=${MRCORE_NFSRDMA_AB_ROUNDS:-3}
AB_SECS=${MRCORE_NFSRDMA_AB_SECS:-3}
AB_MIB=64
AB_JOBS='${MRCORE_NFSRDMA_AB_JOBS:-randread:4k:1 randwrite:4k:1 randread:4k:16 randwrite:4k:16 read:1m:4 write:1m:4}'
AB_VERSION=${MRCORE_NFSRDMA_AB_VERSION:-3}
AB_VARIANTS='${MRCORE_NFSRDMA_AB_VARIANTS:-aa:stock aa2:stock mrcore:mrcore}'
AB_PROFILE=${MRCORE_NFSRDMA_AB_PROFILE:-0}
CFG
}
rcs=()
echo "nfsrdma: guests on the host's root (read-only, under a tmpfs overlay), QEMU TCG;"
if [ "${AB:-0}" = 1 ]; then
	echo "nfsrdma: A/B on $devices, icount mode, one vCPU: stock, stock again (A/A),"
	echo "nfsrdma: converted both ends; ${MRCORE_NFSRDMA_AB_ROUNDS:-3} rounds"
else
	echo "nfsrdma: devices $devices; pairings (client/server) $pairings; NFS $versions;"
	echo "nfsrdma: $mib MiB by fio and a tree of $tree_mib MiB verified per device, pairing and version"
	[ -n "$security" ] &&
		echo "nfsrdma: one kernel: an attacker on the client's PD, rpcrdma $security"
fi
ulp_topologies "$TOP/scripts/nfsrdma-guest.sh" client server $topologies
echo "nfsrdma: total $(($(date +%s) - start)) s"
ulp_report --ulp nfsrdma "$OUT" "${rcs[@]}"
