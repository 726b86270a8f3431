#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Judge a test guest run (scripts/kunit.sh, scripts/demo.sh).

guest-report.py kunit OUTDIR KSRC TOP QEMU_RC
    Reassembles one KTAP document from the suites the guest dumped from
    debugfs (OUTDIR/results.log), parses it with KSRC's kunit.py into
    OUTDIR/results.json, and fails on any failed or crashed test, a missing
    suite, a module that did not load, a timeout, or a kernel report in the
    console, or a sample ULP run (scripts/guest-init.sh) that did not
    verify a WRITE and a READ on siw and rxe or did not load and unload.
    Last line: "kunit: N passed, M failed, S skipped".

    A skipped test fails the run too unless TOP/kunit/skips.allow lists
    it, with its reason (see that file).

guest-report.py demo OUTDIR KSRC TOP QEMU_RC [RC_INITIATOR RC_PEER]
    Prints the demo's table from the console and fails on a row that is
    not verified, a missing device kind, a timeout or a kernel report.
    With the two guests' statuses: also the two-host part's table, from
    OUTDIR/2host/{initiator,peer}/ (make kunit-2host's topology), which
    fails on a missing or unverified row (each device kind, map and
    helper, READ and WRITE), a guest that did not finish, a kernel report
    in either console, or RDMA packets missing from the wire (or on lo).

guest-report.py operate OUTDIR KSRC TOP QEMU_RC
    Writes the captures of an operate-mode run (scripts/operating.sh) into
    TOP/Documentation/operating/ and fails on a missing capture, a case
    that failed or a kernel report.

guest-report.py kunit2host OUTDIR KSRC TOP RC_INITIATOR RC_PEER
    make kunit-2host: as kunit for the *_2host suites of the initiator
    guest (OUTDIR/initiator/), plus the peer guest's run (OUTDIR/peer/:
    finished, no kernel report, kmemleak clean) and the packets on the
    wire: each device kind whose suites ran must show RDMA packets on eth0
    and none on lo.  Last line: "kunit-2host: N passed, M failed, S
    skipped".

guest-report.py --self-test [TOP]
    Runs the report's own checks on the crafted console and KTAP of
    TOP/kunit/testdata/guest-report/: kernel reports (RCU stalls among
    them) must be found, benign lines not; an allowed skip must pass and a
    skip the list does not name must fail.
"""

import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

from guestlib import guest_run, kernel_reports, read_lines, report_reports

# A KTAP result line: "ok 3 name # SKIP reason".
KTAP_RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+)(?: (.*?))?'
                         r'(?:\s+#\s*(SKIP|TODO)\b\s*(.*))?$')
KTAP_SUBTEST = re.compile(r'^(\s*)# Subtest: (.*)$')


def expected_suites(top):
    names = set()
    for path in glob.glob(os.path.join(top, 'kunit', '**', '*.c'),
                          recursive=True):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
                             text, re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            if n:
                names.add(n.group(1))
    return names


def slow_only_suites(top):
    """Suites whose every case is KUNIT_CASE_SLOW: a kunit.filter of
    speed>slow leaves them nothing to run, so they do not report."""
    names = set()
    for path in glob.glob(os.path.join(top, 'kunit', '**', '*.c'),
                          recursive=True):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        cases = {}
        for m in re.finditer(r'struct\s+kunit_case\s+(\w+)\[\]\s*=\s*'
                             r'\{(.*?)\};', text, re.S):
            body = m.group(2)
            cases[m.group(1)] = (len(re.findall(r'KUNIT_CASE\w*\(', body)),
                                 len(re.findall(r'KUNIT_CASE_SLOW\(', body)))
        for m in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
                             text, re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            c = re.search(r'\.test_cases\s*=\s*(\w+)', m.group(1))
            if n and c and c.group(1) in cases:
                total, slow = cases[c.group(1)]
                if total and total == slow:
                    names.add(n.group(1))
    return names


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


def ktap_skips(lines):
    """[(id, reason)] of the skipped tests (leaves) of a KTAP document.

    The id is "suite.case" for a test case and "suite.case[param]" for a
    parameter of a parameterized case.  A "# Subtest: X" header opens a
    group at its indentation; the group's own result line is one level
    out and names X; every other result line is a test of the innermost
    group at its indentation.
    """
    stack, skips = [], []
    for line in lines:
        m = KTAP_SUBTEST.match(line)
        if m:
            indent = len(m.group(1))
            stack = [g for g in stack if g[0] < indent]
            stack.append((indent, m.group(2).strip()))
            continue
        m = KTAP_RESULT.match(line)
        if not m:
            continue
        indent, name = len(m.group(1)), (m.group(4) or '').strip()
        inner = [g for g in stack if g[0] > indent]
        stack = [g for g in stack if g[0] <= indent]
        if inner and inner[0][1] == name:
            continue        # the result of a group, not of a test
        if m.group(5) != 'SKIP':
            continue
        path = [g[1] for g in stack if g[0] <= indent] + [name]
        if len(path) >= 3:
            test_id = '%s.%s[%s]' % (path[0], '.'.join(path[1:-1]),
                                     path[-1])
        else:
            test_id = '.'.join(path)
        skips.append((test_id, m.group(6).strip()))
    return skips


def read_allow(path):
    """Entries of a skip allow-list: [(pattern, reason)], and problems.

    One entry a line, "suite.case[param] | reason"; '#' starts a comment
    line; '*' in the name or the reason matches any text (nothing else is
    special).  The reason is the one the skip prints.
    """
    entries, problems = [], []
    for i, line in enumerate(read_lines(path), 1):
        text = line.strip()
        if not text or text.startswith('#'):
            continue
        name, sep, reason = text.partition('|')
        if not sep or not name.strip() or not reason.strip():
            problems.append('%s:%d: not "suite.case[param] | reason": %s' %
                            (path, i, text))
            continue
        entries.append((name.strip(), reason.strip()))
    return entries, problems


def _glob(pattern, text):
    rx = '.*'.join(re.escape(p) for p in pattern.split('*'))
    return re.fullmatch(rx, text) is not None


def allowed(test_id, reason, entries):
    """The listed reason of the entry whose name and reason (both with '*'
    for any text) match the skip's: a listed case skipped for another
    reason is not allowed."""
    for name, why in entries:
        if _glob(name, test_id) and _glob(why, reason):
            return why
    return None


def check_skips(ktap_lines, allow_path, problems):
    """Print every skip; an unlisted one is a problem."""
    entries, bad = read_allow(allow_path)
    problems.extend(bad)
    for test_id, reason in ktap_skips(ktap_lines):
        why = allowed(test_id, reason, entries)
        if why is None:
            problems.append('skip not in %s (name and reason): %s # SKIP %s' %
                            (os.path.basename(allow_path), test_id, reason))
        else:
            print('kunit: allowed skip: %s # SKIP %s (listed: %s)' %
                  (test_id, reason, why))


SAMPLE_OK = re.compile(r'mrcore_sample: (\S+) \((iWARP|RoCE)\): WRITE and READ '
                       r'of (\d+) bytes verified$')


def sample_problems(results):
    """What is wrong with the sample ULP's run (guest-init.sh's sample()).

    The installed rdma_mrcore.ko and the sample must load, the sample must
    have verified a WRITE and a READ on an iWARP (siw) and a RoCE (rxe)
    device, and both must unload.  Returns (devices verified, problems).
    """
    steps, verified, problems = {}, [], []
    for line in results:
        m = re.match(r'MRCORE-SAMPLE (insmod|rmmod) (\S+) (\d+)$', line)
        if m:
            steps[(m.group(1), m.group(2))] = int(m.group(3))
            continue
        m = re.match(r'MRCORE-SAMPLE dmesg (.*)$', line)
        if m:
            ok = SAMPLE_OK.search(m.group(1))
            if ok:
                verified.append('%s (%s)' % ok.group(1, 2))
            elif re.search(r'mrcore_sample: .*(error|byte \d+ is)',
                           m.group(1)):
                problems.append('sample: ' + m.group(1).strip())
    for step in (('insmod', 'rdma_mrcore'), ('insmod', 'mrcore_sample'),
                 ('rmmod', 'mrcore_sample'), ('rmmod', 'rdma_mrcore')):
        if step not in steps:
            problems.append('sample: no %s %s' % step)
        elif steps[step]:
            problems.append('sample: %s %s failed (%d)' %
                            (step + (steps[step],)))
    for kind in ('iWARP', 'RoCE'):
        if not any(v.endswith('(%s)' % kind) for v in verified):
            problems.append('sample: no verified transfer on %s' % kind)
    return verified, problems


def count_cases(group, acc):
    for case in group.get('test_cases', []):
        acc[case['status']] = acc.get(case['status'], 0) + 1
    for sub in group.get('sub_groups', []):
        count_cases(sub, acc)
    return acc


def two_host_suite(name):
    """Suites of make kunit-2host: they need the peer guest."""
    return name.endswith('_2host')


def judge_suites(results, out, ksrc, top, expected, problems):
    """KTAP of the guest's suites -> OUTDIR/ktap.txt and results.json.

    Every suite of @expected must have reported (a kunit.filter_glob of
    MRCORE_KUNIT_APPEND narrows it), skips must be allowed.  Returns the
    per-status case counts and the names of the suites seen, sorted.
    """
    suites = suites_ktap(results)
    # A kunit.filter_glob on the command line runs only the suites it names.
    glob_arg = re.search(r'kunit\.filter_glob=(\S+)',
                         os.environ.get('MRCORE_KUNIT_APPEND', ''))
    if glob_arg:
        suite_glob = glob_arg.group(1).split('.')[0]
        expected = {s for s in expected if fnmatch.fnmatch(s, suite_glob)}
    # make check's kunit (scripts/kunit.sh --quick) leaves the slow cases
    # to make kunit: a suite of slow cases only does not run.
    if re.search(r'kunit\.filter=speed>slow',
                 os.environ.get('MRCORE_KUNIT_APPEND', '')):
        expected -= slow_only_suites(top)
    for s in sorted(expected - set(suites)):
        problems.append('suite %s produced no results' % s)

    ktap_path = os.path.join(out, 'ktap.txt')
    json_path = os.path.join(out, 'results.json')
    ktap = assemble(suites)
    with open(ktap_path, 'w') as f:
        f.write('\n'.join(ktap) + '\n')
    check_skips(ktap, os.path.join(top, 'kunit', 'skips.allow'), problems)
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

    return counts, sorted(suites)


def kunit(out, ksrc, top, qemu_rc):
    console, results, problems = guest_run(out, qemu_rc, 'kunit')

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
        want = int(want.group(1)) if want else 4
        if rounds < want or fails or not mods:
            problems.append('load/unload: %d rounds, %d failures' %
                            (rounds, fails))

    # The sample ULP against the package as installed, before the suites.
    verified, bad = sample_problems(results)
    problems.extend(bad)
    print('kunit: sample ULP: WRITE and READ verified on %s' %
          (', '.join(verified) if verified else 'no device'))

    expected = {n for n in expected_suites(top) if not two_host_suite(n)}
    counts, suites = judge_suites(results, out, ksrc, top, expected,
                                  problems)

    report_reports(console, problems)

    passed = counts.get('PASS', 0)
    skipped = counts.get('SKIP', 0)
    failed = sum(v for k, v in counts.items() if k not in ('PASS', 'SKIP'))
    print('kunit: suites: %s' % ', '.join(suites) if suites else
          'kunit: suites: none')
    for p in problems:
        print('kunit: FAIL: %s' % p)
    print('kunit: console %s, results %s' %
          (os.path.join(out, 'console.log'),
           os.path.join(out, 'results.json')))
    print('kunit: %d passed, %d failed, %d skipped' %
          (passed, failed, skipped))
    return 1 if failed or problems or not passed else 0


def wire_figures(results, problems, want, name='kunit-2host',
                 during='the suites'):
    """The initiator's packet counts: eth0 and lo, tcpdump per protocol.

    @want: the protocols ("roce", "siw") whose suites ran; each must have
    crossed eth0 and never lo.  @name, @during: the lines' prefix and what
    ran between the counts.
    """
    stats = {}
    for line in results:
        m = re.match(r'MRCORE-NETSTAT (\S+) (\S+) (\d+) (\d+) (\d+) (\d+)$',
                     line)
        if m:
            stats[(m.group(1), m.group(2))] = [int(g) for g in m.groups()[2:]]
    for dev in ('eth0', 'lo'):
        b, a = stats.get(('before', dev)), stats.get(('after', dev))
        if b and a:
            d = [y - x for x, y in zip(b, a)]
            print('%s: %-4s during %s: %d packets sent, %d '
                  'received, %d bytes sent, %d received' %
                  (name, dev, during, d[0], d[1], d[2], d[3]))
    caps = {}
    for line in results:
        m = re.match(r'MRCORE-CAPTURE (\S+) (\S+) (\S+) (\S+)$', line)
        if m:
            caps[(m.group(1), m.group(2))] = m.group(3)
            print('%s: tcpdump on %-4s %-4s: %s packets (%s dropped '
                  'by the kernel)' % ((name,) + m.groups()))
    for line in results:
        if line.startswith('MRCORE-PACKET '):
            print('  ' + line[len('MRCORE-PACKET '):])
    if not caps:
        print('%s: no tcpdump counts (no tcpdump in the initramfs, or the '
              'guest did not finish)' % name)
        eth = stats.get(('after', 'eth0')), stats.get(('before', 'eth0'))
        if eth[0] and eth[1] and eth[0][0] - eth[1][0] < 100:
            problems.append('fewer than 100 packets left eth0 during %s' %
                            during)
        return
    for proto in want:
        n = caps.get(('eth0', proto), '?')
        if not n.isdigit() or int(n) == 0:
            problems.append('no %s packet captured on eth0 (%s)' % (proto, n))
        n = caps.get(('lo', proto), '?')
        if not n.isdigit() or int(n) != 0:
            problems.append('%s packets on lo: %s, want 0' % (proto, n))


def kunit2host(out, ksrc, top, rc_init, rc_peer):
    """Both guests of make kunit-2host: one verdict."""
    init_dir = os.path.join(out, 'initiator')
    peer_dir = os.path.join(out, 'peer')
    console, results, problems = guest_run(init_dir, rc_init, 'kunit2host')
    problems = ['initiator: ' + p for p in problems]
    pconsole, presults, pproblems = guest_run(peer_dir, rc_peer, 'peer')
    problems += ['peer: ' + p for p in pproblems]

    expected = {n for n in expected_suites(top) if two_host_suite(n)}
    counts, suites = judge_suites(results, out, ksrc, top, expected,
                                  problems)
    want = set()
    for name in suites:
        if 'rxe' in name:
            want.add('roce')
        if 'siw' in name:
            want.add('siw')
    wire_figures(results, problems, sorted(want))

    for who, lines in (('initiator', console), ('peer', pconsole)):
        found = []
        report_reports(lines, found)
        problems += ['%s: %s' % (who, p) for p in found]

    passed = counts.get('PASS', 0)
    skipped = counts.get('SKIP', 0)
    failed = sum(v for k, v in counts.items() if k not in ('PASS', 'SKIP'))
    print('kunit-2host: suites: %s' % (', '.join(suites) or 'none'))
    for p in problems:
        print('kunit-2host: FAIL: %s' % p)
    print('kunit-2host: consoles %s/{initiator,peer}/console.log, results %s'
          % (out, os.path.join(out, 'results.json')))
    print('kunit-2host: %d passed, %d failed, %d skipped' %
          (passed, failed, skipped))
    return 1 if failed or problems or not passed else 0


def print_table(header, rows):
    table = [header] + rows
    widths = [max(len(r[i]) if i < len(r) else 0 for r in table)
              for i in range(len(header))]
    for j, r in enumerate(table):
        print('  ' + '  '.join(c.ljust(widths[i]) for i, c in enumerate(r)))
        if j == 0:
            print('  ' + '  '.join('-' * w for w in widths))


def console_table(console, tag, errors):
    """What a module printed as "TAG: header: a|b|..." and "TAG: row: ...".

    Returns (header or None, rows, the lines "TAG: E" where E matches the
    regular expression @errors), the fields split at '|'.
    """
    header, rows, found = None, [], []
    for line in console:
        m = re.search(tag + r': header: (.*)$', line)
        if m:
            header = m.group(1).split('|')
        m = re.search(tag + r': row: (.*)$', line)
        if m:
            rows.append(m.group(1).split('|'))
        m = re.search(tag + r': (' + errors + r')$', line)
        if m:
            found.append(m.group(1))
    return header, rows, found


# The rows of the demo's two-host part (kunit/two-host/demo_2host.c): transport and
# operation.
DEMO_2HOST_ROWS = [(k, '%s %s' % (api, op)) for k in ('RoCEv2', 'iWARP')
                   for api in ('map', 'helper') for op in ('READ', 'WRITE')]


def demo_2host_rows(console):
    """The two-host part's rows in the initiator's console, judged.

    Returns (header, rows, verified rows, problems): a problem for each of
    DEMO_2HOST_ROWS missing, repeated or not verified, each error the
    module printed, and rows that are none of them.
    """
    header, rows, found = console_table(
        console, 'mrcore_demo_2host', r'.* error -?\d+|.* wrong bytes .*')
    if header is None:
        header = ['host', 'device', 'transport', 'peer', 'operation',
                  'backend', 'bytes', 'WRs', 'usec', 'verified']
    col = header.index('verified') if 'verified' in header else -1
    tcol = header.index('transport') if 'transport' in header else 2
    ocol = header.index('operation') if 'operation' in header else 4
    ok = 0
    for kind, op in DEMO_2HOST_ROWS:
        got = [r for r in rows if len(r) == len(header) and
               r[tcol] == kind and r[ocol] == op]
        if not got:
            found.append('no %s %s row' % (kind, op))
        elif len(got) > 1:
            found.append('%d %s %s rows, want 1' % (len(got), kind, op))
        elif got[0][col] != 'yes':
            found.append('%s %s: not verified (%s)' % (kind, op, got[0][col]))
        else:
            ok += 1
    if len(rows) != len(DEMO_2HOST_ROWS):
        found.append('%d rows, want %d' % (len(rows), len(DEMO_2HOST_ROWS)))
    return header, rows, ok, found


def demo_2host(out, rc_init, rc_peer, problems):
    """The demo's two-host part: its table and its problems.

    Returns (verified rows, rows).
    """
    base = os.path.join(out, '2host')
    console, results, found = guest_run(os.path.join(base, 'initiator'),
                                        rc_init, 'demo2host')
    pconsole, _, pfound = guest_run(os.path.join(base, 'peer'), rc_peer,
                                    'peer')
    found = ['initiator: ' + p for p in found]
    found += ['peer: ' + p for p in pfound]
    header, rows, ok, rfound = demo_2host_rows(console)
    found += rfound
    print()
    print('demo: two guests, each end of a QP pair in its own kernel, the '
          'packets on the virtio-net wire between them:')
    print_table(header, rows)
    wire_figures(results, found, ['roce', 'siw'], 'demo',
                 'the two-host transfers')
    for who, lines in (('initiator', console), ('peer', pconsole)):
        reports = []
        report_reports(lines, reports)
        found += ['%s: %s' % (who, p) for p in reports]
    problems += ['two hosts: ' + p for p in found]
    print('demo: consoles %s/{initiator,peer}/console.log' % base)
    return ok, len(DEMO_2HOST_ROWS)


def demo(out, ksrc, top, qemu_rc, rc_init=None, rc_peer=None):
    console, results, problems = guest_run(out, qemu_rc, 'demo')

    header, rows, errors = console_table(console, 'mrcore_demo',
                                         r'no .* device|.* error -?\d+')
    problems.extend('demo: ' + e for e in errors)
    if header is None:
        header = ['device', 'transport', 'operation', 'backend', 'bytes',
                  'WRs', 'usec', 'verified']
    if rc_init is not None:
        print('demo: one guest, both ends of each QP pair on one device '
              '(no wire):')
    print_table(header, rows)
    kinds = set(r[1] for r in rows if len(r) > 1)
    for k in ('iWARP', 'RoCEv2'):
        if k not in kinds:
            problems.append('no %s row' % k)
    col = header.index('verified') if 'verified' in header else len(header) - 1
    bad = [r for r in rows if len(r) <= col or r[col] != 'yes']
    if bad:
        problems.append('%d transfer(s) not verified' % len(bad))
    report_reports(console, problems)
    ok = len(rows) - len(bad)
    wire = ''
    if rc_init is not None:
        ok2, n2 = demo_2host(out, rc_init, rc_peer, problems)
        wire = ', %d of %d across two hosts' % (ok2, n2)
    else:
        print('demo: two-host part not run (MRCORE_DEMO_2HOST=0)')
    for p in problems:
        print('demo: FAIL: %s' % p)
    print('demo: %d of %d transfers verified byte for byte%s%s' %
          (ok, len(rows), wire, '' if not problems else ' (FAILED)'))
    return 1 if problems else 0


def captures(results):
    """{name: (command, [lines])} from the MRCORE-CAPTURE frames."""
    out, name = {}, None
    for line in results:
        m = re.match(r'MRCORE-CAPTURE-BEGIN (\S+) (.*)$', line)
        if m:
            name, cmd, lines = m.group(1), m.group(2), []
            continue
        if name and line == 'MRCORE-CAPTURE-END ' + name:
            out[name] = (cmd, lines)
            name = None
            continue
        if name:
            lines.append(line)
    return out


def counter_diff(before, after):
    """'device counter before -> after' for the counters that moved."""
    old = {}
    for line in before:
        f = line.split()
        if len(f) == 3:
            old[(f[0], f[1])] = f[2]
    rows = []
    for line in after:
        f = line.split()
        if len(f) == 3 and old.get((f[0], f[1]), '0') != f[2]:
            rows.append('%-6s %-22s %8s -> %s' % (f[0], f[1],
                                                 old.get((f[0], f[1]), '0'),
                                                 f[2]))
    return rows


def operate(out, ksrc, top, qemu_rc):
    """Write the captures of Documentation/operating.rst."""
    console, results, problems = guest_run(out, qemu_rc, 'operate')
    caps = captures(results)
    docdir = os.path.join(top, 'Documentation', 'operating')
    os.makedirs(docdir, exist_ok=True)
    files = {}
    kernel = [re.sub(r'^\[[ \d.]+\] ', '', l) for l in console
              if re.match(r'(\[[ \d.]+\] )?Linux version ', l)]
    files['kernel'] = kernel[:1]
    for name in ('files', 'events', 'format', 'backends', 'weights'):
        if name in caps:
            files[name] = caps[name][1]
    for scene in ('ok', 'dry', 'flush', 'error'):
        for part in ('trace', 'dmesg'):
            if '%s-%s' % (scene, part) in caps:
                files['%s-%s' % (scene, part)] = [
                    l for l in caps['%s-%s' % (scene, part)][1] if l.strip()]
        if '%s-counters' % scene in caps:
            files['%s-counters' % scene] = counter_diff(
                caps.get('%s-counters-before' % scene, ('', []))[1],
                caps['%s-counters' % scene][1])
    removal = []
    for name in ('removal-before', 'removal-link', 'removal-after',
                 'removal-dmesg'):
        if name in caps:
            removal.append('# ' + caps[name][0].replace(
                '/usr/local/sbin/', ''))
            removal.extend(l for l in caps[name][1] if l.strip())
    files['removal'] = removal
    # modinfo of the package as installed, on the host (the filename line,
    # a path of the build machine, left out)
    pkg = os.path.join(top, 'build', 'install',
                       os.path.basename(os.path.normpath(
                           subprocess.run([os.path.join(top, 'scripts',
                                                        'test-kernel.sh'),
                                           '--print-dir'],
                                          stdout=subprocess.PIPE,
                                          text=True).stdout.strip())))
    modinfo = []
    for ko in ('rdma_mrcore.ko', 'mrcore_sample.ko'):
        res = subprocess.run(['modinfo', os.path.join(pkg, ko)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        modinfo.append('$ modinfo %s' % ko)
        modinfo.extend(l for l in res.stdout.splitlines()
                       if not l.startswith('filename:'))
    try:
        with open(os.path.join(pkg, 'Module.symvers')) as f:
            symvers = f.read().splitlines()
        modinfo.append('$ grep -c RDMA_MRCORE Module.symvers; '
                       'grep -w rdma_create_mr Module.symvers')
        modinfo.append(str(sum('RDMA_MRCORE' in l for l in symvers)))
        # the third column, the module's build path, left out
        modinfo.extend('\t'.join(l.split('\t')[:2] + l.split('\t')[3:])
                       for l in symvers
                       if l.split('\t')[1:2] == ['rdma_create_mr'])
    except OSError:
        problems.append('no Module.symvers in %s' % pkg)
    files['modinfo'] = modinfo
    for name, lines in sorted(files.items()):
        if not lines:
            problems.append('no capture %s' % name)
        with open(os.path.join(docdir, name + '.txt'), 'w') as f:
            f.write('\n'.join(lines) + '\n')
    for line in console:
        if re.search(r'mrcore_operate: \S+: done \((-\d+)\)', line):
            problems.append('case failed: ' + line.strip())
    report_reports(console, problems)
    for p in problems:
        print('operating: FAIL: %s' % p)
    print('operating: %d files in %s%s' % (len(files), docdir,
                                          '' if not problems else
                                          ' (FAILED)'))
    return 1 if problems else 0


def self_test(top):
    """The report's checks on crafted input; returns the number of errors."""
    data = os.path.join(top, 'kunit', 'testdata', 'guest-report')
    errors = []

    def expect(cond, what):
        print('guest-report self-test: %s: %s' % ('ok' if cond else 'FAIL',
                                                  what))
        if not cond:
            errors.append(what)

    console = read_lines(os.path.join(data, 'console.log'))
    want = [i + 1 for i, line in enumerate(console) if 'MUST-FAIL' in line]
    found = kernel_reports(console)
    expect([n for n, _, _ in found] == want,
           'kernel reports on exactly the %d MUST-FAIL lines of '
           'console.log (found lines %s)' %
           (len(want), [n for n, _, _ in found]))
    stalls = [t for _, w, t in found if w == 'hang/stall' and 'rcu' in t]
    expect(any('self-detected stall' in t for t in stalls),
           'an RCU "self-detected stall on CPU" fails the run')
    expect(any('detected stalls' in t for t in stalls),
           'an RCU "detected stalls on CPUs/tasks" fails the run')

    ktap = read_lines(os.path.join(data, 'ktap.txt'))
    skips = ktap_skips(ktap)
    expect(skips == [
        ('mrcore_demo_a.case_plain', 'allowed for a reason'),
        ('mrcore_demo_a.case_param[param two]', 'allowed by a pattern'),
        ('mrcore_demo_b.case_param[param one]', 'nobody listed this'),
    ], 'skipped leaves and their reasons from ktap.txt (got %s)' % skips)

    problems = []
    check_skips(ktap, os.path.join(data, 'skips.allow'), problems)
    unlisted = [p for p in problems if p.startswith('skip not in')]
    expect(len(unlisted) == 1 and
           'mrcore_demo_b.case_param[param one]' in unlisted[0] and
           'nobody listed this' in unlisted[0],
           'the unlisted skip fails the run, named with its reason')
    expect(any('no reason here' in p for p in problems),
           'an allow-list entry without a reason is refused')
    expect(len(problems) == 2, 'nothing else is reported (%s)' % problems)

    entries, _ = read_allow(os.path.join(data, 'skips.allow'))
    expect(allowed('mrcore_demo_a.case_plain', 'another reason',
                   entries) is None,
           'a listed case skipped for a reason the list does not give '
           'fails the run')

    problems = []
    check_skips(ktap, os.path.join(data, 'none.allow'), problems)
    expect(len(problems) == 3,
           'without an allow-list every skip fails the run')

    good = ['MRCORE-SAMPLE insmod rdma_mrcore 0',
            'MRCORE-SAMPLE insmod mrcore_sample 0',
            'MRCORE-SAMPLE dmesg [ 9.1] mrcore_sample: siw0 (iWARP): WRITE '
            'and READ of 32768 bytes verified',
            'MRCORE-SAMPLE dmesg [ 9.5] mrcore_sample: rxe0 (RoCE): WRITE '
            'and READ of 32768 bytes verified',
            'MRCORE-SAMPLE rmmod mrcore_sample 0',
            'MRCORE-SAMPLE rmmod rdma_mrcore 0']
    verified, bad = sample_problems(good)
    expect(verified == ['siw0 (iWARP)', 'rxe0 (RoCE)'] and not bad,
           'a sample run on siw and rxe passes (%s)' % bad)
    corrupt = [good[0], good[1].replace(' 0', ' 1'),
               'MRCORE-SAMPLE dmesg [ 9.5] mrcore_sample: rxe0: READ: '
               'byte 1000 is 0x0, not 0x3c'] + good[2:3] + good[4:]
    verified, bad = sample_problems(corrupt)
    expect(len(bad) == 3 and any('byte 1000' in p for p in bad) and
           any('no verified transfer on RoCE' in p for p in bad),
           'a corrupted byte, a failed load and a missing device fail '
           'the sample run (%s)' % bad)
    expect(len(sample_problems([])[1]) == 6,
           'a run without the sample fails')

    rows = ['mrcore_demo_2host: header: host|device|transport|peer|'
            'operation|backend|bytes|WRs|usec|verified']
    for kind, op in DEMO_2HOST_ROWS:
        rows.append('[ 5.0] mrcore_demo_2host: row: 203.0.113.1|x0|%s|'
                    '203.0.113.2|%s|frwr|65536|3|900|yes' % (kind, op))
    _, _, ok, found = demo_2host_rows(rows)
    expect(ok == 8 and not found,
           'the demo\'s eight two-host rows pass (%s)' % found)
    _, _, ok, found = demo_2host_rows(rows[:3] + rows[4:])
    expect(ok == 7 and any('no RoCEv2 helper READ row' in p for p in found),
           'a two-host row missing fails the demo (%s)' % found)
    _, _, ok, found = demo_2host_rows(rows + rows[-1:])
    expect(any('2 iWARP helper WRITE rows' in p for p in found),
           'a two-host row repeated fails the demo (%s)' % found)
    bad = [r.replace('|yes', '|NO') if 'map WRITE' in r else r for r in rows]
    bad.append('mrcore_demo_2host: siw0 WRITE sink: 1 wrong bytes on the '
               'peer, the first at 7: 0x01, want 0x02')
    _, _, ok, found = demo_2host_rows(bad)
    expect(ok == 6 and len(found) == 3,
           'unverified two-host rows and wrong bytes fail the demo (%s)'
           % found)

    print('guest-report self-test: %d checks failed' % len(errors))
    return 1 if errors else 0


def main():
    if len(sys.argv) in (2, 3) and sys.argv[1] == '--self-test':
        top = sys.argv[2] if len(sys.argv) == 3 else \
            os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
        return self_test(os.path.abspath(top))
    if len(sys.argv) == 7 and sys.argv[1] == 'kunit2host':
        out, ksrc, top = (os.path.abspath(p) for p in sys.argv[2:5])
        return kunit2host(out, ksrc, top, int(sys.argv[5]), int(sys.argv[6]))
    if len(sys.argv) == 8 and sys.argv[1] == 'demo':
        out, ksrc, top = (os.path.abspath(p) for p in sys.argv[2:5])
        return demo(out, ksrc, top, *(int(a) for a in sys.argv[5:8]))
    if len(sys.argv) != 6 or sys.argv[1] not in ('kunit', 'demo', 'operate'):
        print(__doc__, file=sys.stderr)
        return 2
    mode, out, ksrc, top, rc = sys.argv[1:]
    # kunit.py changes to the kernel tree: absolute paths only.
    out, ksrc, top = (os.path.abspath(p) for p in (out, ksrc, top))
    fn = {'kunit': kunit, 'demo': demo, 'operate': operate}[mode]
    return fn(out, ksrc, top, int(rc))


if __name__ == '__main__':
    sys.exit(main())
