#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: every test layer, each step's output kept in build/check/.
# The last line is "check: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"
mkdir -p build/check

# make check runs every suite of its steps: a filter or parameter left in
# the environment for a make kunit by hand would narrow them unnoticed.
for v in MRCORE_KUNIT_APPEND; do
	if [ -n "${!v:-}" ]; then
		echo "check: ignoring $v=${!v} (make check runs every suite)"
	fi
	unset "$v"
done

H61=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n1)
H612=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n1)

steps=(
	# W=1 and sparse C=2 in one build per kernel, with the test hooks and
	# without (production); any warning of either fails
	"build-6.1|scripts/module-build.sh 6.1 ${H61:-/nonexistent} sparse"
	"build-6.12|scripts/module-build.sh 6.12 ${H612:-/nonexistent} sparse"
	"checkpatch|scripts/checkpatch.sh"
	"kernel-doc|scripts/kernel-doc.sh"
	"forbidden|scripts/forbidden.sh"
	# ulp-adapters/: no access flags, local keys or transport tests
	"ulp-grep|scripts/ulp-grep.sh"
	# the line counts of Documentation/ulp-guide.rst are the script's
	"ulp-loc|scripts/ulp-loc.sh --check"
	"docs|scripts/docs.sh"
	"dkms|scripts/dkms-check.sh"
	# make install from the shipped tree, then samples/mrcore-ulp built
	# against the installed headers + Module.symvers (KBUILD_EXTRA_SYMBOLS)
	"install|scripts/install-check.sh"
	"mirror|scripts/mirror.sh"
	"fuzz|scripts/fuzz.sh"
	"soak|scripts/soak.sh"
	# every planted bug of make mutants still applies to the code, and
	# every one of the ULP ports on its port's patches (the patches only,
	# no build: make mutants, nvmeof and nfsrdma run them)
	"mutants|scripts/mutants.sh --check"
	# mrcore against ib_core's rdma_rw in the mirror: a few rows, data
	# verified, no thresholds (make bench-vs-rw for the table)
	"bench-vs-rw|scripts/bench-vs-rw.sh --smoke"
	# KUnit without the cases marked slow (make kunit runs them all)
	"kunit|scripts/kunit.sh --quick"
	# two guests over a virtio-net wire: the security suites on rxe and
	# siw, on make kunit's modules (make kunit-2host for the whole run)
	"kunit-2host|scripts/kunit-2host.sh --smoke"
	# real NVMe over Fabrics: the converted nvme-rdma and nvmet-rdma,
	# Debian's nvme-cli and fio, 64 MiB verified on siw (make nvmeof for
	# the whole run)
	"nvmeof|scripts/nvmeof.sh --smoke"
	# real NFS over RDMA: the converted rpcrdma, client and server, on
	# siw, NFSv4.2, 16 MiB and a tree of files, then the attacker on the
	# converted client's PD (make nfsrdma for the whole)
	"nfsrdma|scripts/nfsrdma.sh --smoke"
)

# Two lanes at once, each in its order: the guests' (QEMU: kunit, its two
# hosts, the real ULPs) and the host's (builds, static checks, the
# package's install, the mirror), the host's niced so
# that the guests keep their CPU.  A guest spends much of its time waiting
# on its timers and devices, which the host lane fills; on 2 cores this
# takes about as long as the guest lane alone.  (Two guests at once do
# not: running the NFS smoke beside the NVMe one once the host lane was
# done slowed both about twofold, fio's guests being busy, and the whole
# took 1,173 s against 990 s.)  MRCORE_CHECK_SERIAL=1 runs the steps one
# after another, in the list's order.  The kunit guest loads the package
# as installed for its kernel: its build makes it (install-check.sh
# --guest) unless the install step made it first, one writer at a time.
guest_steps="kunit kunit-2host nvmeof nfsrdma"

# run_step NAME CMD: one step, its log in build/check/NAME.log, its result
# line in build/check/NAME.result ("ok" or "FAILED" first).
run_step() {
	local name=$1 cmd=$2 log=build/check/$1.log start rc=0
	start=$(date +%s)
	$cmd >"$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		printf 'ok     %4ss  %s\n' $(($(date +%s) - start)) \
			"$(tail -n1 "$log")" >"build/check/$name.result"
	else
		printf 'FAILED %4ss  (build/check/%s.log)\n' \
			$(($(date +%s) - start)) "$name" >"build/check/$name.result"
	fi
	printf 'check: %-12s %s\n' "$name" "$(cat "build/check/$name.result")"
}

rm -f build/check/*.result
check_start=$(date +%s)
if [ "${MRCORE_CHECK_SERIAL:-0}" = 1 ]; then
	for s in "${steps[@]}"; do
		run_step "${s%%|*}" "${s#*|}"
	done
else
	(
		for s in "${steps[@]}"; do
			case " $guest_steps " in *" ${s%%|*} "*) ;; *) continue ;; esac
			run_step "${s%%|*}" "${s#*|}"
		done
	) &
	guest_lane=$!
	for s in "${steps[@]}"; do
		case " $guest_steps " in *" ${s%%|*} "*) continue ;; esac
		nice -n 10 bash -c "$(declare -f run_step); run_step '${s%%|*}' '${s#*|}'"
	done
	wait "$guest_lane"
fi

# The verdict, in the list's order.
passed=0 failed=0 failures=()
echo "check: all steps ran in $(($(date +%s) - check_start)) s:"
for s in "${steps[@]}"; do
	name=${s%%|*}
	res=$(cat "build/check/$name.result" 2>/dev/null || echo "FAILED    0s  (no result)")
	printf 'check: %-12s %s\n' "$name" "$res"
	case $res in
	ok*) passed=$((passed + 1)) ;;
	*)
		failed=$((failed + 1))
		failures+=("$name")
		tail -n 25 "build/check/$name.log" | sed 's/^/    /'
		;;
	esac
done

[ "$failed" -eq 0 ] || echo "check: failed steps: ${failures[*]}"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
