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
	# every planted bug of make mutants still applies to the code (the
	# patches only, no build: make mutants runs them)
	"mutants|scripts/mutants.sh --check"
	# mrcore against ib_core's rdma_rw in the mirror: a few rows, data
	# verified, no thresholds (make bench-vs-rw for the table)
	"bench-vs-rw|scripts/bench-vs-rw.sh --smoke"
	"kunit|scripts/kunit.sh"
	# two guests over a virtio-net wire: the security suites on rxe and
	# siw, on make kunit's modules (make kunit-2host for the whole run)
	"kunit-2host|scripts/kunit-2host.sh --smoke"
	# real NVMe over Fabrics: the converted nvme-rdma and nvmet-rdma,
	# Debian's nvme-cli and fio, 64 MiB verified on siw (make nvmeof for
	# the whole run)
	"nvmeof|scripts/nvmeof.sh --smoke"
)

passed=0 failed=0 failures=()
for s in "${steps[@]}"; do
	name=${s%%|*} cmd=${s#*|}
	log=build/check/$name.log
	start=$(date +%s)
	if $cmd >"$log" 2>&1; then
		passed=$((passed + 1))
		printf 'check: %-12s ok     %4ss  %s\n' "$name" $(($(date +%s) - start)) \
			"$(tail -n1 "$log")"
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'check: %-12s FAILED %4ss  (build/check/%s.log)\n' "$name" \
			$(($(date +%s) - start)) "$name"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
done

[ "$failed" -eq 0 ] || echo "check: failed steps: ${failures[*]}"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
