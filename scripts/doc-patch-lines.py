#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the port patches' line counts Documentation/ulp-guide.rst quotes.

    scripts/doc-patch-lines.py [TOP]

The guide's tables give, per patch of ulp-ports/, the lines it adds and
removes ("``name.patch`` (side)  upstream  added  removed").  They are
counted as scripts/ulp-ports.sh prints them: from the diff's first
"--- " line on, "+" and "-" lines that are not file headers and not
empty.  Every patch of ulp-ports/ must have a row, every row a patch, and
the figures must be the patch's.  And each port (the patches of one
directory of ulp-ports/ together) must remove more lines than it adds (the
ports' rule, Documentation/ulp-guide.rst).  Exit status 1 on a difference, with one
line per difference.
"""

import glob
import os
import re
import sys


def count(path):
    """Return (added, removed) as scripts/ulp-ports.sh counts them."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    first = next((i for i, l in enumerate(lines) if l.startswith("--- ")),
                 len(lines))
    body = lines[first:]
    added = sum(1 for l in body if re.match(r"\+[^+]", l))
    removed = sum(1 for l in body if re.match(r"-[^-]", l))
    return added, removed


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(top, "Documentation/ulp-guide.rst"),
              encoding="utf-8") as f:
        guide = f.read()
    row = re.compile(r"^``([\w.-]+\.patch)`` \(\w+\)\s+[\d,]+ lines\s+(\d+)\s+(\d+)\s*$",
                     re.M)
    quoted = {m.group(1): (int(m.group(2)), int(m.group(3)))
              for m in row.finditer(guide)}
    patches = {os.path.basename(p): p
               for p in glob.glob(os.path.join(top, "ulp-ports/*/*.patch"))}
    bad = 0
    for name in sorted(set(quoted) | set(patches)):
        if name not in patches:
            print(f"doc-patch-lines: ulp-guide.rst quotes {name}, which ulp-ports/ lacks")
        elif name not in quoted:
            print(f"doc-patch-lines: ulp-guide.rst has no row for {name}")
        elif count(patches[name]) != quoted[name]:
            a, r = count(patches[name])
            print(f"doc-patch-lines: {name}: the guide says +{quoted[name][0]} "
                  f"-{quoted[name][1]}, the patch is +{a} -{r}")
        else:
            continue
        bad = 1
    ports = {}
    for path in patches.values():
        a, r = count(path)
        port = os.path.basename(os.path.dirname(path))
        pa, pr = ports.get(port, (0, 0))
        ports[port] = (pa + a, pr + r)
    for port, (a, r) in sorted(ports.items()):
        if a >= r:
            print(f"doc-patch-lines: the {port} port adds as many lines as it "
                  f"removes, or more (+{a} -{r})")
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
