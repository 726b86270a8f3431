# SPDX-License-Identifier: GPL-2.0-only
"""What both mirror benchmark reports (report.py, vs-rw/report.py) read from
callgrind_annotate's listing of exclusive Ir per function.

scripts/lib/callgrind.sh runs the reports with this directory on PYTHONPATH.
"""
import re
from pathlib import Path

FN_LINE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[[^\]]*\])?$")


def own_ir(path, own_file):
    """Exclusive Ir of the functions defined in the files own_file()
    accepts (kernel helpers inlined into them included), or None if the
    listing has none of them."""
    costs = []
    for line in Path(path).read_text().splitlines():
        m = FN_LINE.match(line)
        if not m or ":" not in m.group(2):
            continue
        file, fn = m.group(2).split(":", 1)
        costs.append((int(m.group(1).replace(",", "")), file, fn))
    ours = {fn for _, file, fn in costs if own_file(file)}
    if not ours:
        return None
    return sum(ir for ir, _, fn in costs if fn in ours)


def fn_ir(path, name):
    """Exclusive Ir of the functions called name (any file), 0 if none."""
    total = 0
    for line in Path(path).read_text().splitlines():
        m = FN_LINE.match(line)
        if m and m.group(2).rsplit(":", 1)[-1] == name:
            total += int(m.group(1).replace(",", ""))
    return total
