#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The verdict of make nvmeof and make nfsrdma: read what
scripts/nvmeof-guest.sh or scripts/nfsrdma-guest.sh left in each guest's
share (results.jsonl, fio's JSON per job, kmemleak.txt) and the console,
write OUTDIR/results.json and print a table.

  scripts/nvmeof-report.py [--ulp nvmeof|nfsrdma] OUTDIR NAME=QEMU_RC...

NAME is a guest's directory below OUTDIR (one, two/host, two/target; for
nfsrdma two/client, two/server).  The ends of a run are host and target
for nvmeof, client and server (and the NFS version) for nfsrdma; an
nfsrdma run also has the tree of files, which passes when every file
read back after a remount equals its source.

A fio job passes when fio exited 0, printed no verify error, and read back
and checked every byte it wrote.  A security row (the attacker on the PD
of the host, or of the NFS client) passes when the guest judged it ok;
the table shows its samples and rights checks.  The run fails on any
failed job, a failed fault or security row, any counter left unbalanced,
a kmemleak report, a kernel report in the console (scripts/guestlib.py),
an error the guest logged, or a guest that did not finish.  Last line:
"nvmeof: N passed, M failed" (or nfsrdma).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guestlib  # noqa: E402


ULP = 'nvmeof'
ENDS = ('host', 'target')
# The A/B's converted variants, each against stock on both ends (A): the
# NVMe ends one at a time; rpcrdma is one module, so NFS converts both.
CONVERTED = ('host', 'target')


def run_row(r):
    """The fields of a run row: where it ran, its ends, its job."""
    row = {'device': r['device'], 'topology': r['topology']}
    for k in ENDS + (('version',) if ULP == 'nfsrdma' else ()):
        row[k] = r[k]
    row['job'] = r['job']
    return row


def tree_run(r):
    """The row of the tree of files (nfsrdma): every file compared."""
    row = run_row(r)
    row.update({'bytes_verified': 0, 'verify_errors': r['verify_errors'],
                'iops': 0.0, 'mb_per_s': 0.0, 'files': r['files']})
    row['ok'] = r['rc'] == 0 and r['verify_errors'] == 0 and r['files'] > 0
    if row['ok']:
        row['bytes_verified'] = r['bytes']
    else:
        row['why'] = 'copy or remount rc %d, %d file(s) differ' % (
            r['rc'], r['verify_errors'])
    return row


def fio_run(share, r):
    """The row of one fio job of results.jsonl."""
    row = run_row(r)
    row.update({'bytes_verified': 0, 'verify_errors': 0, 'iops': 0.0,
                'mb_per_s': 0.0, 'ok': False})
    try:
        with open(os.path.join(share, r['fio_json'])) as f:
            text = f.read()
        # fio prints notes before its JSON when something went wrong.
        job = json.loads(text[text.index('{'):])['jobs'][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        row['why'] = 'no fio JSON (%s)' % e
        row['verify_errors'] = max(1, r.get('verify_lines', 0))
        return row
    w, rd = job['write'], job['read']
    row['iops'] = round(w['iops'], 1)
    row['mb_per_s'] = round(w['bw_bytes'] / 1e6, 2)
    row['bytes_written'] = w['io_bytes']
    errors = r.get('verify_lines', 0) + (1 if job.get('error') else 0)
    row['verify_errors'] = errors
    # Only a clean job's reads were all checked: fio stops at the first
    # mismatch (verify_fatal).
    if r['rc'] == 0 and errors == 0:
        row['bytes_verified'] = rd['io_bytes']
    row['ok'] = (r['rc'] == 0 and errors == 0 and w['io_bytes'] > 0 and
                 rd['io_bytes'] == w['io_bytes'])
    if not row['ok']:
        row['why'] = 'fio rc %d, %d verify error(s), wrote %d, read back %d' % (
            r['rc'], errors, w['io_bytes'], rd['io_bytes'])
    return row


def ab_run(share, r):
    """One time-based fio run of make nvmeof-ab or nfsrdma-ab."""
    row = {k: r[k] for k in ('device', 'round', 'variant') + ENDS +
           ('job', 'rw', 'rc')}
    row['iops'] = row['mb_per_s'] = 0.0
    try:
        with open(os.path.join(share, r['fio_json'])) as f:
            text = f.read()
        job = json.loads(text[text.index('{'):])['jobs'][0]
        side = job['read' if 'read' in r['rw'] else 'write']
        row['iops'] = round(side['iops'], 1)
        row['mb_per_s'] = round(side['bw_bytes'] / 1e6, 3)
    except (OSError, ValueError, KeyError, IndexError) as e:
        row['why'] = 'no fio JSON (%s)' % e
    return row


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else 0.0


def ab_table(runs, problems):
    """Per device and job: each variant's median IOPS over the rounds, the
    converted ends' ratios to stock (A), and the A/A noise: the ratio of
    the medians of A' and A, and the spread of the per-round ratios A'/A
    (their lowest and highest).  A converted end passes a row when its
    ratio is at or above 1.00, or at or above the lowest A/A ratio."""
    rows = []
    keys = sorted({(r['device'], r['job']) for r in runs},
                  key=lambda k: (k[0], [r['job'] for r in runs].index(k[1])))
    for dev, job in keys:
        sel = [r for r in runs if r['device'] == dev and r['job'] == job]
        by = {}
        for r in sel:
            by.setdefault(r['variant'], {})[r['round']] = r
        med = {v: median([x['iops'] for x in d.values()])
               for v, d in by.items()}
        mbs = {v: median([x['mb_per_s'] for x in d.values()])
               for v, d in by.items()}
        a = med.get('aa', 0.0)
        aa_rounds = [by['aa2'][k]['iops'] / by['aa'][k]['iops']
                     for k in by.get('aa', {}) if k in by.get('aa2', {}) and
                     by['aa'][k]['iops'] > 0]
        row = {'device': dev, 'job': job, 'rounds': len(by.get('aa', {})),
               'iops': med, 'mb_per_s': mbs}
        for v in ('aa2',) + CONVERTED:
            row[v + '_ratio'] = round(med.get(v, 0.0) / a, 4) if a else 0.0
        row['aa_low'] = round(min(aa_rounds), 4) if aa_rounds else 0.0
        row['aa_high'] = round(max(aa_rounds), 4) if aa_rounds else 0.0
        low = min(1.0, row['aa_low'], row['aa2_ratio'])
        for v in CONVERTED:
            row[v + '_ok'] = bool(a) and row[v + '_ratio'] >= low
            if not row[v + '_ok']:
                problems.append('A/B %s %s: converted %s at %.3f of stock, '
                                'below the A/A spread (%.3f-%.3f)' % (
                                    dev, job, v, row[v + '_ratio'],
                                    row['aa_low'], row['aa_high']))
        rows.append(row)
    return rows


def ab_plot(rows, path):
    """Bars of the converted ends' ratios, with the A/A spread."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    devs = sorted({r['device'] for r in rows})
    fig, axes = plt.subplots(len(devs), 1, figsize=(10, 3.5 * len(devs)),
                             squeeze=False)
    for ax, dev in zip(axes[:, 0], devs):
        sel = [r for r in rows if r['device'] == dev]
        x = range(len(sel))
        w = 0.8 / len(CONVERTED)
        for j, v in enumerate(CONVERTED):
            ax.bar([i - 0.4 + w * (j + 0.5) for i in x],
                   [r[v + '_ratio'] for r in sel], w,
                   label='converted %s / stock' % v)
        for i, r in zip(x, sel):
            ax.plot([i - 0.45, i + 0.45], [r['aa_low']] * 2, 'k:', lw=1)
            ax.plot([i - 0.45, i + 0.45], [r['aa_high']] * 2, 'k:', lw=1)
        ax.axhline(1.0, color='grey', lw=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([r['job'] for r in sel], rotation=20, fontsize=8)
        ax.set_ylabel('IOPS ratio')
        ax.set_title('%s: fio on %s, icount mode (dotted: A/A spread)'
                     % (dev, 'NFS/RDMA' if ULP == 'nfsrdma' else 'NVMe/RDMA'))
        lo = min([r[v + '_ratio'] for r in sel for v in CONVERTED] +
                 [r['aa_low'] for r in sel] + [1.0])
        ax.set_ylim(max(0.0, lo - 0.1), None)
        ax.legend(fontsize=8, loc='lower right')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def security_rights(s):
    """What a security row's rights checks showed: nvmeof's host WRITEs
    (a remote WRITE through their keys), nfsrdma's client WRITEs (the
    same) and READs (a remote READ through their keys, which siw serves
    through any live key: the row says what the guest expected)."""
    if ULP != 'nfsrdma':
        return 'remote WRITE with a host WRITE\'s key %d/%d served' % (
            s['rights_served'], s['rights_tries'])
    return ('remote WRITE with a client WRITE\'s key %d/%d served, remote '
            'READ with a client READ\'s key %d/%d served (expected %s)' % (
                s['rights_write_served'], s['rights_write_tries'],
                s['rights_read_served'], s['rights_read_tries'],
                s.get('rights_read_expect', '?')))


def guest(out, name, qemu_rc, problems, tally):
    """Judge one guest (OUTDIR/NAME: its console, its share) into @tally."""
    gdir = os.path.join(out, name)
    share = os.path.join(gdir, 'share')
    console, _, probs = guestlib.guest_run(gdir, qemu_rc, 'none')
    # These guests have no results port: their own lines say they ended.
    problems += ['%s: %s' % (name, p) for p in probs if 'MRCORE-DONE' not in p]
    lines = []
    try:
        with open(os.path.join(share, 'results.jsonl')) as f:
            lines = [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError) as e:
        problems.append('%s: cannot read results.jsonl: %s' % (name, e))
    done = False
    leaks = None
    for r in lines:
        kind = r.get('kind')
        if kind in ('fio', 'tree'):
            row = fio_run(share, r) if kind == 'fio' else tree_run(r)
            tally['runs'].append(row)
            if not row['ok']:
                problems.append('%s %s %s %s %s %s %s%s: %s' % (
                    row['device'], row['topology'], row['job'], ENDS[0],
                    row[ENDS[0]], ENDS[1], row[ENDS[1]],
                    ' NFSv' + row['version'] if 'version' in row else '',
                    row['why']))
        elif kind == 'counters':
            r['guest'] = name
            tally['counters'].append(r)
            if r['balanced'] != 1:
                problems.append('%s: rdma_mrcore counters unbalanced: %s' %
                                (name, r['label']))
        elif kind == 'fault':
            r['guest'] = name
            tally['faults'].append(r)
            if r['ok'] != 1:
                problems.append('%s: fault %s on %s failed: %s' % (
                    name, r['fault'], r['device'], r.get('why', '')))
        elif kind == 'security':
            r['guest'] = name
            tally['security'].append(r)
            if r['ok'] != 1:
                problems.append('%s: security on %s, %s %s failed: %s' % (
                    name, r['device'], r[ENDS[0]], ENDS[0],
                    r.get('why', '')))
        elif kind == 'ab':
            tally['ab_runs'].append(ab_run(share, r))
        elif kind == 'error':
            problems.append('%s: guest: %s' % (name, r['what']))
        elif kind == 'kmemleak':
            leaks = r['leaks']
        elif kind == 'done':
            done = True
    if not done:
        problems.append('%s: the guest did not finish' % name)
    if leaks is None and not any(r.get('kind') == 'ab' for r in lines):
        # (make nvmeof-ab's bench kernel has no kmemleak)
        problems.append('%s: no kmemleak scan' % name)
    elif leaks:
        problems.append('%s: kmemleak: %d leak(s)' % (name, leaks))
    tally['kmemleak'][name] = leaks
    n = len(problems)
    guestlib.report_reports(console, problems)
    problems[n:] = ['%s: %s' % (name, p) for p in problems[n:]]
    for line in console:
        if 'mrcore-guest: ERROR' in line:
            problems.append('%s: %s' % (name, line.strip()))


def main():
    global ULP, ENDS, CONVERTED
    args = sys.argv[1:]
    if args[:1] == ['--ulp']:
        ULP, args = args[1], args[2:]
        ENDS = {'nvmeof': ('host', 'target'),
                'nfsrdma': ('client', 'server')}[ULP]
        CONVERTED = {'nvmeof': ('host', 'target'),
                     'nfsrdma': ('mrcore',)}[ULP]
    out = args[0]
    problems = []
    tally = {'runs': [], 'counters': [], 'faults': [], 'security': [],
             'ab_runs': [], 'kmemleak': {}}
    for spec in args[1:]:
        name, rc = spec.split('=')
        guest(out, name, int(rc), problems, tally)
    runs = tally['runs']
    ab = ab_table(tally['ab_runs'], problems) if tally['ab_runs'] else []
    for r in tally['ab_runs']:
        if r['rc'] != 0 or r.get('why') or r['iops'] <= 0:
            problems.append('A/B %s round %d %s %s: fio rc %d %s' % (
                r['device'], r['round'], r['variant'], r['job'], r['rc'],
                r.get('why', '')))
    if not runs and not ab and not tally['security']:
        problems.append('no job ran')
    passed = sum(1 for r in runs if r['ok']) + \
        sum(1 for c in tally['counters'] if c['balanced'] == 1) + \
        sum(1 for f in tally['faults'] if f['ok'] == 1) + \
        sum(1 for s in tally['security'] if s['ok'] == 1)
    failed = sum(1 for r in runs if not r['ok']) + \
        sum(1 for c in tally['counters'] if c['balanced'] != 1) + \
        sum(1 for f in tally['faults'] if f['ok'] != 1) + \
        sum(1 for s in tally['security'] if s['ok'] != 1)

    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'runs': runs, 'ab': ab, 'ab_runs': tally['ab_runs'], 'faults': tally['faults'],
                   'security': tally['security'],
                   'counters': tally['counters'],
                   'kmemleak_leaks': tally['kmemleak']}, f, indent=1)

    ver = ULP == 'nfsrdma'
    print('%-4s %-4s %-6s %-6s %s%-10s %10s %6s %8s %8s' % (
        'dev', 'topo', ENDS[0], ENDS[1], 'NFS  ' if ver else '', 'job',
        'MiB verif', 'errors', 'IOPS', 'MB/s'))
    for r in runs:
        print('%-4s %-4s %-6s %-6s %s%-10s %10.1f %6d %8.1f %8.2f%s' % (
            r['device'], r['topology'], r[ENDS[0]], r[ENDS[1]],
            '%-5s' % r['version'] if ver else '', r['job'],
            r['bytes_verified'] / 2**20, r['verify_errors'], r['iops'],
            r['mb_per_s'], '' if r['ok'] else '  FAILED'))
    for f in tally['faults']:
        print('fault %-15s %-4s %-4s %s%s' % (
            f['fault'], f['device'], f['topology'],
            'ok' if f['ok'] == 1 else 'FAILED',
            (': ' + f['why']) if f.get('why') else ''))
    for s in tally['security']:
        print('security %-4s %-6s %s: %d samples, live %d served, dead %d '
              'refused, %s; %s%s' % (
                  s['device'], s[ENDS[0]], ENDS[0], s['samples'],
                  s['live_served'], s['dead_refused'], security_rights(s),
                  'ok' if s['ok'] == 1 else 'FAILED',
                  (': ' + s['why']) if s.get('why') else ''))
    if ab:
        print('A/B: median IOPS of %d rounds; ratio of each converted variant '
              '(%s) to stock (A); A/A: A\'/A and its per-round spread' % (
                  ab[0]['rounds'], ', '.join(CONVERTED)))
        print('%-4s %-16s %9s %9s %9s %7s %s %13s' % (
            'dev', 'job', 'IOPS A', 'MB/s A', 'IOPS A\'', 'A\'/A',
            ' '.join('%7s' % v for v in CONVERTED), 'A/A spread'))
        for r in ab:
            ok = all(r[v + '_ok'] for v in CONVERTED)
            print('%-4s %-16s %9.1f %9.2f %9.1f %7.3f %s %6.3f-%6.3f%s' % (
                r['device'], r['job'], r['iops'].get('aa', 0),
                r['mb_per_s'].get('aa', 0), r['iops'].get('aa2', 0),
                r['aa2_ratio'],
                ' '.join('%7.3f' % r[v + '_ratio'] for v in CONVERTED),
                r['aa_low'], r['aa_high'], '' if ok else '  BELOW'))
        if ab_plot(ab, os.path.join(out, 'ab.png')):
            print('%s: plot in %s' % (ULP, os.path.join(out, 'ab.png')))
        passed += sum(r[v + '_ok'] for r in ab for v in CONVERTED)
        failed += sum(not r[v + '_ok'] for r in ab for v in CONVERTED)
    total = sum(r['bytes_verified'] for r in runs)
    print('%s: %.1f MiB written and verified in %d jobs; results in %s'
          % (ULP, total / 2**20, len(runs), os.path.join(out, 'results.json')))
    for p in problems:
        print('%s: PROBLEM: %s' % (ULP, p))
    if problems and failed == 0:
        failed = 1
    print('%s: %d passed, %d failed' % (ULP, passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
