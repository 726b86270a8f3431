#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the test kernel from Debian's linux-source-6.12.
#
#   scripts/test-kernel.sh              build if stale, print the build dir last
#   scripts/test-kernel.sh --print-dir  print the build (O=, KDIR) dir; no build
#   scripts/test-kernel.sh --print-src  print the extracted source dir; no build
#   scripts/test-kernel.sh --force      rebuild even if the key is unchanged
#
# Environment:
#   MRCORE_CACHE           cache root (default /var/cache/rdma-mrcore)
#   MRCORE_KERNEL_FLAVOUR  "test" (default): kunit/test-kernel.config;
#                          other flavours add kunit/<flavour>-kernel.config
#                          after it (its lines override the test fragment)
#   MRCORE_LINUX_SOURCE    the source tarball (default the Debian package's)
#
# The source carries kunit/kernel-patches/*.patch, in name order: fixes of
# bugs that the tests found in the kernel's own drivers (README there).
#
# The build is keyed by the linux-source package version, the fragment(s),
# the patches and this script: an unchanged key means nothing is done.  After olddefconfig,
# every option of the fragment(s) is checked in .config: a dropped option (a
# missing dependency, a renamed symbol) fails the build loudly.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MRCORE_CACHE:-/var/cache/rdma-mrcore}
FLAVOUR=${MRCORE_KERNEL_FLAVOUR:-test}
TARBALL=${MRCORE_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
SELF=$TOP/scripts/test-kernel.sh

FRAGS=("$TOP/kunit/test-kernel.config")
if [ "$FLAVOUR" != test ]; then
	FRAGS+=("$TOP/kunit/$FLAVOUR-kernel.config")
fi

OUT=$CACHE/$FLAVOUR
PATCHES=()
for p in "$TOP"/kunit/kernel-patches/*.patch; do
	[ -e "$p" ] && PATCHES+=("$p")
done

src_version() {
	local v
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	if [ -z "$v" ] || [ "$TARBALL" != /usr/src/linux-source-6.12.tar.xz ]; then
		v=sha-$(sha256sum "$TARBALL" | cut -c1-16)
	fi
	echo "$v"
}

case "${1:-}" in
--print-dir)
	echo "$OUT"
	exit 0
	;;
--print-src)
	echo "$CACHE/src/linux-source-6.12_$(src_version)"
	exit 0
	;;
--force | "") ;;
*)
	echo "usage: $0 [--print-dir | --print-src | --force]" >&2
	exit 2
	;;
esac

log() { echo "test-kernel: $*"; }
die() {
	echo "test-kernel: ERROR: $*" >&2
	exit 1
}

[ -r "$TARBALL" ] || die "$TARBALL not found (run scripts/deps.sh)"
for f in "${FRAGS[@]}"; do
	[ -r "$f" ] || die "config fragment $f not found"
done

VER=$(src_version)
SRC=$CACHE/src/linux-source-6.12_$VER
KEY=$( {
	echo "source $VER"
	echo "flavour $FLAVOUR"
	cat "${FRAGS[@]}" "${PATCHES[@]}" "$SELF"
} | sha256sum | cut -c1-32)

mkdir -p "$CACHE/src"
# One kernel build at a time on this machine (2 cores).
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	log "another test-kernel build holds $CACHE/.lock; waiting"
	flock 9
fi

if [ "${1:-}" != --force ] && [ -f "$OUT/.mrcore-key" ] &&
	[ "$(cat "$OUT/.mrcore-key")" = "$KEY" ] &&
	[ -f "$OUT/arch/x86/boot/bzImage" ] && [ -f "$OUT/Module.symvers" ]; then
	log "up to date ($FLAVOUR, linux-source $VER, key ${KEY:0:12})"
	echo "$OUT"
	exit 0
fi

start=$(date +%s)

if [ ! -f "$SRC/.mrcore-extracted" ]; then
	log "extracting $TARBALL (about 1 min)"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
	touch "$SRC.tmp/.mrcore-extracted"
	mv "$SRC.tmp" "$SRC"
fi

# The patches: the set applied is kept in the source tree, so that another
# set is applied to the pristine source, the old one reverted first (last
# patch first), never on top of it.  kbuild rebuilds what they touch.
applied=$SRC/.mrcore-patches
mkdir -p "$applied"
if ! diff -q <(cd "$applied" && cat -- *.patch 2>/dev/null) \
	<(cat "${PATCHES[@]}" /dev/null) >/dev/null; then
	for p in $(find "$applied" -name '*.patch' | sort -r); do
		log "reverting $(basename "$p")"
		patch -d "$SRC" -p1 -R -s --no-backup-if-mismatch <"$p" ||
			die "cannot revert $p from $SRC: remove $SRC to extract it again"
		rm -f "$p"
	done
	for p in "${PATCHES[@]}"; do
		log "applying kunit/kernel-patches/$(basename "$p")"
		patch -d "$SRC" -p1 -N -s --no-backup-if-mismatch <"$p" ||
			die "$p does not apply to linux-source $VER (remove $SRC to extract it again)"
		cp "$p" "$applied/"
	done
fi

# A build dir made from another source version is thrown away.
if [ -d "$OUT" ] && [ "$(cat "$OUT/.mrcore-src" 2>/dev/null)" != "$SRC" ]; then
	log "build dir $OUT belongs to another source tree; removing it"
	rm -rf "$OUT"
fi
mkdir -p "$OUT"
echo "$SRC" >"$OUT/.mrcore-src"
rm -f "$OUT/.mrcore-key"

kmake() { make -C "$SRC" O="$OUT" "$@"; }

log "configuring $OUT: x86_64_defconfig + ${FRAGS[*]#"$TOP"/}"
kmake -s x86_64_defconfig >/dev/null
# -m: merge only; olddefconfig below resolves the dependencies.
(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
	"$OUT/.config" "${FRAGS[@]}" >"$OUT/merge_config.log" 2>&1) ||
	die "merge_config.sh failed, see $OUT/merge_config.log"
kmake -s olddefconfig >/dev/null

# Every option of the fragment(s), last one wins, must be in .config as asked.
declare -A want=()
order=()
for f in "${FRAGS[@]}"; do
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]} val=n
		else
			continue
		fi
		[ -n "${want[$sym]+x}" ] || order+=("$sym")
		want[$sym]=$val
	done <"$f"
done
bad=0
for sym in "${order[@]}"; do
	exp=${want[$sym]}
	got=$(sed -n "s/^$sym=//p" "$OUT/.config")
	[ -n "$got" ] || got=n
	if [ "$got" != "$exp" ]; then
		echo "test-kernel: ERROR: $sym: fragment wants '$exp', .config has '$got'" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] || die "the fragment's options did not all survive olddefconfig (missing dependency?)"
log "all ${#order[@]} fragment options present in .config"

jobs=$(nproc)
# Measured from scratch: the test flavour 647 s on an idle 2-core machine,
# 2813 s with other builds on the cores; the bench flavour (no debugging)
# about 7 min idle (Documentation/benchmarks.rst).
if [ "$FLAVOUR" = test ]; then
	took="about 11 min on an idle 2-core machine, up to about 45 under load"
else
	took="about 7 min on an idle 2-core machine, longer under load"
fi
log "building bzImage + modules with -j$jobs ($took; log: $OUT/build.log)"
(
	while sleep 30; do
		n=$(find "$OUT" -name '*.o' -newer "$OUT/.mrcore-src" 2>/dev/null | wc -l)
		echo "test-kernel: ... still building, $(($(date +%s) - start)) s, $n objects compiled"
	done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
if ! kmake -j"$jobs" bzImage modules >"$OUT/build.log" 2>&1; then
	kill "$ticker" 2>/dev/null || true
	tail -n 40 "$OUT/build.log" >&2
	die "kernel build failed, see $OUT/build.log"
fi
if ! kmake -j"$jobs" modules_prepare >>"$OUT/build.log" 2>&1; then
	kill "$ticker" 2>/dev/null || true
	tail -n 40 "$OUT/build.log" >&2
	die "modules_prepare failed, see $OUT/build.log"
fi
kill "$ticker" 2>/dev/null || true

[ -f "$OUT/arch/x86/boot/bzImage" ] || die "no bzImage after the build"
[ -f "$OUT/Module.symvers" ] || die "no Module.symvers after the build"
echo "$KEY" >"$OUT/.mrcore-key"
log "built $(kmake -s kernelrelease) in $(($(date +%s) - start)) s"
echo "$OUT"
