#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count the lines of the upstream registration code paths the ULP adapters
# replace against the adapter code that replaces them (the figures of
# Documentation/ulp-guide.rst).
#
#   scripts/ulp-loc.sh [--check] [KSRC]
#       KSRC: a Linux source tree (default: the test kernel's, Debian's
#       linux-source-6.12).  --check: also fail unless every summary line
#       (the ones starting "  NFS", "  iSER" and "ulp-loc: total") appears
#       verbatim in Documentation/ulp-guide.rst, so the guide's figures are
#       this script's.
#
# Counting rule: a function counts the lines from its signature to its
# closing brace, after removing comments (/* */ and //), that are not
# blank.  Upstream, the functions of a file that do what the adapter does
# (registration, invalidation, remote invalidation, MR recycling, the
# completion handlers of these); the ones left out are listed with the
# reason.  Adapter side, every function of the adapter file.
#
# Also counted, in the same lines: the registration details a ULP hand-rolls
# (access flags, local keys, transport tests, REG_MR/LOCAL_INV WRs built by
# hand, ib_map_mr_sg/ib_update_fast_reg_key/DMA mapping calls, the global
# rkey), which the adapters leave to the core.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CHECK=0
if [ "${1:-}" = --check ]; then
	CHECK=1
	shift
fi
KSRC=${1:-$("$TOP/scripts/test-kernel.sh" --print-src)}
[ -d "$KSRC/net/sunrpc/xprtrdma" ] || {
	echo "ulp-loc: $KSRC is not a Linux source tree" >&2
	exit 1
}

exec python3 - "$KSRC" "$TOP" "$CHECK" <<'EOF'
import os
import re
import sys

ksrc, top, check = sys.argv[1], sys.argv[2], sys.argv[3] == '1'
summary = []
rows, nfuncs = [], []

def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                  text, flags=re.S)
    return [re.sub(r'//.*$', '', l) for l in text.split('\n')]

DETAIL = re.compile(r'IB_ACCESS_|lkey|rdma_protocol_|rdma_cap_|'
                    r'IB_WR_REG_MR|IB_WR_LOCAL_INV|ib_map_mr_sg|'
                    r'ib_update_fast_reg_key|ib_dma_(un)?map_sg|'
                    r'unsafe_global_rkey|ib_alloc_mr|ib_dereg_mr')

def functions(path):
    """{name: (counted lines, detail lines)} of every top-level function."""
    with open(path, encoding='utf-8') as f:
        lines = strip_comments(f.read())
    out, i = {}, 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r'^[A-Za-z_][^=;]*?\b(\w+)\(', l)
        if not m or l.startswith(('EXPORT_', 'MODULE_', 'module_')):
            i += 1
            continue
        # The signature runs to a line that is "{" alone.
        j = i
        while j < len(lines) and lines[j].strip() != '{' and \
                not lines[j].rstrip().endswith(';'):
            j += 1
        if j >= len(lines) or lines[j].strip() != '{':
            i += 1
            continue
        k = j
        while k < len(lines) and lines[k] != '}':
            k += 1
        body = [x for x in lines[i:k + 1] if x.strip()]
        out[m.group(1)] = (len(body), sum(1 for x in body if DETAIL.search(x)))
        i = k + 1
    return out

def file_lines(path):
    with open(path, encoding='utf-8') as f:
        return sum(1 for x in strip_comments(f.read()) if x.strip())

SETS = [
    ('NFS client (xprtrdma)',
     'net/sunrpc/xprtrdma/frwr_ops.c',
     {'frwr_cid_init': 'completion-ID tracing',
      'frwr_query_device': 'device limits and QP/credit sizing of the transport',
      'frwr_wp_create': 'the write-pad registration, not a request path'},
     'ulp-adapters/nfs/clnt.c'),
    ('iSER initiator',
     'drivers/infiniband/ulp/iser/iser_memory.c',
     {'iser_set_dif_domain': 'T10-PI signature attributes (no PI in the adapter)',
      'iser_set_sig_attrs': 'T10-PI signature attributes',
      'iser_set_prot_checks': 'T10-PI signature attributes',
      'iser_reg_sig_mr': 'T10-PI signature MR'},
     'ulp-adapters/iser/initiator.c'),
]

print('ulp-loc: rule: non-blank lines from signature to closing brace, '
      'comments removed')
print('ulp-loc: upstream from %s' % ksrc)
totals = []
for title, up, left_out, ours in SETS:
    upf = functions(os.path.join(ksrc, up))
    ourf = functions(os.path.join(top, ours))
    if not upf or not ourf:
        sys.exit('ulp-loc: no functions found in %s or %s' % (up, ours))
    missing = set(left_out) - set(upf)
    if missing:
        sys.exit('ulp-loc: %s has no %s' % (up, ', '.join(sorted(missing))))
    up_n = sum(n for f, (n, _) in upf.items() if f not in left_out)
    up_d = sum(d for f, (_, d) in upf.items() if f not in left_out)
    our_n = sum(n for n, _ in ourf.values())
    our_d = sum(d for _, d in ourf.values())
    print()
    print('%s' % title)
    print('  upstream %s: %d functions counted, %d lines '
          '(file: %d non-blank non-comment lines)' %
          (up, len(upf) - len(left_out), up_n,
           file_lines(os.path.join(ksrc, up))))
    print('    %-28s %5s %7s' % ('function', 'lines', 'details'))
    for f, (n, d) in upf.items():
        if f in left_out:
            print('    %-28s %5s %7s  left out: %s' % (f, '-', '-',
                                                      left_out[f]))
        else:
            print('    %-28s %5d %7d' % (f, n, d))
    print('  adapter %s: %d functions, %d lines' % (ours, len(ourf), our_n))
    for f, (n, d) in ourf.items():
        print('    %-28s %5d %7d' % (f, n, d))
    summary.append('%s: upstream %d lines (%d with registration details), '
                   'adapter %d lines (%d)' % (title, up_n, up_d, our_n, our_d))
    print('  ' + summary[-1])
    totals.append((up_n, up_d, our_n, our_d))
    # The guide's side-by-side row of this set.
    rows.append(r'``%s``.*?\s%d\s+%d\s+``%s``\s+%d\s+%d\s*$' %
                (re.escape(os.path.basename(up)), len(upf) - len(left_out),
                 up_n, re.escape(ours), len(ourf), our_n))
    nfuncs.append((len(upf) - len(left_out), len(ourf)))
summary.append('ulp-loc: total: upstream %d lines (%d with registration '
               'details), adapters %d lines (%d)' %
               tuple(sum(t[i] for t in totals) for i in range(4)))
print()
print(summary[-1])
if check:
    with open(os.path.join(top, 'Documentation', 'ulp-guide.rst'),
              encoding='utf-8') as f:
        guide = f.read()
    t = [sum(x[i] for x in totals) for i in range(4)]
    rows.append(r'^total\s+%d\s+%d\s+total\s+%d\s+%d\s*$' %
                (sum(n for n, _ in nfuncs), t[0], sum(n for _, n in nfuncs),
                 t[2]))
    rows.append(r'^registration detail\s+%d \(%d NFS, %d iSER\)\s+%d\s*$' %
                (t[1], totals[0][1], totals[1][1], t[3]))
    stale = [l for l in summary if l not in guide]
    stale += ['table row /%s/' % r for r in rows
              if not re.search(r, guide, re.M)]
    for l in stale:
        print('ulp-loc: not in Documentation/ulp-guide.rst: %s' % l)
    if stale:
        sys.exit('ulp-loc: the guide\'s figures are stale: paste the lines '
                 'above into its "Line counts" section')
    print('ulp-loc: Documentation/ulp-guide.rst has these figures')
EOF
