#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Judge a test guest run (scripts/kunit.sh, scripts/demo.sh).

guest-report.py kunit OUTDIR KSRC TOP QEMU_RC
    Reassembles one KTAP document from the suites the guest dumped from
    debugfs (OUTDIR/results.log), parses it with KSRC's kunit.py into
    OUTDIR/results.json, and fails on any failed or crashed test, a missing
    suite, a module that did not load, a timeout, or a kernel report in the
    console.  Last line: "kunit: N passed, M failed, S skipped".

guest-report.py demo OUTDIR KSRC TOP QEMU_RC
    Prints the demo's table from the console and fails on a row that is
    not verified, a missing device kind, a timeout or a kernel report.
"""

import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

# Kernel reports that fail a run, wherever they appear in the console.
BAD = [
    (re.compile(r'\bBUG:'), 'BUG'),
    (re.compile(r'\bKASAN:'), 'KASAN report'),
    (re.compile(r'\bWARNING:'), 'WARNING (WARN_ON, lockdep, DMA-API, ...)'),
    (re.compile(r'possible circular locking|possible recursive locking|'
                r'inconsistent lock state|lock held when returning|'
                r'suspicious RCU usage'), 'lockdep'),
    (re.compile(r'DMA-API: (?!preallocated \d+ debug entries|'
                r'debugging enabled by kernel config)'), 'DMA-API debug'),
    (re.compile(r'kmemleak: \d+ new suspected memory leak|'
                r'unreferenced object 0x'), 'kmemleak leak'),
    (re.compile(r'Kernel panic|\bOops\b|general protection fault|'
                r'Unable to handle kernel'), 'oops/panic'),
    (re.compile(r'\bUBSAN:'), 'UBSAN'),
    (re.compile(r'blocked for more than \d+ seconds|'
                r'rcu: INFO: .* detected stalls|soft lockup|hard LOCKUP'),
     'hang/stall'),
]


def read_lines(path):
    try:
        with open(path, 'rb') as f:
            data = f.read().decode('utf-8', 'replace')
    except FileNotFoundError:
        return []
    return [l.rstrip('\r') for l in data.replace('\r\n', '\n').split('\n')]


def kernel_reports(console):
    found = []
    for i, line in enumerate(console):
        for rx, what in BAD:
            if rx.search(line):
                found.append((i + 1, what, line.strip()))
                break
    return found


def expected_suites(top):
    names = set()
    for path in glob.glob(os.path.join(top, 'kunit', '*.c')):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
                             text, re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            if n:
                names.add(n.group(1))
    return names


def guest_markers(results):
    insmod = {}
    done = None
    for line in results:
        m = re.match(r'MRCORE-INSMOD (\S+) (\d+)$', line)
        if m:
            insmod[m.group(1)] = int(m.group(2))
        m = re.match(r'MRCORE-DONE (\S+)', line)
        if m:
            done = m.group(1)
    return insmod, done


def suites_ktap(results):
    """{suite: [lines]} from the MRCORE-SUITE-BEGIN/END frames."""
    suites, cur, name = {}, None, None
    for line in results:
        m = re.match(r'MRCORE-SUITE-BEGIN (\S+)$', line)
        if m:
            name, cur = m.group(1), []
            continue
        m = re.match(r'MRCORE-SUITE-END (\S+)$', line)
        if m and cur is not None:
            suites[name] = cur
            cur = None
            continue
        if cur is not None:
            cur.append(line)
    return suites


def assemble(suites):
    """One KTAP document: the debugfs files are each a 1-suite document."""
    out = ['KTAP version 1', '1..%d' % len(suites)]
    for i, (name, lines) in enumerate(sorted(suites.items()), 1):
        body = [l for l in lines if l.strip()]
        if body[:2] == ['KTAP version 1', '1..1']:
            body = body[2:]
        last = body[-1] if body else ''
        m = re.match(r'(not ok|ok) 1 (.*)$', last)
        if m:
            body[-1] = '%s %d %s' % (m.group(1), i, m.group(2))
        else:
            # No result line: the suite did not finish.
            body.append('not ok %d %s' % (i, name))
        out.extend(body)
    return out


def count_cases(group, acc):
    for case in group.get('test_cases', []):
        acc[case['status']] = acc.get(case['status'], 0) + 1
    for sub in group.get('sub_groups', []):
        count_cases(sub, acc)
    return acc


def report_reports(console, problems):
    reports = kernel_reports(console)
    if reports:
        problems.append('%d kernel report line(s) in the console' %
                        len(reports))
        for lineno, what, text in reports[:25]:
            print('  console.log:%d: [%s] %s' % (lineno, what, text))


def kunit(out, ksrc, top, qemu_rc):
    console = read_lines(os.path.join(out, 'console.log'))
    results = read_lines(os.path.join(out, 'results.log'))
    problems = []
    if qemu_rc == 124:
        problems.append('the guest timed out')
    elif qemu_rc != 0:
        problems.append('QEMU exited with status %d' % qemu_rc)

    insmod, done = guest_markers(results)
    if done != 'kunit':
        problems.append('the guest did not finish (no MRCORE-DONE marker)')
    for mod, rc in sorted(insmod.items()):
        if rc:
            problems.append('insmod %s failed (%d)' % (mod, rc))
    for line in results:
        if line.startswith('MRCORE-LOG ERROR'):
            problems.append('guest: ' + line[len('MRCORE-LOG '):])

    # Load/unload rounds of every module after the suites (guest-init.sh).
    loops = [re.match(r'MRCORE-LOADLOOP (\d+) (\d+) (\d+)$', line)
             for line in results]
    loops = [m for m in loops if m]
    if not loops:
        problems.append('no load/unload rounds were reported')
    else:
        rounds, mods, fails = (int(g) for g in loops[-1].groups())
        print('kunit: load/unload: %d rounds of %d modules, %d failures' %
              (rounds, mods, fails))
        want = re.search(r'mrcore\.load_rounds=(\d+)',
                         os.environ.get('MRCORE_KUNIT_APPEND', ''))
        want = int(want.group(1)) if want else 10
        if rounds < want or fails or not mods:
            problems.append('load/unload: %d rounds, %d failures' %
                            (rounds, fails))

    suites = suites_ktap(results)
    # A kunit.filter_glob on the command line runs only the suites it names.
    glob_arg = re.search(r'kunit\.filter_glob=(\S+)',
                         os.environ.get('MRCORE_KUNIT_APPEND', ''))
    expected = expected_suites(top)
    if glob_arg:
        suite_glob = glob_arg.group(1).split('.')[0]
        expected = {s for s in expected if fnmatch.fnmatch(s, suite_glob)}
    for s in sorted(expected - set(suites)):
        problems.append('suite %s produced no results' % s)

    ktap_path = os.path.join(out, 'ktap.txt')
    json_path = os.path.join(out, 'results.json')
    with open(ktap_path, 'w') as f:
        f.write('\n'.join(assemble(suites)) + '\n')
    if os.path.exists(json_path):
        os.unlink(json_path)
    counts = {}
    if suites:
        parse = subprocess.run(
            [sys.executable, os.path.join(ksrc, 'tools/testing/kunit/kunit.py'),
             'parse', '--json=' + json_path, ktap_path],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(os.path.join(out, 'parse.txt'), 'w') as f:
            f.write(parse.stdout)
        print(parse.stdout.rstrip())
        try:
            with open(json_path) as f:
                counts = count_cases(json.load(f), {})
        except (OSError, ValueError) as e:
            problems.append('kunit.py parse wrote no usable JSON: %s' % e)
    else:
        problems.append('no KUnit suite results at all')

    report_reports(console, problems)

    passed = counts.get('PASS', 0)
    skipped = counts.get('SKIP', 0)
    failed = sum(v for k, v in counts.items() if k not in ('PASS', 'SKIP'))
    print('kunit: suites: %s' % ', '.join(sorted(suites)) if suites else
          'kunit: suites: none')
    for p in problems:
        print('kunit: FAIL: %s' % p)
    print('kunit: console %s, results %s' %
          (os.path.join(out, 'console.log'), json_path))
    print('kunit: %d passed, %d failed, %d skipped' %
          (passed, failed, skipped))
    return 1 if failed or problems or not passed else 0


def demo(out, ksrc, top, qemu_rc):
    console = read_lines(os.path.join(out, 'console.log'))
    results = read_lines(os.path.join(out, 'results.log'))
    problems = []
    if qemu_rc == 124:
        problems.append('the guest timed out')
    elif qemu_rc != 0:
        problems.append('QEMU exited with status %d' % qemu_rc)
    insmod, done = guest_markers(results)
    if done != 'demo':
        problems.append('the guest did not finish (no MRCORE-DONE marker)')
    for mod, rc in sorted(insmod.items()):
        if rc:
            problems.append('insmod %s failed (%d)' % (mod, rc))

    header, rows = None, []
    for line in console:
        m = re.search(r'mrcore_demo: header: (.*)$', line)
        if m:
            header = m.group(1).split('|')
        m = re.search(r'mrcore_demo: row: (.*)$', line)
        if m:
            rows.append(m.group(1).split('|'))
        m = re.search(r'mrcore_demo: (no .* device|.* error -?\d+)$', line)
        if m:
            problems.append('demo: ' + m.group(1))
    if header is None:
        header = ['device', 'transport', 'operation', 'backend', 'bytes',
                  'WRs', 'usec', 'verified']
    table = [header] + rows
    widths = [max(len(r[i]) if i < len(r) else 0 for r in table)
              for i in range(len(header))]
    for j, r in enumerate(table):
        print('  ' + '  '.join(c.ljust(widths[i]) for i, c in enumerate(r)))
        if j == 0:
            print('  ' + '  '.join('-' * w for w in widths))
    kinds = set(r[1] for r in rows if len(r) > 1)
    for k in ('iWARP', 'RoCEv2'):
        if k not in kinds:
            problems.append('no %s row' % k)
    col = header.index('verified') if 'verified' in header else len(header) - 1
    bad = [r for r in rows if len(r) <= col or r[col] != 'yes']
    if bad:
        problems.append('%d transfer(s) not verified' % len(bad))
    report_reports(console, problems)
    for p in problems:
        print('demo: FAIL: %s' % p)
    ok = len(rows) - len(bad)
    print('demo: %d of %d transfers verified byte for byte%s' %
          (ok, len(rows), '' if not problems else ' (FAILED)'))
    return 1 if problems else 0


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ('kunit', 'demo'):
        print(__doc__, file=sys.stderr)
        return 2
    mode, out, ksrc, top, rc = sys.argv[1:]
    # kunit.py changes to the kernel tree: absolute paths only.
    out, ksrc, top = (os.path.abspath(p) for p in (out, ksrc, top))
    fn = kunit if mode == 'kunit' else demo
    return fn(out, ksrc, top, int(rc))


if __name__ == '__main__':
    sys.exit(main())
