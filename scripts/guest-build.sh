#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build what the test guest needs, only what is stale:
#
#   scripts/guest-build.sh OUTDIR
#
#   1. the test kernel (scripts/test-kernel.sh; cached outside the repo);
#   2. the modules, with W=1 and the test hooks
#      (CONFIG_RDMA_MRCORE_TEST_HOOKS=y: fault injection, force_backend,
#      which kunit/ needs), from a copy of the sources in OUTDIR/src so the
#      build never mixes objects with a module build in the work tree
#      against another kernel (kbuild of 6.12 has no separate output dir for
#      external modules); unchanged files keep their times, so the rebuild
#      is incremental;
#   3. with MRCORE_GUEST_SAMPLE=1 (scripts/kunit.sh): the package as
#      installed for the test kernel and the sample ULP built against it
#      (scripts/install-check.sh --guest, build/install/<flavour>/);
#   4. OUTDIR/initramfs.cpio.gz (scripts/initramfs.sh), with the package's
#      modules in /lib/mrcore/pkg/ when step 3 ran.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

"$TOP/scripts/test-kernel.sh" | sed -n '/^test-kernel:/p'
kdir=$("$TOP/scripts/test-kernel.sh" --print-dir)

# Sources kbuild reads: Kbuild files and C sources under these directories.
srcdirs=(include core drivers kunit tests/cases ulp-adapters compat)
src=$out/src
mkdir -p "$src"
list=$out/src.list
(
	cd "$TOP"
	{
		echo Kbuild
		echo VERSION
		for d in "${srcdirs[@]}"; do
			[ -d "$d" ] || continue
			find "$d" -type f \( -name '*.c' -o -name '*.h' -o \
				-name Kbuild -o -name Makefile -o \
				-name Kbuild.include -o -name run-probes.sh \) \
				-not -path 'compat/generated/*' -print
		done
	} | sort -u
) >"$list"
changed=0
while read -r f; do
	if ! cmp -s "$TOP/$f" "$src/$f"; then
		mkdir -p "$src/$(dirname "$f")"
		cp -p "$TOP/$f" "$src/$f"
		changed=$((changed + 1))
	fi
done <"$list"
# Sources removed from the tree go from the copy too.
(
	cd "$src"
	find . -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild -o \
		-name Makefile \) ! -name '*.mod.c' ! -path './compat/generated/*' \
		-printf '%P\n'
) | sort | comm -23 - "$list" | while read -r f; do
	rm -f "$src/$f" "$src/${f%.c}.o"
done
echo "guest-build: sources in $src ($changed changed)"

hooks=CONFIG_RDMA_MRCORE_TEST_HOOKS=y
echo "guest-build: make -C $kdir M=$src W=1 $hooks modules"
set +e
make -C "$kdir" M="$src" W=1 "$hooks" -j"$(nproc)" modules \
	>"$out/modules.log" 2>&1
rc=$?
set -e
# Everything but the progress lines: warnings show up here.
grep -v -e '^make\[' -e '^  [A-Z]' "$out/modules.log" || true
if [ "$rc" -ne 0 ]; then
	echo "guest-build: ERROR: module build failed ($out/modules.log)" >&2
	exit 1
fi

# The modules this tree builds now (not leftovers of removed ones).
mapfile -t mods < <(sed -e 's/\.o$/.ko/' -e "s|^\([^/]\)|$src/\1|" "$src/modules.order")
if [ "${#mods[@]}" -eq 0 ]; then
	echo "guest-build: ERROR: no modules built" >&2
	exit 1
fi
if [ "${MRCORE_GUEST_SAMPLE:-0}" = 1 ]; then
	"$TOP/scripts/install-check.sh" --guest
	export MRCORE_INITRAMFS_PKG=$TOP/build/install/$(basename "$kdir")
fi
"$TOP/scripts/initramfs.sh" "$out/initramfs.cpio.gz" "${mods[@]}"
echo "guest-build: kernel $kdir/arch/x86/boot/bzImage"
