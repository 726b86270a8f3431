#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the names Documentation/operating.rst quotes against the code.

    scripts/doc-names.py [TOP]

The page marks its tables with comments, ".. names: KIND" before a table
and ".. names: end" after it; the first column of each row is a ``name``.
KIND is one of

  counters     the names of core/device.c's counters file (mrcore_stat_names),
               and "<class>_<backend>" for its per-backend rows (the class
               from mrcore_class_names)
  tracepoints  the events of core/mrcore_trace.h (TRACE_EVENT, DEFINE_EVENT)
  parameters   the module parameters of core/ and drivers/
  messages     a fixed piece of a kernel message: it must appear in a string
               of core/ or drivers/

Every quoted name must exist in the code, and (but for messages) every
name of the code must be in the page's table.  Exit status 1 on a
difference, with one line per name.
"""

import glob
import os
import re
import sys


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def code_names(top):
    src = {p: read(p) for p in glob.glob(os.path.join(top, 'core', '*.[ch]')) +
           glob.glob(os.path.join(top, 'drivers', '*.[ch]'))}
    device = read(os.path.join(top, 'core', 'device.c'))
    trace = read(os.path.join(top, 'core', 'mrcore_trace.h'))
    names = {
        'counters': set(re.findall(r'\[MRCORE_STAT_\w+\]\s*=\s*"(\w+)"',
                                   device)),
        'classes': set(re.findall(r'\[MRCORE_CLASS_\w+\]\s*=\s*"(\w+)"',
                                  device)),
        'tracepoints': set(re.findall(r'^TRACE_EVENT\((\w+),', trace, re.M)) |
        set(re.findall(r'^DEFINE_EVENT\(\w+,\s*(\w+),', trace, re.M)),
        'parameters': set(),
    }
    for text in src.values():
        names['parameters'] |= set(
            re.findall(r'module_param(?:_cb|_named)?\((\w+),', text))
    # the strings of the code, adjacent literals joined
    strings = []
    for text in src.values():
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"(?:\s*"((?:[^"\\\n]|\\.)*)")*',
                             text):
            strings.append(''.join(re.findall(r'"((?:[^"\\\n]|\\.)*)"',
                                              m.group(0))))
    names['strings'] = strings
    return names


def page_tables(path):
    """{kind: [names]} from the marked tables of the page."""
    tables, kind = {}, None
    for line in read(path).splitlines():
        m = re.match(r'\.\. names: (\w+)\s*$', line)
        if m:
            kind = None if m.group(1) == 'end' else m.group(1)
            if kind:
                tables.setdefault(kind, [])
            continue
        if kind:
            m = re.match(r'``(.+?)``', line)
            if m:
                tables[kind].append(m.group(1))
    return tables


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), '..'))
    page = os.path.join(top, 'Documentation', 'operating.rst')
    code = code_names(top)
    tables = page_tables(page)
    bad = []
    for kind in ('counters', 'tracepoints', 'parameters', 'messages'):
        if kind not in tables:
            bad.append('no ".. names: %s" table' % kind)
    for name in tables.get('counters', []):
        m = re.fullmatch(r'(\w+)_<backend>', name)
        if m:
            if m.group(1) not in code['classes']:
                bad.append('counter class %s: not in core/device.c' %
                           m.group(1))
        elif name not in code['counters']:
            bad.append('counter %s: not in core/device.c' % name)
    for c in sorted(code['counters'] - set(tables.get('counters', []))):
        bad.append('counter %s: not in the page' % c)
    for c in sorted(code['classes'] - {n[:-len('_<backend>')] for n in
                                       tables.get('counters', [])
                                       if n.endswith('_<backend>')}):
        bad.append('counter class %s_<backend>: not in the page' % c)
    for kind in ('tracepoints', 'parameters'):
        quoted = set(tables.get(kind, []))
        for n in sorted(quoted - code[kind]):
            bad.append('%s %s: not in the code' % (kind[:-1], n))
        for n in sorted(code[kind] - quoted):
            bad.append('%s %s: not in the page' % (kind[:-1], n))
    for piece in tables.get('messages', []):
        if not any(piece in s for s in code['strings']):
            bad.append('message "%s": no string of core/ or drivers/ has it' %
                       piece)
    for b in bad:
        print('doc-names: operating.rst: %s' % b)
    n = sum(len(v) for v in tables.values())
    print('doc-names: operating.rst: %d names checked against the code%s' %
          (n, ', %d differ' % len(bad) if bad else ''))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
