# SPDX-License-Identifier: GPL-2.0-only
"""What every guest run is judged by (scripts/guest-report.py for kunit and
demo, scripts/bench-report.py for bench): the console's kernel reports,
the guest's markers in results.log, QEMU's exit status.
"""

import os
import re

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
    # An allocation that failed and said so: the run was short of memory,
    # and a refusal it caused would be counted as the code's.
    (re.compile(r'page allocation failure: order:'),
     'page allocation failure'),
    # RCU: "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    # "rcu: INFO: rcu_preempt self-detected stall on CPU", "... detected
    # expedited stalls ...", and the RCU-tasks flavours.
    (re.compile(r'blocked for more than \d+ seconds|'
                r'INFO: \S+ (self-)?detected (expedited )?stalls?\b|'
                r'soft lockup|hard LOCKUP'),
     'hang/stall'),
]

def read_lines(path):
    try:
        with open(path, 'rb') as f:
            data = f.read().decode('utf-8', 'replace')
    except FileNotFoundError:
        return []
    return [l.rstrip('\r') for l in data.replace('\r\n', '\n').split('\n')]


# A frame of the project's code in a report's stacks: its modules' tag,
# or a function of its API or core (the modules may be built in).
OURS = re.compile(r'\[(rdma_mrcore|mrcore_\w+)\]|\b(mrcore_|rdma_io_|rdma_mr_)\w*\+0x')


def kcsan_reports(console):
    """[(line number, title, ours)] of every "BUG: KCSAN:" report: ours when
    a frame of either stack is the project's (OURS)."""
    found = []
    for i, line in enumerate(console):
        m = re.search(r'BUG: KCSAN: (.*)', line)
        if not m:
            continue
        ours = False
        for nxt in console[i + 1:i + 120]:
            if re.search(r'={20}|BUG: KCSAN:', nxt):
                break
            ours |= bool(OURS.search(nxt))
        found.append((i + 1, m.group(1).strip(), ours))
    return found


def kernel_reports(console):
    """Every line of BAD; with MRCORE_KCSAN_OURS_ONLY=1 (make kcsan), a KCSAN
    report without a frame of ours is left to scripts/kcsan.sh, which lists
    it apart."""
    foreign = set()
    if os.environ.get('MRCORE_KCSAN_OURS_ONLY') == '1':
        foreign = {n for n, _, ours in kcsan_reports(console) if not ours}
    found = []
    for i, line in enumerate(console):
        if i + 1 in foreign:
            continue
        for rx, what in BAD:
            if rx.search(line):
                found.append((i + 1, what, line.strip()))
                break
    return found


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


def report_reports(console, problems):
    reports = kernel_reports(console)
    if reports:
        problems.append('%d kernel report line(s) in the console' %
                        len(reports))
        for lineno, what, text in reports[:25]:
            print('  console.log:%d: [%s] %s' % (lineno, what, text))


def guest_run(out, qemu_rc, mode):
    """Read OUTDIR's console and results and judge what every run shares.

    Returns (console lines, results lines, problems): a timeout or a QEMU
    failure, a guest that did not reach its MRCORE-DONE marker for @mode, a
    module that did not load, and every MRCORE-LOG ERROR the guest logged.
    Kernel reports are left to report_reports(), which prints them.
    """
    console = read_lines(os.path.join(out, 'console.log'))
    results = read_lines(os.path.join(out, 'results.log'))
    problems = []
    if qemu_rc == 124:
        problems.append('the guest timed out')
    elif qemu_rc != 0:
        problems.append('QEMU exited with status %d' % qemu_rc)
    insmod, done = guest_markers(results)
    if done != mode:
        problems.append('the guest did not finish (no MRCORE-DONE marker)')
    for mod, rc in sorted(insmod.items()):
        if rc:
            problems.append('insmod %s failed (%d)' % (mod, rc))
    for line in results:
        if line.startswith('MRCORE-LOG ERROR'):
            problems.append('guest: ' + line[len('MRCORE-LOG '):])
    return console, results, problems


def kcsan_triage(path):
    """scripts/kcsan.sh's summary of one boot's console: "ours N",
    "outside M", then one indented line per report (where, whose, what)."""
    found = kcsan_reports(read_lines(path))
    lines = ['ours %d' % sum(o for _, _, o in found),
             'outside %d' % sum(not o for _, _, o in found)]
    for n, title, ours in found:
        lines.append('  console.log:%d: %s: %s'
                     % (n, 'OURS' if ours else 'outside', title))
    return lines


if __name__ == '__main__':
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != 'kcsan-triage':
        sys.exit('usage: guestlib.py kcsan-triage CONSOLE_LOG')
    print('\n'.join(kcsan_triage(sys.argv[2])))
