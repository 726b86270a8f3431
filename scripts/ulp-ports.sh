#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the ports of upstream ULPs (ulp-ports/<port>/) out of tree against
# the test kernel, each twice from the same extraction of linux-source-6.12:
# the files as they are (stock/, the peer of every comparison) and with the
# port's patches applied (mrcore/).  Nothing of upstream is kept in the
# repository: the files are copied at build time from the kernel source
# scripts/test-kernel.sh extracted.
#
#   scripts/ulp-ports.sh OUTDIR SYMVERS [PORT...]
#   scripts/ulp-ports.sh --patch-only OUTDIR [PORT...]
#
# OUTDIR/<port>/ gets ulp-ports/<port>/Kbuild, stock/ and mrcore/ (laid out
# as ulp-ports/<port>/files says), the port's own sources, lib/ (the
# sources of ulp-ports/lib/, which its test modules may link) and the
# modules; ulp-ports/lib/ is no port (it has no files list).  SYMVERS is the
# Module.symvers of the rdma_mrcore.ko the converted modules link to.
# Unchanged files keep their times (the rebuild is incremental).  A patch
# that does not apply, or any compiler warning, fails.  Prints, per patch,
# the lines it adds and removes.
#
# Environment: MRCORE_KERNEL_FLAVOUR as scripts/test-kernel.sh;
# MRCORE_ULP_ROOT reads the ports from another directory than ulp-ports/
# (a patch being written); MRCORE_ULP_KDIR builds against another kernel
# tree (Debian's headers: a compile check while the test kernel builds);
# MRCORE_ULP_MUTANT="NAME..." applies ulp-ports/<port>/mutants/NAME.patch,
# planted bugs, on top of the port's patches (use another OUTDIR).
#
# --patch-only: the same stock/ and mrcore/ files, but no build (no SYMVERS,
# no test kernel, only its extracted source) and the planted bugs applied
# strictly (patch --fuzz=0, as scripts/mutants.sh): scripts/mutants.sh
# --check uses it to check that every mutant still applies.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() {
	echo "ulp-ports: ERROR: $*" >&2
	exit 1
}
patch_only=0
if [ "${1:-}" = --patch-only ]; then
	patch_only=1
	shift
	[ $# -ge 1 ] || die "usage: $0 --patch-only OUTDIR [PORT...]"
	out=$1
	shift
else
	[ $# -ge 2 ] || die "usage: $0 OUTDIR SYMVERS [PORT...]"
	out=$1 symvers=$2
	shift 2
	[ -f "$symvers" ] || die "$symvers not found (build rdma_mrcore first)"
	symvers=$(cd "$(dirname "$symvers")" && pwd)/$(basename "$symvers")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

ksrc=$("$TOP/scripts/test-kernel.sh" --print-src)
if [ $patch_only = 1 ]; then
	[ -f "$ksrc/.mrcore-extracted" ] ||
		die "linux-source-6.12 is not extracted in $ksrc (scripts/test-kernel.sh extracts it)"
elif [ -n "${MRCORE_ULP_KDIR:-}" ]; then
	kdir=$MRCORE_ULP_KDIR
else
	kdir=$("$TOP/scripts/test-kernel.sh" --print-dir)
	[ -f "$kdir/.mrcore-key" ] || die "the test kernel is not built ($kdir)"
fi

ROOT=${MRCORE_ULP_ROOT:-$TOP/ulp-ports}
# The shared sources: the project's, unless the other directory has its own.
LIB=$ROOT/lib
[ -d "$LIB" ] || LIB=$TOP/ulp-ports/lib
ports=("$@")
if [ ${#ports[@]} -eq 0 ]; then
	for d in "$ROOT"/*/; do
		[ -f "$d/files" ] && ports+=("$(basename "$d")")
	done
fi

# put SRC DST: copy unless DST has the same bytes already.
put() {
	cmp -s "$1" "$2" && return 0
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2"
}

for port in "${ports[@]}"; do
	pdir=$ROOT/$port
	dst=$out/$port
	[ -f "$pdir/files" ] || die "no ulp-ports/$port/files"
	# The patches apply to a staging tree laid out as the kernel source.
	stage=$dst/.stage
	rm -rf "$stage"
	mkdir -p "$stage"
	mapfile -t lines < <(grep -v -e '^#' -e '^[[:space:]]*$' "$pdir/files")
	for l in "${lines[@]}"; do
		read -r from to <<<"$l"
		[ -f "$ksrc/$from" ] || die "$ksrc/$from missing"
		mkdir -p "$stage/$(dirname "$from")"
		cp "$ksrc/$from" "$stage/$from"
		put "$ksrc/$from" "$dst/stock/$to"
	done
	for p in "$pdir"/*.patch; do
		[ -e "$p" ] || continue
		patch -d "$stage" -p1 -N -s --no-backup-if-mismatch <"$p" ||
			die "ulp-ports/$port/$(basename "$p") does not apply to $ksrc"
		# The diff's own lines, not the description above it.
		add=$(sed -n '/^--- /,$p' "$p" | grep -c '^+[^+]' || true)
		del=$(sed -n '/^--- /,$p' "$p" | grep -c '^-[^-]' || true)
		echo "ulp-ports: $port/$(basename "$p"): +$add -$del"
	done
	# A planted bug (ulp-ports/<port>/mutants/): the converted files with
	# it, so that a run shows the test that catches it.
	strict=()
	[ $patch_only = 1 ] && strict=(-t --fuzz=0)
	for mut in ${MRCORE_ULP_MUTANT:-}; do
		m=$pdir/mutants/$mut.patch
		[ -f "$m" ] || die "no ulp-ports/$port/mutants/$mut.patch"
		patch -d "$stage" -p1 -N -s --no-backup-if-mismatch "${strict[@]}" <"$m" ||
			die "mutant $mut does not apply"
		echo "ulp-ports: $port: planted bug $mut applied"
	done
	for l in "${lines[@]}"; do
		read -r from to <<<"$l"
		put "$stage/$from" "$dst/mrcore/$to"
	done
	put "$pdir/Kbuild" "$dst/Kbuild"
	# The port's own sources (its tests' modules), as they are, and the
	# ones the ports' test modules share (ulp-ports/lib/: the attackers'
	# core), into lib/ for a Kbuild that links them.
	for f in "$pdir"/*.[ch]; do
		[ -e "$f" ] && put "$f" "$dst/$(basename "$f")"
	done
	for f in "$LIB"/*.[ch]; do
		[ -e "$f" ] && put "$f" "$dst/lib/$(basename "$f")"
	done
	if [ $patch_only = 1 ]; then
		echo "ulp-ports: $port: patched, not built, in $dst"
		continue
	fi

	log=$dst/build.log
	if ! make -C "$kdir" M="$dst" MRCORE_INCLUDE="$TOP/include" \
		MRCORE_SRC="$(dirname "$symvers")" \
		KBUILD_EXTRA_SYMBOLS="$symvers" -j"$(nproc)" modules >"$log" 2>&1; then
		cat "$log" >&2
		die "$port: build failed ($log)"
	fi
	if grep -E 'warning|error' "$log"; then
		die "$port: warnings above ($log)"
	fi
	echo "ulp-ports: $port: $(sed 's|.*/||' "$dst/modules.order" | tr '\n' ' ')in $dst"
done
