#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make nvmeof's verdict: read what scripts/nvmeof-guest.sh left in
each guest's share (results.jsonl, fio's JSON per job, kmemleak.txt) and the
console, write OUTDIR/results.json and print a table.

  scripts/nvmeof-report.py OUTDIR NAME=QEMU_RC...

NAME is a guest's directory below OUTDIR (one, two/host, two/target).

A fio job passes when fio exited 0, printed no verify error, and read back
and checked every byte it wrote.  The run fails on any failed job, any
counter left unbalanced, a kmemleak report, a kernel report in the console
(scripts/guestlib.py), an error the guest logged, or a guest that did not
finish.  Last line: "nvmeof: N passed, M failed".
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guestlib  # noqa: E402


def fio_run(share, r):
    """The row of one fio job of results.jsonl."""
    row = {
        'device': r['device'], 'topology': r['topology'],
        'host': r['host'], 'target': r['target'], 'job': r['job'],
        'bytes_verified': 0, 'verify_errors': 0, 'iops': 0.0,
        'mb_per_s': 0.0, 'ok': False,
    }
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
        if kind == 'fio':
            row = fio_run(share, r)
            tally['runs'].append(row)
            if not row['ok']:
                problems.append('%s %s %s host %s target %s: %s' % (
                    row['device'], row['topology'], row['job'], row['host'],
                    row['target'], row['why']))
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
        elif kind == 'error':
            problems.append('%s: guest: %s' % (name, r['what']))
        elif kind == 'kmemleak':
            leaks = r['leaks']
        elif kind == 'done':
            done = True
    if not done:
        problems.append('%s: the guest did not finish' % name)
    if leaks is None:
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
    out = sys.argv[1]
    problems = []
    tally = {'runs': [], 'counters': [], 'faults': [], 'kmemleak': {}}
    for spec in sys.argv[2:]:
        name, rc = spec.split('=')
        guest(out, name, int(rc), problems, tally)
    runs = tally['runs']
    if not runs:
        problems.append('no fio job ran')
    passed = sum(1 for r in runs if r['ok']) + \
        sum(1 for c in tally['counters'] if c['balanced'] == 1) + \
        sum(1 for f in tally['faults'] if f['ok'] == 1)
    failed = sum(1 for r in runs if not r['ok']) + \
        sum(1 for c in tally['counters'] if c['balanced'] != 1) + \
        sum(1 for f in tally['faults'] if f['ok'] != 1)

    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'runs': runs, 'ab': [], 'faults': tally['faults'],
                   'counters': tally['counters'],
                   'kmemleak_leaks': tally['kmemleak']}, f, indent=1)

    print('%-4s %-4s %-6s %-6s %-10s %10s %6s %8s %8s' % (
        'dev', 'topo', 'host', 'target', 'job', 'MiB verif', 'errors',
        'IOPS', 'MB/s'))
    for r in runs:
        print('%-4s %-4s %-6s %-6s %-10s %10.1f %6d %8.1f %8.2f%s' % (
            r['device'], r['topology'], r['host'], r['target'], r['job'],
            r['bytes_verified'] / 2**20, r['verify_errors'], r['iops'],
            r['mb_per_s'], '' if r['ok'] else '  FAILED'))
    for f in tally['faults']:
        print('fault %-15s %-4s %-4s %s%s' % (
            f['fault'], f['device'], f['topology'],
            'ok' if f['ok'] == 1 else 'FAILED',
            (': ' + f['why']) if f.get('why') else ''))
    total = sum(r['bytes_verified'] for r in runs)
    print('nvmeof: %.1f MiB written and verified in %d fio jobs; results in %s'
          % (total / 2**20, len(runs), os.path.join(out, 'results.json')))
    for p in problems:
        print('nvmeof: PROBLEM: ' + p)
    if problems and failed == 0:
        failed = 1
    print('nvmeof: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
