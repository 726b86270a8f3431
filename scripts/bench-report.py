#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn a `make bench` guest run into results, a table and a plot.

bench-report.py OUTDIR TOP QEMU_RC

Reads OUTDIR/console.log (the "mrcore_bench: row: {...}" lines of
kunit/bench/report.c) and OUTDIR/results.log (perftest's output framed by
MRCORE-PERFTEST-BEGIN/END), writes OUTDIR/results.json:

    {"rows": [{"device", "transport", "dir", "shape", "qd", "qps", "impl",
               "backend", "wrs_per_io", "mrs_per_io", "posts_per_io",
               "waits_per_io", "ops_per_s", "mb_per_s", "cpu_ns_per_io",
               "cpu_wrs_per_io", "cpu_mrs_per_io", ...}],
     "limit": [{"device", "dir", "size", "mb_per_s"}],
     "mr_cycle": [{"device", "pages", "alloc_ns", "dereg_ns", "key_uses",
                   "per_io_ns"}]}

(MB = 10^6 bytes everywhere; perftest's MiB/s are converted), prints one
table line per row with the ratio mrcore / rdma_rw, checks the targets of
the benchmark, and draws OUTDIR/throughput.png.

An A/A run (MRCORE_BENCH_AA=1) has rdma_rw on both sides, the first named
rdma_rw.aa: its table and targets are those of a normal run with rdma_rw.aa
in mrcore's place, and every ratio is the bench's own noise.

Exit status 1 when the run itself failed: the guest timed out or did not
finish, a row reported an error or a failed data check, a perftest run gave
no figure, or the kernel reported a problem.  A missed target is reported,
not a failure: the figures are what they are.
"""

import json
import math
import os
import re
import sys

from guestlib import guest_run, report_reports

SHAPES = ['1_page', '8_pages', '32_pages', '256_pages', '64k_contig',
          '1m_contig']
MIB = 1048576 / 1e6
# The first side of an A/A run: rdma_rw again (kunit/bench/main.c, aa=1).
AA = 'rdma_rw.aa'


def parse_lines(console, tag):
    """The JSON objects of the console's "mrcore_bench: TAG: {...}" lines:
    the rows (row, kunit/bench/report.c) and the price of a device MR
    replacement on each device (mr_cycle, kunit/bench/main.c)."""
    pat = re.compile(r'mrcore_bench: %s: (\{.*\})\s*$' % tag)
    return [json.loads(m.group(1)) for m in map(pat.search, console) if m]


def parse_perftest(results):
    """[(device, dir, size, rc, [lines])] from the MRCORE-PERFTEST frames."""
    runs, cur = [], None
    for line in results:
        m = re.match(r'MRCORE-PERFTEST-BEGIN (\S+) (\S+) (\d+) (\d+)$', line)
        if m:
            cur = (m.group(1), m.group(2).upper(), int(m.group(3)),
                   int(m.group(4)), [])
            continue
        if re.match(r'MRCORE-PERFTEST-END ', line) and cur:
            runs.append(cur)
            cur = None
            continue
        if cur:
            cur[4].append(line)
    return runs


def perftest_limit(runs, problems):
    limit = []
    for dev, op, size, rc, lines in runs:
        avg = None
        for line in lines:
            # " #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate"
            m = re.match(r'\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)',
                         line)
            if m and int(m.group(1)) == size:
                avg = float(m.group(4))
        if not avg:
            problems.append('perftest %s %s %d: no figure (exit %d)' %
                            (dev, op, size, rc))
            for line in lines[-8:]:
                print('  perftest: ' + line)
            continue
        # perftest's "MB/sec" is MiB/s (2^20 bytes).
        limit.append({'device': dev, 'dir': op, 'size': size,
                      'mb_per_s': round(avg * MIB, 2),
                      'perftest_mib_per_s': avg})
    return limit


def key(r):
    return (r['device'], r['dir'], SHAPES.index(r['shape'])
            if r['shape'] in SHAPES else 99, r['qps'], r['qd'])


def ratio(a, b):
    return a / b if b else float('inf') if a else 0.0


def table(rows):
    pairs = {}
    for r in rows:
        k = (r['device'], r['dir'], r['shape'], r['qd'], r['qps'])
        pairs.setdefault(k, {})[r['impl']] = r
    hdr = ('%-4s %-5s %-10s %3s %3s | %-19s | %-9s | %-9s | %-9s | %10s %10s '
           '%6s | %9s %9s | %7s %7s' %
           ('dev', 'dir', 'shape', 'qd', 'qps', 'backend m/rw',
            'WRs/IO', 'MRs/IO', 'posts/IO', 'ops/s m', 'ops/s rw', 'ratio',
            'MB/s m', 'MB/s rw', 'ns m', 'ns rw'))
    print(hdr)
    print('-' * len(hdr))
    out = []
    for k in sorted(pairs, key=lambda k: key({'device': k[0], 'dir': k[1],
                                              'shape': k[2], 'qd': k[3],
                                              'qps': k[4]})):
        m = pairs[k].get('mrcore') or pairs[k].get(AA)
        w = pairs[k].get('rdma_rw')
        if not m or not w:
            continue
        rt = ratio(m['ops_per_s'], w['ops_per_s'])
        out.append((k, m, w, rt))
        print('%-4s %-5s %-10s %3d %3d | %-19s | %4.2f/%-4.2f | %4.2f/%-4.2f '
              '| %4.2f/%-4.2f | %10.1f %10.1f %6.2f | %9.2f %9.2f | %7d %7d%s' %
              (k[0], k[1], k[2], k[3], k[4],
               '%s/%s' % (m['backend'], w['backend']),
               m['wrs_per_io'], w['wrs_per_io'], m['mrs_per_io'],
               w['mrs_per_io'], m['posts_per_io'], w['posts_per_io'],
               m['ops_per_s'], w['ops_per_s'], rt, m['mb_per_s'],
               w['mb_per_s'], m['cpu_ns_per_io'], w['cpu_ns_per_io'],
               '' if m['error'] == 0 and w['error'] == 0 else '  ERROR'))
    return out


def same_chain(m, w):
    """Both post the same WRs and MRs per I/O."""
    return (m['wrs_per_io'] == w['wrs_per_io'] and
            m['mrs_per_io'] == w['mrs_per_io'])


def same_cpu_chain(m, w):
    """The CPU loops of both built the same WRs and registrations."""
    return (m['cpu_wrs_per_io'] == w['cpu_wrs_per_io'] and
            m['cpu_mrs_per_io'] == w['cpu_mrs_per_io'])


def cpu_share(m, w):
    """
    The guest time mrcore's CPU cost per I/O saves (or spends) against
    rdma_rw's, in percent, at rdma_rw's rate: with one vCPU in icount mode
    every guest ns is an instruction run, so this bounds what the CPU cost
    alone can move the ops/s ratio by.
    """
    return (w['cpu_ns_per_io'] - m['cpu_ns_per_io']) * w['ops_per_s'] / 1e7


def geomean(xs):
    """The geometric mean of positive @xs; NaN for none."""
    if not xs:
        return float('nan')
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def geomeans(pairs):
    """The geometric mean of the ops/s ratios per device; misses counted."""
    missed = 0
    for dev in sorted({k[0] for k, _, _, _ in pairs}):
        rts = [rt for k, _, _, rt in pairs if k[0] == dev and rt > 0]
        same = [rt for k, m, w, rt in pairs
                if k[0] == dev and rt > 0 and same_chain(m, w)]
        if not rts:
            continue
        g, gs = geomean(rts), geomean(same)
        missed += g < 1.0
        print('bench: target: geometric mean of ops/s ratios on %s >= 1.0: '
              '%s: %.3f over %d rows (%.3f over its %d same-chain rows)' %
              (dev, 'met' if g >= 1.0 else 'MISSED', g, len(rts), gs,
               len(same)))
    return missed


def cpu_target(pairs, mr_cycle):
    """CPU ns per I/O at most rdma_rw's on every row whose CPU loops built
    the same chain (same_cpu_chain(): the loop's own chains, not the
    throughput runs' averages).

    A row above names the share of mrcore's figure that replacing device
    MRs takes (rdma_rw wraps the key byte instead): the device's price per
    MR and I/O times the MRs an I/O takes."""
    price = {c['device']: c['per_io_ns'] for c in mr_cycle}
    same = [(k, m, w) for k, m, w, _ in pairs if same_cpu_chain(m, w)]
    above = [(k, m, w) for k, m, w in same
             if m['cpu_ns_per_io'] > w['cpu_ns_per_io']]
    print('bench: target: mrcore CPU ns/IO <= rdma_rw CPU ns/IO where both '
          'post the same chain: %d of %d rows' % (len(same) - len(above),
                                                  len(same)))
    for k, m, w in above:
        repl = ''
        if m['cpu_mrs_per_io'] and m['device'] in price:
            repl = ("; mrcore's holds %.0f ns of device MR replacement" %
                    (price[m['device']] * m['cpu_mrs_per_io']))
        print('bench:   MISSED %s %s %s qd%d qps%d: %d > %d ns%s' %
              (k + (m['cpu_ns_per_io'], w['cpu_ns_per_io'], repl)))
    return len(above)


def targets(pairs, rows, limit, mr_cycle):
    """Print every row that misses a target; return the count missed."""
    missed = 0
    slower = [(k, m, w, rt) for k, m, w, rt in pairs if rt < 1.0]
    more_wrs = [(k, m['wrs_per_io'], w['wrs_per_io'])
                for k, m, w, rt in pairs if m['wrs_per_io'] > w['wrs_per_io']]
    print()
    print('bench: target: mrcore ops/s >= rdma_rw ops/s (median of runs): '
          '%d of %d rows' % (len(pairs) - len(slower), len(pairs)))
    for k, m, w, rt in slower:
        # Overlapping run ranges: the runs do not tell the two apart.
        mr, wr = m.get('runs_ops_per_s', []), w.get('runs_ops_per_s', [])
        overlap = bool(mr and wr and max(mr) >= min(wr))
        same = same_chain(m, w)
        print('bench:   MISSED %s %s %s qd%d qps%d: ratio %.3f; runs %s vs '
              '%s (%s); chain %s %.2f WRs vs %s %.2f WRs%s; CPU %d vs %d ns'
              '%s' %
              (k + (rt, mr, wr, 'ranges overlap' if overlap else
                    'ranges apart', m['backend'], m['wrs_per_io'],
                    w['backend'], w['wrs_per_io'],
                    ' (same WR count)' if same else '',
                    m['cpu_ns_per_io'], w['cpu_ns_per_io'],
                    ' (%+.3f%% of the time)' % cpu_share(m, w)
                    if same else '')))
    print('bench: target: mrcore WRs/IO <= rdma_rw WRs/IO: %d of %d rows' %
          (len(pairs) - len(more_wrs), len(pairs)))
    for k, a, b in more_wrs:
        print('bench:   MISSED %s %s %s qd%d qps%d: %.2f > %.2f' %
              (k + (a, b)))
    missed += len(slower) + len(more_wrs)
    missed += geomeans(pairs) + cpu_target(pairs, mr_cycle)
    for dev in sorted({r['device'] for r in rows}):
        lim = [x for x in limit if x['device'] == dev and x['dir'] == 'READ'
               and x['size'] == 1048576]
        best = [r for r in rows if r['device'] == dev and r['dir'] == 'READ'
                and r['shape'] == '1m_contig' and r['impl'] in ('mrcore', AA)]
        if not lim or not best or lim[0]['mb_per_s'] <= 0:
            print('bench: target: 1 MiB READ on %s vs ib_read_bw: no figure'
                  % dev)
            missed += 1
            continue
        b = max(best, key=lambda r: r['mb_per_s'])
        pct = 100.0 * b['mb_per_s'] / lim[0]['mb_per_s']
        ok = pct >= 90.0
        missed += not ok
        print('bench: target: 1 MiB READ on %s reaches >= 90%% of '
              'ib_read_bw: %s: best %.2f MB/s (qd %d, %d QP) = %.1f%% of '
              '%.2f MB/s' % (dev, 'met' if ok else 'MISSED', b['mb_per_s'],
                             b['qd'], b['qps'], pct, lim[0]['mb_per_s']))
    return missed


def plot(rows, limit, path, first):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('bench: python3-matplotlib missing (scripts/deps.sh): no plot')
        return False
    combos = sorted({(r['device'], r['dir']) for r in rows})
    if not combos:
        return False
    fig, axes = plt.subplots(len(combos), 1, figsize=(10, 3.6 * len(combos)),
                             squeeze=False)
    for ax, (dev, op) in zip(axes[:, 0], combos):
        xs = list(range(len(SHAPES)))
        for i, impl in enumerate((first, 'rdma_rw')):
            ys = []
            for s in SHAPES:
                v = [r['mb_per_s'] for r in rows if r['device'] == dev and
                     r['dir'] == op and r['shape'] == s and
                     r['impl'] == impl]
                ys.append(max(v) if v else 0.0)
            ax.bar([x + (i - 0.5) * 0.38 for x in xs], ys, width=0.38,
                   label='%s (best qd/QPs)' % impl)
        for lim in limit:
            if lim['device'] != dev or lim['dir'] != op:
                continue
            # 1 MiB is also the size of the 256-page shape.
            shapes = {65536: ['64k_contig'],
                      1048576: ['256_pages', '1m_contig']}.get(lim['size'], [])
            for shape in shapes:
                x = SHAPES.index(shape)
                ax.hlines(lim['mb_per_s'], x - 0.45, x + 0.45, colors='k',
                          linestyles='dashed')
                ax.annotate('ib_%s_bw %.1f' % (op.lower(), lim['mb_per_s']),
                            (x, lim['mb_per_s']), textcoords='offset points',
                            xytext=(0, 4), ha='center', fontsize=8)
        ax.set_xticks(xs)
        ax.set_xticklabels(SHAPES)
        ax.set_ylabel('MB/s')
        ax.set_title('%s %s' % (dev, op))
        ax.legend(fontsize=8, loc='upper left')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    out, top, qemu_rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
    console, results, problems = guest_run(out, qemu_rc, 'bench')

    rows = sorted(parse_lines(console, 'row'), key=key)
    # A row's spread: its fastest run over its slowest.
    for r in rows:
        runs = [x for x in r.get('runs_ops_per_s', []) if x]
        r['spread'] = round(max(runs) / min(runs), 4) if runs else None
    limit = perftest_limit(parse_perftest(results), problems)
    mr_cycle = parse_lines(console, 'mr_cycle')
    for r in rows:
        if r['error'] or not r['verified']:
            problems.append('%s %s %s qd%d qps%d %s: error %d, data %s' %
                            (r['device'], r['dir'], r['shape'], r['qd'],
                             r['qps'], r['impl'], r['error'],
                             'verified' if r['verified'] else
                             'NOT verified'))
    for line in console:
        m = re.search(r'mrcore_bench: (no \S+ device|.*: -?\d+)$', line)
        if m and 'row:' not in line:
            problems.append('guest: ' + m.group(0))
    if not rows:
        problems.append('no benchmark rows')
    report_reports(console, problems)
    aa = any(r['impl'] == AA for r in rows)

    path = os.path.join(out, 'results.json')
    with open(path, 'w') as f:
        json.dump({'mode': os.environ.get('MRCORE_BENCH_MODE', 'wallclock'),
                   'vcpus': int(os.environ.get('MRCORE_BENCH_VCPUS', '0')),
                   'aa': aa, 'rows': rows, 'limit': limit,
                   'mr_cycle': mr_cycle}, f, indent=1)
        f.write('\n')

    print('bench: device limit (perftest -R, MB/s = 10^6 B/s):')
    for lim in limit:
        print('bench:   %s %-5s %8d B: %9.2f MB/s' %
              (lim['device'], lim['dir'], lim['size'], lim['mb_per_s']))
    print('bench: device MR replacement (ib_alloc_mr + ib_dereg_mr, once '
          'per MR in its key uses):')
    for c in mr_cycle:
        print('bench:   %s %d pages: %d + %d ns per %d keys = %d ns per I/O '
              'and MR' % (c['device'], c['pages'], c['alloc_ns'],
                          c['dereg_ns'], c['key_uses'], c['per_io_ns']))
    print()
    if aa:
        print('bench: A/A run: rdma_rw on both sides ("m" is rdma_rw.aa); '
              'every ratio below is the bench\'s own noise')
    pairs = table(rows)
    missed = targets(pairs, rows, limit, mr_cycle)
    png = os.path.join(out, 'throughput.png')
    if plot(rows, limit, png, AA if aa else 'mrcore'):
        print('bench: plot %s' % png)
    print('bench: results %s, console %s' %
          (path, os.path.join(out, 'console.log')))
    for p in problems:
        print('bench: FAIL: %s' % p)
    print('bench: %d rows, %d targets missed, %d problems' %
          (len(pairs), missed, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
