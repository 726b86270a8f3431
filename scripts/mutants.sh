#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Mutation check of the fast test layers: each patch in mirror/mutants/
# plants one plausible product bug; the mirror tests, then a short soak,
# then a short fuzz run (each only if the ones before did not) must catch it.
#
#   scripts/mutants.sh [--all] [--no-baseline] [MUTANT...]
#   scripts/mutants.sh --check [MUTANT...]
#
#   MUTANT          a patch name or its prefix (03, 03-multiread; with
#                   --check also a ULP port's: nvme/host, host-rkey);
#                   default all
#   --all           run every layer and every mirror test on each mutant and
#                   list all that catch it (default: stop at the first
#                   failing test and skip the layers after a catching one)
#   --no-baseline   skip the run of every layer on the unmutated tree
#   --check         only check that every patch applies (no build):
#                   mirror/mutants/ to the working tree, and each
#                   ulp-ports/<port>/mutants/NAME.patch alone on top of
#                   the port's patches (scripts/ulp-ports.sh --patch-only
#                   into build/mutants/ulp, on the linux-source-6.12 that
#                   scripts/test-kernel.sh extracted: an error if it is
#                   not).  One line per mutant, one per directory
#                   ("mutants DIR: N patches, M do not apply"), then
#                   "mutants: N patches, M do not apply" for all.
#
# The patches are applied one at a time to a scratch copy of the working
# tree's sources (build/mutants/tree), never to the working tree.  Before each
# mutant the copy is reset from the working tree file by file: only files
# that differ are copied (with a fresh mtime), so ninja recompiles only the
# file the last mutant and this one touched.  Build directories:
# build/mutants/mirror (GCC, ASan + UBSan, as scripts/mirror.sh) and
# build/mutants/fuzz (clang, libFuzzer, as scripts/fuzz.sh).  Logs go to
# build/mutants/logs/<mutant>.<layer>.log.
#
# One line per mutant ("mutant NAME: caught by LAYER (detail)", with --all
# "caught by LAYER (detail); LAYER (detail)", "mutant
# NAME: SURVIVED", or "mutant NAME: ERROR ..." for a patch that does not
# apply or a mutant that does not build), then "mutants: N caught, M
# survived".  Exit status 0 only if every mutant was caught.
#
# MRCORE_MUTANTS_SOAK_IOS (100000, as make check) and
# MRCORE_MUTANTS_FUZZ_RUNS ("50000 2000 2000": sg_planner, io_chain,
# key_life, as make check) size the soak and fuzz runs.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MUT=$TOP/mirror/mutants
ULP=$TOP/ulp-ports
B=$TOP/build/mutants
UB=$B/ulp
T=$B/tree
MB=$B/mirror
FB=$B/fuzz
LOGS=$B/logs
SOAK_IOS=${MRCORE_MUTANTS_SOAK_IOS:-100000}
read -r -a FUZZ_RUNS <<<"${MRCORE_MUTANTS_FUZZ_RUNS:-50000 2000 2000}"
FUZZ_TARGETS=(sg_planner io_chain key_life)
JOBS=2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

all=0 baseline=1 check_only=0
sel=()
for a in "$@"; do
	case $a in
	--all) all=1 ;;
	--no-baseline) baseline=0 ;;
	--check) check_only=1 ;;
	-h|--help) sed -n '3,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	-*) echo "mutants: unknown option $a" >&2; exit 2 ;;
	*) sel+=("$a") ;;
	esac
done

# selected NAME...: does a MUTANT argument (or their absence) select one?
selected() {
	local s n
	[ ${#sel[@]} = 0 ] && return 0
	for s in "${sel[@]}"; do
		for n in "$@"; do
			[[ $n == "$s"* ]] && return 0
		done
	done
	return 1
}

patches=()
for p in "$MUT"/*.patch; do
	selected "$(basename "$p" .patch)" && patches+=("$p")
done
# --check: the ULP ports' planted bugs too, as PORT/NAME.
ulp_mutants=()
if [ $check_only = 1 ]; then
	for p in "$ULP"/*/mutants/*.patch; do
		[ -e "$p" ] || continue
		n=$(basename "$p" .patch)
		port=$(basename "$(dirname "$(dirname "$p")")")
		selected "$port/$n" "$n" && ulp_mutants+=("$port/$n")
	done
fi
if [ $((${#patches[@]} + ${#ulp_mutants[@]})) = 0 ]; then
	where=${MUT#"$TOP"/}
	[ $check_only = 1 ] && where+=" or ulp-ports/*/mutants"
	echo "mutants: no patch in $where matches ${sel[*]:-anything}" >&2
	exit 2
fi

mkdir -p "$T" "$LOGS"
exec 9>"$B/lock"
flock 9

# The sources the mirror builds from, relative to the top.
sources() {
	(cd "$1" && find core drivers include mirror -type f \
		! -path 'mirror/mutants/*' && find tests/cases -name '*.h' &&
		find . -maxdepth 1 -name VERSION -printf '%P\n') |
		LC_ALL=C sort
}

# Reset the scratch tree to the working tree; touch only what differs.
sync_tree() {
	local f
	while read -r f; do
		if ! cmp -s "$TOP/$f" "$T/$f"; then
			mkdir -p "$T/$(dirname "$f")"
			cp "$TOP/$f" "$T/$f"
		fi
	done < <(sources "$TOP")
	# Files the working tree no longer has (or a patch added).
	LC_ALL=C comm -13 <(sources "$TOP") <(sources "$T") |
		while read -r f; do rm -f "$T/$f"; done
}

# Does the patch apply (strictly: no fuzz, line offsets allowed)?
applies() {
	patch -d "$1" -p1 -N -t --fuzz=0 --dry-run <"$2" >"$3" 2>&1
}

describe() {
	sed -n 's/^Models: //p' "$1" | head -n1
}

# ulp_stage PORT [MUTANT]: the port's files from the kernel source, its
# patches and MUTANT applied (strictly), in $UB/PORT; the output in
# $LOGS/PORT[-MUTANT].patch.log.
ulp_stage() {
	MRCORE_ULP_ROOT=$ULP MRCORE_ULP_MUTANT=${2:-} \
		"$TOP/scripts/ulp-ports.sh" --patch-only "$UB" "$1" \
		>"$LOGS/$1${2:+-$2}.patch.log" 2>&1
}

if [ $check_only = 1 ]; then
	total=0 bad_all=0
	if [ ${#patches[@]} -gt 0 ] || [ ${#sel[@]} = 0 ]; then
		bad=0
		for p in "${patches[@]}"; do
			n=$(basename "$p" .patch)
			if applies "$TOP" "$p" "$LOGS/$n.patch.log"; then
				echo "mutant $n: applies ($(describe "$p"))"
			else
				echo "mutant $n: ERROR: patch does not apply:"
				sed 's/^/    /' "$LOGS/$n.patch.log"
				bad=$((bad + 1))
			fi
		done
		echo "mutants mirror/mutants: ${#patches[@]} patches, $bad do not apply"
		total=$((total + ${#patches[@]})) bad_all=$((bad_all + bad))
	fi
	# Per port: its own patches first (a failure there, or the kernel
	# source not extracted, is reported once), then each mutant alone.
	for d in "$ULP"/*/mutants/; do
		port=$(basename "$(dirname "$d")")
		muts=()
		for m in "${ulp_mutants[@]}"; do
			[ "${m%%/*}" = "$port" ] && muts+=("${m#*/}")
		done
		[ ${#muts[@]} -gt 0 ] || continue
		bad=0
		if ! ulp_stage "$port"; then
			echo "mutants ulp-ports/$port: ERROR: the port's own patches cannot be staged:"
			sed 's/^/    /' "$LOGS/$port.patch.log"
			bad=${#muts[@]}
		else
			for n in "${muts[@]}"; do
				if ulp_stage "$port" "$n"; then
					echo "mutant $port/$n: applies on top of ulp-ports/$port/*.patch"
				else
					echo "mutant $port/$n: ERROR: patch does not apply:"
					sed 's/^/    /' "$LOGS/$port-$n.patch.log"
					bad=$((bad + 1))
				fi
			done
		fi
		echo "mutants ulp-ports/$port/mutants: ${#muts[@]} patches, $bad do not apply"
		total=$((total + ${#muts[@]})) bad_all=$((bad_all + bad))
	done
	echo "mutants: $total patches, $bad_all do not apply"
	[ $bad_all = 0 ]
	exit
fi

build_mirror() {
	[ -f "$MB/build.ninja" ] ||
		cmake -S "$T/mirror" -B "$MB" -G Ninja \
			-DCMAKE_BUILD_TYPE=Debug >/dev/null
	ninja -j$JOBS -C "$MB" mirror_tests mirror_soak >"$1" 2>&1
}

build_fuzz() {
	[ -f "$FB/build.ninja" ] ||
		CC=clang CXX=clang++ cmake -S "$T/mirror" -B "$FB" -G Ninja \
			-DMRCORE_FUZZ=ON >/dev/null
	ninja -j$JOBS -C "$FB" "${FUZZ_TARGETS[@]/%/_fuzz}" >"$1" 2>&1
}

# run_ctest LOG: 0 if every test passed; the failed ones in $failed.
run_ctest() {
	local stop=(--stop-on-failure)
	[ $all = 1 ] && stop=()
	failed=
	rm -f "$MB/Testing/Temporary/LastTestsFailed.log"
	(cd "$MB" && ctest -j$JOBS --timeout 120 --output-on-failure \
		"${stop[@]}") >"$1" 2>&1 && return 0
	failed=$({ sed 's/^[0-9]*://; s/  *# GetParam().*//' \
		"$MB/Testing/Temporary/LastTestsFailed.log" 2>/dev/null || true; } |
		awk 'NR <= 4 { printf "%s%s", (NR > 1 ? ", " : ""), $0 }
		     END { if (NR > 4) printf ", +%d more", NR - 4
			   if (!NR) printf "ctest failed, no test named" }')
	return 1
}

# The first line of a log that says why a run failed.
why() {
	grep -m1 -E 'random I/O:|ERROR: [A-Za-z]*Sanitizer|runtime error|deadly signal|Check failed|soak:.*FAIL' "$1" |
		sed -E 's/^==[0-9]+==//; s/^.*(runtime error)/\1/; s/ on address.*//; s/^ +//' || true
}

# run_soak LOG: 0 if the soak passed.
run_soak() {
	# A subshell, so that bash's "Aborted" notice goes to the log too.
	(timeout 600 "$MB/mirror_soak" "$SOAK_IOS" 1) >"$1" 2>&1
}

# run_fuzz TAG: 0 if no target crashed; the crashing target in $fuzz_hit.
run_fuzz() {
	local i t w log
	fuzz_hit=
	for i in "${!FUZZ_TARGETS[@]}"; do
		t=${FUZZ_TARGETS[$i]}
		w=$FB/work-$1-$t
		log=$LOGS/$1.fuzz-$t.log
		rm -rf "$w" && mkdir -p "$w"
		if ! (cd "$FB" && timeout 600 "./${t}_fuzz" -runs="${FUZZ_RUNS[$i]}" \
			-seed=1 -artifact_prefix="$FB/$1-" "$w" \
			"$T/mirror/fuzz/corpus/$t") >"$log" 2>&1; then
			fuzz_hit="$t: $(why "$log")"
			return 1
		fi
	done
	return 0
}

secs() { echo $(($(date +%s) - $1)); }

start=$(date +%s)
: >"$LOGS/summary.log"
sync_tree
if [ $baseline = 1 ]; then
	# Every layer must pass on the unmutated tree, or "caught" means nothing.
	if ! build_mirror "$LOGS/baseline.build.log" ||
	   ! build_fuzz "$LOGS/baseline.build-fuzz.log"; then
		tail -n 30 "$LOGS"/baseline.build*.log
		echo "mutants: the unmutated tree does not build" >&2
		exit 2
	fi
	if ! run_ctest "$LOGS/baseline.mirror.log"; then
		echo "mutants: the unmutated tree fails the mirror tests ($failed)" >&2
		exit 2
	fi
	if ! run_soak "$LOGS/baseline.soak.log"; then
		echo "mutants: the unmutated tree fails the soak: $(why "$LOGS/baseline.soak.log")" >&2
		exit 2
	fi
	if ! run_fuzz baseline; then
		echo "mutants: the unmutated tree fails the fuzz run ($fuzz_hit)" >&2
		exit 2
	fi
	echo "mutants: baseline passes every layer ($(secs "$start") s)"
fi

caught=0 survived=0 errors=0
survivors=() broken=()
for p in "${patches[@]}"; do
	n=$(basename "$p" .patch)
	t0=$(date +%s)
	sync_tree
	if ! applies "$T" "$p" "$LOGS/$n.patch.log"; then
		echo "mutant $n: ERROR: patch does not apply (regenerate it):"
		sed 's/^/    /' "$LOGS/$n.patch.log"
		errors=$((errors + 1)); broken+=("$n")
		continue
	fi
	patch -d "$T" -p1 -N -t -s --fuzz=0 <"$p" >>"$LOGS/$n.patch.log" 2>&1
	if ! build_mirror "$LOGS/$n.build.log"; then
		echo "mutant $n: ERROR: does not build (see $LOGS/$n.build.log)"
		errors=$((errors + 1)); broken+=("$n")
		continue
	fi
	hits=()
	if ! run_ctest "$LOGS/$n.mirror.log"; then
		hits+=("mirror ($failed)")
	fi
	if [ $all = 1 ] || [ ${#hits[@]} = 0 ]; then
		run_soak "$LOGS/$n.soak.log" ||
			hits+=("soak ($(why "$LOGS/$n.soak.log"))")
	fi
	if [ $all = 1 ] || [ ${#hits[@]} = 0 ]; then
		if ! build_fuzz "$LOGS/$n.build-fuzz.log"; then
			echo "mutant $n: ERROR: does not build with clang (see $LOGS/$n.build-fuzz.log)"
			errors=$((errors + 1)); broken+=("$n")
			continue
		fi
		run_fuzz "$n" || hits+=("fuzz ($fuzz_hit)")
	fi
	res=SURVIVED
	if [ ${#hits[@]} -gt 0 ]; then
		res="caught by ${hits[0]}"
		for h in "${hits[@]:1}"; do
			res+="; $h"
		done
	fi
	if [ "$res" = SURVIVED ]; then
		survived=$((survived + 1)); survivors+=("$n")
		echo "mutant $n: SURVIVED ($(describe "$p"))"
	else
		caught=$((caught + 1))
		echo "mutant $n: $res"
	fi
	echo "mutant $n: $res [$(secs "$t0") s]" >>"$LOGS/summary.log"
done
# Leave the scratch tree clean (its build directories are rebuilt lazily).
sync_tree

echo "mutants: ${#patches[@]} mutants in $(secs "$start") s; logs in ${LOGS#"$TOP"/}"
[ ${#survivors[@]} = 0 ] || echo "mutants: survivors: ${survivors[*]}"
[ $errors = 0 ] || echo "mutants: $errors ERROR (patch does not apply or does not build): ${broken[*]}"
echo "mutants: $caught caught, $survived survived"
[ $survived = 0 ] && [ $errors = 0 ]
