#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-vs-rw: rdma-mrcore's READ/WRITE helper against ib_core's RDMA
# R/W API in the userspace mirror, instructions per I/O under callgrind.
# rw.c and mr_pool.c (with rw.h and mr_pool.h) are extracted from the
# kernel's source tarball into build/linux-rw/ (never committed) and built
# against the mirror's shims (mirror/bench/vs-rw/) in an optimized build
# without sanitizers.  Prints a table; writes build/bench/vs-rw.json.
#
#   scripts/bench-vs-rw.sh [--smoke] [REGEX]
#
# REGEX picks rows (IMPL@PROFILE/DIR/SHAPE).  --smoke: 4 rows, fewer I/Os,
# no thresholds: builds, measures and checks the data in a few seconds once
# built.  Exit status 1 if a row fails, is unverified or miscounted.
#
# MRCORE_LINUX_SOURCE: the tarball (/usr/src/linux-source-6.12.tar.xz, of
# Debian's linux-source-6.12); MRCORE_BENCH_JOBS: callgrind runs at once (2).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/callgrind.sh
. "$TOP/scripts/lib/callgrind.sh"
TARBALL=${MRCORE_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
SRC=$TOP/build/linux-rw
B=$TOP/build/bench-vs-rw
OUT=$TOP/build/bench
CG_NAME=bench-vs-rw
CG=$OUT/vs-rw-callgrind
CG_PROG=$B/bench/vs-rw/vs_rw_count
JOBS=${MRCORE_BENCH_JOBS:-2}

smoke=0
if [ "${1:-}" = --smoke ]; then
	smoke=1
	shift
fi
if [ $smoke = 1 ]; then
	filter=${1:-'@(iwarp/read/8_pages|roce/write/32_pages)$'}
	# I/Os of the two callgrind runs: the difference a multiple of the
	# pools' 32 MRs, as in bench-mirror.
	N1=32
	N2=96
else
	filter=${1:-.}
	# The difference is 256 turns of the 32-MR pools: an MR's device MR is
	# replaced once in 256 keys (MRCORE_KEY_USES), and with the pool's MRs
	# taken in turn that comes once per MR in 8192 I/Os, all of it in the
	# count.  Fewer I/Os left the replacements out.
	N1=64
	N2=8256
fi

cg_need valgrind callgrind_annotate python3 cmake ninja tar

# Only these files leave the tarball; they are re-extracted when it changes.
members=(drivers/infiniband/core/rw.c drivers/infiniband/core/mr_pool.c
	include/rdma/rw.h include/rdma/mr_pool.h)
if [ ! -e "$SRC/.extracted" ] || [ "$TARBALL" -nt "$SRC/.extracted" ]; then
	[ -r "$TARBALL" ] || {
		echo "bench-vs-rw: $TARBALL missing (linux-source-6.12, scripts/deps.sh)" >&2
		exit 2
	}
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 --wildcards \
		"${members[@]/#/*/}"
	for m in "${members[@]}"; do
		[ -f "$SRC/$m" ] || { echo "bench-vs-rw: $m not in $TARBALL" >&2; exit 2; }
	done
	touch "$SRC/.extracted"
fi

cg_build "$B" "$JOBS" -DMRCORE_VS_RW_SRC="$SRC" -- vs_rw_count
cg_rows "$filter"
echo "bench-vs-rw: $(wc -l <"$CG/rows") rows, $N1 and $N2 I/Os each"
cg_count_rows "$N1" "$N2" "$JOBS"

# Where the figures come from.
commit=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$TOP" diff --quiet HEAD 2>/dev/null || commit="$commit-dirty"
pkg=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
python3 - "$CG/meta.json" "$commit" "$TARBALL" "$pkg" "$SRC" \
	"${members[@]}" <<'EOF'
import hashlib, json, sys, time
out, commit, tarball, pkg, src, *members = sys.argv[1:]
json.dump({
    "date": time.strftime("%Y-%m-%d"),
    "commit": commit,
    "peer": {"tarball": tarball, "package_version": pkg,
             "sha256": {m: hashlib.sha256(open(f"{src}/{m}", "rb").read())
                        .hexdigest()[:16] for m in members}},
}, open(out, "w"))
EOF

cg_report "$TOP/mirror/bench/vs-rw/report.py" "$CG" "$N1" "$N2" \
	"$OUT/vs-rw.json" "$TOP" "$SRC" "$CG/meta.json"
echo "bench-vs-rw: build/bench/vs-rw.json; callgrind profiles in build/bench/vs-rw-callgrind/"
