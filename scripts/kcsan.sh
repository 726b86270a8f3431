#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make kcsan: the KCSAN flavour of the test kernel (kunit/kcsan-kernel.config,
# MRCORE_KERNEL_FLAVOUR=kcsan, cached like the test kernel) booted with 4
# vCPUs, running the suites where many CPUs reach the pools, the quarantine
# work, the per-CPU counters and the registry at once: the flush and soak
# suites, the stress suites (kthreads on every CPU sharing pools while a
# backend is registered and unregistered in a loop), then the removal
# suites (last: they delete the devices).  One boot per suite glob
# (kunit.filter_glob takes one glob).  Any KCSAN report ("BUG: KCSAN: ...")
# fails the run, as any other BUG line does in scripts/guest-report.py.
# make soak runs this after its own steps.
#
#   scripts/kcsan.sh            build what is stale, then boot once per glob
#   MRCORE_KCSAN_GLOBS="..."    the globs, space-separated, in order
#                               (default: mrcore_flush_* mrcore_soak_*
#                               mrcore_stress_* mrcore_removal_*)
#   MRCORE_KCSAN_STRESS_IOS=N   I/Os per device of the stress suites (2048:
#                               4096 took 314 s on siw on a loaded 2-core
#                               host, past KUnit's 300 s per case)
#   MRCORE_KCSAN_SOAK_IOS=N     I/Os per device of the soak suites (1000)
#
# Output: build/kcsan/<n>-<glob>/ as scripts/kunit.sh writes build/kunit/.
# The I/O counts of the soak and stress suites come before the last line,
# "kcsan: N passed, M failed, R KCSAN reports".
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
guest_start kcsan "${MRCORE_KCSAN_OUT:-$TOP/build/kcsan}"
read -r -a globs <<<"${MRCORE_KCSAN_GLOBS:-mrcore_flush_* mrcore_soak_* mrcore_stress_* mrcore_removal_*}"
params="mrcore_io_e2e.stress_ios=${MRCORE_KCSAN_STRESS_IOS:-2048}"
params+=" mrcore_io_e2e.soak_ios=${MRCORE_KCSAN_SOAK_IOS:-1000}"
# No PS/2 ports: the guest has no use for QEMU's i8042 keyboard, whose
# driver races with itself at boot (once, 2026-12-03: "data-race in
# ps2_do_sendbyte / ps2_interrupt", 15 s into a boot), a report that is
# the input layer's, not ours, and would fail the run.
params+=" i8042.nokbd i8042.noaux"

export MRCORE_KERNEL_FLAVOUR=kcsan
export MRCORE_QEMU_SMP=4
# A KCSAN report fails the run when a frame of either stack is ours (our
# modules, or an rdma_io_/rdma_mr_/mrcore_ function: scripts/guestlib.py,
# OURS); a race of the rest of the kernel (TCP, cgroups, input, ...) is
# listed apart and counted, but is upstream's to fix.
export MRCORE_KCSAN_OURS_ONLY=1

guest_kdir
guest_unbuilt "the KCSAN kernel is not built yet: building it now (about" \
	"20 min on 2 cores, once; cached in $KDIR)"

pass=0 fail=0 n=0 reports=0 outside=0
for g in "${globs[@]}"; do
	case "$g" in
	*[!A-Za-z0-9_*?.-]*)
		echo "kcsan: a glob takes [A-Za-z0-9_*?.-] only: '$g'" >&2
		exit 2
		;;
	esac
	n=$((n + 1))
	dir=$OUT/$n-${g//[*?]/_}
	echo "kcsan: boot $n: $g"
	if MRCORE_KUNIT_OUT=$dir \
		MRCORE_KUNIT_APPEND="kunit.filter_glob=$g $params ${MRCORE_KUNIT_APPEND:-}" \
		"$TOP/scripts/kunit.sh" >"$dir.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		tail -n 20 "$dir.log"
	fi
	grep -h '^kunit:' "$dir.log" | tail -n1 | sed "s/^/kcsan: $g: /" || true
	# The figures: soak and stress I/O counts, as the cases print them.
	grep -h 'I/Os verified\|I/Os on [0-9]* threads' "$dir/console.log" 2>/dev/null |
		sed "s/^.*\] *#* */kcsan: $g: /" || true
	# "ours N", "outside M", then one line per report: where, whose, what.
	triage=$(python3 "$TOP/scripts/guestlib.py" kcsan-triage "$dir/console.log")
	r=$(sed -n 's/^ours //p' <<<"$triage")
	x=$(sed -n 's/^outside //p' <<<"$triage")
	reports=$((reports + r)) outside=$((outside + x))
	echo "kcsan: $g: $r KCSAN reports of ours, $x outside the project's code"
	grep '^  ' <<<"$triage" | sed "s|^|kcsan: $dir/|" || true
done
echo "kcsan: $pass passed, $fail failed, $reports KCSAN reports (and $outside outside the project's code)"
[ "$fail" -eq 0 ] && [ "$reports" -eq 0 ]
