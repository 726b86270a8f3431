#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Merge the mirror's benchmark results into one table and one JSON file.

Inputs: Google Benchmark's JSON (repetitions with aggregates) and, per row,
for two runs of N1 and N2 I/Os: callgrind's totals, callgrind_annotate's
exclusive Ir per function and the driver's tallies.  Every row must have
both measurements, and the WRs and MRs per I/O the two programs counted
must agree; otherwise this exits non-zero.

"core Ir/IO" counts the instructions of functions defined in core/*.c and
drivers/*.c (kernel helpers inlined into them included), leaving out the
mirror's verbs shims, its counting allocator and libc.

usage: report.py GBENCH_JSON CALLGRIND_DIR N1 N2 OUT_JSON TOP
"""
import json
import re
import sys
from pathlib import Path

from callgrind_ir import own_ir


def gbench_rows(path):
    """Median CPU time, its coefficient of variation, and the counters."""
    data = json.loads(Path(path).read_text())
    rows = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"report: {b['name']}: {b.get('error_message')}")
        if b.get("run_type") != "aggregate":
            continue
        name = b["run_name"].removeprefix("io/")
        unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        r = rows.setdefault(name, {})
        if b["aggregate_name"] == "median":
            r["ns_per_io"] = b["cpu_time"] * unit
            r["wrs_per_io"] = b["wrs_per_io"]
            r["mrs_per_io"] = b["mrs_per_io"]
            r["repetitions"] = b["repetitions"]
        elif b["aggregate_name"] == "cv":
            r["cv"] = b["cpu_time"]
    return rows, data.get("context", {})


def callgrind_total(path):
    """Ir of a whole run: the 'totals:' line callgrind writes last."""
    for line in Path(path).read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    sys.exit(f"report: no totals line in {path}")


def core_ir(path, top):
    """Exclusive Ir of the functions core/ and drivers/ define."""
    ir = own_ir(path, lambda f: re.match(r"(core|drivers)/[^/]+\.c$",
                                         f.removeprefix(top + "/")))
    if ir is None:
        sys.exit(f"report: no core function in {path}")
    return ir


def tally(path):
    """ios, wrs and mrs the driver printed for its run."""
    m = re.search(r"ios=(\d+) wrs=(\d+) mrs=(\d+)", Path(path).read_text())
    if not m:
        sys.exit(f"report: no tally in {path}")
    return [int(x) for x in m.groups()]


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    gbench, cgdir, n1, n2, out, top = sys.argv[1:]
    n1, n2, cgdir = int(n1), int(n2), Path(cgdir)
    rows, context = gbench_rows(gbench)
    order = (cgdir / "rows").read_text().split()
    if not order:
        sys.exit("report: no rows")
    result = []
    for name in order:
        if name not in rows or "ns_per_io" not in rows[name]:
            sys.exit(f"report: {name}: no Google Benchmark result")
        g = rows[name]
        stem = cgdir / name.replace("/", "_").replace("@", "_")
        ir = [callgrind_total(f"{stem}.{n}.out") for n in (n1, n2)]
        core = [core_ir(f"{stem}.{n}.fn", top) for n in (n1, n2)]
        t1, t2 = (tally(f"{stem}.{n}.log") for n in (n1, n2))
        ios = t2[0] - t1[0]
        if ios != n2 - n1:
            sys.exit(f"report: {name}: {ios} I/Os counted, not {n2 - n1}")
        wrs, mrs = (t2[1] - t1[1]) / ios, (t2[2] - t1[2]) / ios
        # Every 256th registration of an MR gets a fresh device MR (keys do
        # not recur), which needs no LOCAL_INV of a lazily kept key: runs
        # of different lengths may differ by that WR per 256 MR uses.
        slack = mrs / 256 + 1e-9
        if abs(wrs - g["wrs_per_io"]) > slack or abs(mrs - g["mrs_per_io"]) > 1e-9:
            sys.exit(f"report: {name}: WRs/MRs per I/O differ between "
                     f"the two programs ({wrs}/{mrs} vs "
                     f"{g['wrs_per_io']}/{g['mrs_per_io']})")
        backend_profile, direction, shape = name.split("/")
        backend, profile = backend_profile.split("@")
        result.append({
            "row": name,
            "backend": backend,
            "profile": profile,
            "dir": direction,
            "shape": shape,
            "ns_per_io": round(g["ns_per_io"], 1),
            "ns_per_io_cv": round(g.get("cv", 0.0), 4),
            "ir_per_io": round((ir[1] - ir[0]) / ios, 1),
            "core_ir_per_io": round((core[1] - core[0]) / ios, 1),
            "wrs_per_io": wrs,
            "mrs_per_io": mrs,
        })

    doc = {
        "what": "rdma_io_ctx_init + rdma_io_ctx_wrs + rdma_io_ctx_destroy "
                "per I/O in the userspace mirror, chain not posted",
        "ns_per_io": "Google Benchmark, median CPU time of "
                     f"{rows[order[0]]['repetitions']} repetitions",
        "ir_per_io": f"callgrind, (Ir({n2}) - Ir({n1})) / {n2 - n1}",
        "core_ir_per_io": "the same, functions of core/ and drivers/ only",
        "host": {k: context.get(k) for k in
                 ("host_name", "num_cpus", "mhz_per_cpu", "library_build_type")},
        "rows": result,
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(doc, indent=1) + "\n")

    head = (f"{'row':<30} {'ns/IO':>7} {'cv':>6} {'Ir/IO':>7} "
            f"{'core Ir':>7} {'WRs/IO':>6} {'MRs/IO':>6}")
    print(head)
    print("-" * len(head))
    for r in result:
        print(f"{r['row']:<30} {r['ns_per_io']:>7.0f} "
              f"{100 * r['ns_per_io_cv']:>5.1f}% {r['ir_per_io']:>7.0f} "
              f"{r['core_ir_per_io']:>7.0f} "
              f"{r['wrs_per_io']:>6.2f} {r['mrs_per_io']:>6.2f}")


if __name__ == "__main__":
    main()
