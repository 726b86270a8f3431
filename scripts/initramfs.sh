#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test guest's initramfs (no root needed):
#
#   scripts/initramfs.sh OUT.cpio.gz MODULE.ko...
#
# Contents: static busybox, iproute2's ip, rdma and tc (netem faults of
# make kunit-2host) and tcpdump (its capture of the wire; left out with a
# note where it is not installed) with the libraries ldd lists,
# scripts/guest-init.sh as /init, and the given modules in /lib/mrcore.
#
# MRCORE_INITRAMFS_PKG=DIR (make kunit) adds DIR/*.ko in /lib/mrcore/pkg: the
# package as installed and the sample ULP (scripts/install-check.sh --guest).
#
# MRCORE_INITRAMFS_PERFTEST=1 (make bench) adds perftest's ib_read_bw and
# ib_write_bw with libibverbs, librdmacm, the rxe and siw providers and
# their /etc/libibverbs.d files, and libgcc_s (which glibc loads when a
# thread is cancelled).  The archive is written with the kernel's gen_init_cpio
# (compiled from the test kernel's source), so device nodes need no mknod.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
	echo "initramfs: ERROR: $*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: $0 OUT.cpio.gz MODULE.ko..."
out=$1
shift

src=$("$TOP/scripts/test-kernel.sh" --print-src)
[ -f "$src/usr/gen_init_cpio.c" ] ||
	die "$src/usr/gen_init_cpio.c missing: run scripts/test-kernel.sh"

outdir=$(dirname "$out")
mkdir -p "$outdir"
gen=$outdir/gen_init_cpio
if [ ! -x "$gen" ] || [ "$src/usr/gen_init_cpio.c" -nt "$gen" ]; then
	cc -O2 -o "$gen" "$src/usr/gen_init_cpio.c"
fi

busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox not found (busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic executable' ||
	die "$busybox is not static (install busybox-static)"

ipbin=/usr/sbin/ip
[ -x "$ipbin" ] || ipbin=/sbin/ip
rdmabin=$(command -v rdma || true)
tcbin=/usr/sbin/tc
[ -x "$tcbin" ] || tcbin=/sbin/tc
[ -x "$ipbin" ] || die "iproute2's ip not found"
[ -n "$rdmabin" ] || die "iproute2's rdma not found"
[ -x "$tcbin" ] || die "iproute2's tc not found"

# Userland for perftest: binaries and libraries whose dependencies ldd
# resolves, and plain files (the providers' driver entries).
extra_bins=()
extra_files=()
tcpdumpbin=$(command -v tcpdump || true)
if [ -n "$tcpdumpbin" ]; then
	extra_bins+=("$tcpdumpbin")
else
	echo "initramfs: note: no tcpdump here (scripts/deps.sh installs it); the guests count packets from the NIC's statistics only"
fi
if [ "${MRCORE_INITRAMFS_PERFTEST:-0}" = 1 ]; then
	multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
	provdir=/usr/lib/$multiarch/libibverbs
	for b in ib_read_bw ib_write_bw; do
		p=$(command -v "$b" || true)
		[ -n "$p" ] || die "$b not found (perftest)"
		extra_bins+=("$p")
	done
	for prov in rxe siw; do
		so=
		for f in "$provdir"/lib"$prov"-rdmav*.so; do
			[ -f "$f" ] && so=$f && break
		done
		[ -n "$so" ] || die "no $prov provider in $provdir (ibverbs-providers)"
		extra_bins+=("$so")
		[ -r /etc/libibverbs.d/$prov.driver ] ||
			die "/etc/libibverbs.d/$prov.driver missing"
		extra_files+=("/etc/libibverbs.d/$prov.driver")
	done
	gcc_s=
	for f in /lib/"$multiarch"/libgcc_s.so.1 /usr/lib/"$multiarch"/libgcc_s.so.1; do
		[ -f "$f" ] && gcc_s=$f && break
	done
	[ -n "$gcc_s" ] || die "libgcc_s.so.1 not found"
	extra_bins+=("$gcc_s")
fi

spec=$outdir/initramfs.list
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /usr/local /usr/local/sbin \
		/lib /lib64 /lib/mrcore /lib/mrcore/pkg /dev /proc /sys /tmp /run /etc; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "nod /dev/ttyS0 0600 0 0 c 4 64"
	echo "nod /dev/ttyS1 0600 0 0 c 4 65"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh /bin/busybox 0777 0 0"
	echo "file /init $TOP/scripts/guest-init.sh 0755 0 0"
	echo "file /usr/local/sbin/ip $ipbin 0755 0 0"
	echo "file /usr/local/sbin/rdma $rdmabin 0755 0 0"
	echo "file /usr/local/sbin/tc $tcbin 0755 0 0"
	for b in "${extra_bins[@]}" "${extra_files[@]}"; do
		p=
		IFS=/ read -ra parts <<<"$(dirname "${b#/}")"
		for c in "${parts[@]}"; do
			p=$p/$c
			echo "dir $p 0755 0 0"
		done
	done
	for b in "${extra_bins[@]}"; do
		echo "file $b $(readlink -f "$b") 0755 0 0"
	done
	for f in "${extra_files[@]}"; do
		echo "file $f $(readlink -f "$f") 0644 0 0"
	done

	# Shared libraries, at the paths the loader looks for them.
	declare -A seen=()
	libdirs=()
	while read -r lib; do
		[ -n "$lib" ] || continue
		real=$(readlink -f "$lib")
		for p in "$lib" "$real"; do
			dir=$(dirname "$p")
			if [ -z "${seen[dir:$dir]+x}" ]; then
				seen[dir:$dir]=1
				libdirs+=("$dir")
			fi
		done
		if [ -z "${seen[$lib]+x}" ]; then
			seen[$lib]=1
			echo "file $lib $real 0755 0 0"
		fi
	done < <(ldd "$ipbin" "$rdmabin" "$tcbin" "${extra_bins[@]}" |
		sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^\s*\(\/[^ ]*\) (.*/\1/p' |
		sort -u)
	for dir in "${libdirs[@]}"; do
		# parents first; gen_init_cpio does not create them
		p=
		IFS=/ read -ra parts <<<"${dir#/}"
		for c in "${parts[@]}"; do
			p=$p/$c
			echo "dir $p 0755 0 0"
		done
	done

	for m in "$@"; do
		[ -f "$m" ] || die "module $m not found"
		echo "file /lib/mrcore/$(basename "$m") $m 0644 0 0"
	done
	if [ -n "${MRCORE_INITRAMFS_PKG:-}" ]; then
		for m in "$MRCORE_INITRAMFS_PKG"/rdma_mrcore.ko \
			"$MRCORE_INITRAMFS_PKG"/mrcore_sample.ko; do
			[ -f "$m" ] || die "$m not found (scripts/install-check.sh --guest)"
			echo "file /lib/mrcore/pkg/$(basename "$m") $m 0644 0 0"
		done
	fi
} >"$spec.tmp"

# Directories before files, each once.
{
	grep '^dir ' "$spec.tmp" | awk '!seen[$2]++' | sort -k2,2
	grep -v '^dir ' "$spec.tmp"
} >"$spec"
rm -f "$spec.tmp"

"$gen" "$spec" | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -k "$out" | cut -f1) KiB, $# modules)"
