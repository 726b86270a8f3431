# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What scripts/bench-mirror.sh and scripts/bench-vs-rw.sh share: the
# mirror's optimized build, the rows a program lists, and two callgrind runs
# of each row (N1 and N2 I/Os; the reports take the difference, so set-up
# and teardown cancel out).  Sourced, not run.  The caller sets:
#
#   CG_NAME   its name, for messages ("bench-mirror")
#   CG        the directory of the callgrind runs (emptied by cg_rows)
#   CG_PROG   the program that runs N I/Os of a row: PROG --list, PROG ROW N

# cg_need TOOL...: each on PATH, or exit 2.
cg_need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || {
			echo "$CG_NAME: $tool missing (scripts/deps.sh)" >&2
			exit 2
		}
	done
}

# cg_build BUILD_DIR JOBS [CMAKE_ARG...] -- TARGET...: the mirror, optimized
# with debug info for callgrind and without sanitizers (-DMRCORE_BENCH=ON).
# JOBS empty: ninja's default.
cg_build() {
	local dir=$1 jobs=$2
	shift 2
	local args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	cmake -S "$TOP/mirror" -B "$dir" -G Ninja \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMRCORE_BENCH=ON \
		"${args[@]}" >/dev/null
	ninja -C "$dir" ${jobs:+-j "$jobs"} "$@" >/dev/null
}

# cg_rows REGEX: empty $CG, list the rows of $CG_PROG that match into
# $CG/rows, or exit 2 if none does.
cg_rows() {
	rm -rf "$CG"
	mkdir -p "$CG"
	"$CG_PROG" --list | grep -E -- "$1" >"$CG/rows" || {
		echo "$CG_NAME: no row matches '$1'" >&2
		exit 2
	}
}

# cg_count ROW N: one callgrind run of N I/Os of ROW, into
# $CG/<ROW>.<N>.{out,log,err,fn}.
cg_count() {
	local row=$1 n=$2 stem
	stem=$CG/$(echo "$row" | tr '/@' '__').$n
	valgrind --tool=callgrind --callgrind-out-file="$stem.out" \
		"$CG_PROG" "$row" "$n" >"$stem.log" 2>"$stem.err" || {
		echo "$CG_NAME: $row: callgrind run of $n I/Os failed:" >&2
		tail -n 5 "$stem.err" >&2
		return 1
	}
	# Exclusive Ir per function, for the implementation's own share.
	callgrind_annotate --auto=no --inclusive=no --threshold=100 \
		"$stem.out" >"$stem.fn"
}

# cg_count_rows N1 N2 JOBS: cg_count of every row of $CG/rows with N1 and
# with N2 I/Os, JOBS runs at once.
cg_count_rows() {
	local n1=$1 n2=$2 jobs=$3 row
	export -f cg_count
	export CG CG_PROG CG_NAME
	# shellcheck disable=SC2016 # $0 and $1 are the inner bash's
	while read -r row; do
		printf '%s %s\n' "$row" "$n1" "$row" "$n2"
	done <"$CG/rows" | xargs -n 2 -P "$jobs" bash -c 'cg_count "$0" "$1"'
}

# cg_report SCRIPT ARG...: a report of mirror/bench/, with that directory on
# its path (callgrind_ir.py) and no bytecode written into the tree.
cg_report() {
	PYTHONPATH="$TOP/mirror/bench${PYTHONPATH:+:$PYTHONPATH}" \
		PYTHONDONTWRITEBYTECODE=1 python3 "$@"
}
