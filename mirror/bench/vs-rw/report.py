#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench-vs-rw: merge the callgrind runs into one table and one JSON.

Inputs, per row IMPL@PROFILE/DIR/SHAPE and for two runs of N1 and N2
measured I/Os (vs_rw_count): callgrind's output (total Ir, and calls to the
mirror's lock, module-reference and allocation functions),
callgrind_annotate's exclusive Ir per function, and the driver's line.

api_ir_per_io   (Ir(N2) - Ir(N1)) / (N2 - N1), every instruction but
                kzalloc()'s zeroing (zero_ir_per_io: the kernel zeroes
                with one rep stosb, which valgrind counts per byte; the
                mirror's benchmark allocator zeroes 8 bytes a store in
                mirror_zero(), counted apart)
own_ir_per_io   the same, functions defined in the implementation's own
                files (mrcore: core/*.c, drivers/*.c; rdma_rw: rw.c,
                mr_pool.c), kernel helpers inlined into them included
locks_per_io    calls to the mirror's mutex_lock() (every spin_lock*() and
                mutex_lock() of the shims)
module_gets_per_io  calls to try_module_get()
allocs_per_io   calls to the mirror's allocator (kmalloc, kzalloc,
                kcalloc, kmalloc_array all reach mirror_kmalloc() or
                mirror_kzalloc())
frees_per_io    calls to kfree()

Exits non-zero if a row is missing, unverified, or its counts disagree.

usage: report.py CALLGRIND_DIR N1 N2 OUT_JSON TOP RW_SRC META_JSON
(with mirror/bench/ on PYTHONPATH, for callgrind_ir)
"""
import json
import math
import re
import sys
from pathlib import Path

import callgrind_ir

COUNTED_CALLS = {"mutex_lock": "locks", "try_module_get": "module_gets",
                 "mirror_kzalloc": "allocs", "mirror_kmalloc": "allocs",
                 "kfree": "frees"}
COUNTED = sorted(set(COUNTED_CALLS.values()))
ALLOCATOR = ("kernel-priced (mirror/sim/shims/kernel.cpp, benchmark builds): "
             "the kmalloc caches' size classes, each a LIFO free list as "
             "SLUB's per-CPU fast path, no tracking but a live count; "
             "kzalloc()'s zeroing counted apart (zero_ir_per_io)")


def fail(msg):
    sys.exit(f"bench-vs-rw: {msg}")


def callgrind(path):
    """Total Ir, and calls to the functions of COUNTED_CALLS."""
    names, callee, total = {}, None, None
    calls = {k: 0 for k in COUNTED}
    for line in Path(path).read_text().splitlines():
        if line.startswith(("fn=", "cfn=")):
            m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line)
            if m.group(2) is not None:
                names[m.group(1)] = m.group(2)
            if line.startswith("cfn="):
                callee = names.get(m.group(1))
        elif line.startswith("calls=") and callee in COUNTED_CALLS:
            calls[COUNTED_CALLS[callee]] += int(line.split()[0][6:])
        elif line.startswith(("totals:", "summary:")):
            total = int(line.split()[1])
    if total is None:
        fail(f"no totals line in {path}")
    return total, calls


def own_ir(path, own_file):
    """Exclusive Ir of the functions defined in files own_file() accepts."""
    ir = callgrind_ir.own_ir(path, own_file)
    if ir is None:
        fail(f"no function of the implementation in {path}")
    return ir


def driver_line(path):
    text = Path(path).read_text()
    m = re.search(r"^(\S+) (ios=.*)$", text, re.M)
    if not m:
        fail(f"no result line in {path}")
    return dict(kv.split("=", 1) for kv in m.group(2).split())


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    cgdir, n1, n2, out, top, rw_src, meta = sys.argv[1:]
    n1, n2, cgdir = int(n1), int(n2), Path(cgdir)
    top, rw_src = top.rstrip("/") + "/", rw_src.rstrip("/") + "/"
    # callgrind_annotate names a file relative to the top when it can.
    rel = lambda f: f.removeprefix(top)
    own = {
        "mrcore": lambda f: re.match(r"(core|drivers)/[^/]+\.c$", rel(f)),
        "rdma_rw": lambda f: (top + rel(f)).removeprefix(rw_src) in
        ("drivers/infiniband/core/rw.c", "drivers/infiniband/core/mr_pool.c"),
    }
    order = (cgdir / "rows").read_text().split()
    if not order:
        fail("no rows")

    rows, bad = [], []
    for name in order:
        impl, rest = name.split("@")
        profile, direction, shape = rest.split("/")
        stem = cgdir / name.replace("/", "_").replace("@", "_")
        runs = [callgrind(f"{stem}.{n}.out") for n in (n1, n2)]
        own_runs = [own_ir(f"{stem}.{n}.fn", own[impl]) for n in (n1, n2)]
        zero_runs = [callgrind_ir.fn_ir(f"{stem}.{n}.fn", "mirror_zero")
                     for n in (n1, n2)]
        d1, d2 = (driver_line(f"{stem}.{n}.log") for n in (n1, n2))
        ios = int(d2["ios"]) - int(d1["ios"])
        if ios != n2 - n1:
            fail(f"{name}: {ios} I/Os counted, not {n2 - n1}")
        per = lambda a, b: (b - a) / ios
        r = {
            "row": name,
            "impl": impl,
            "profile": profile,
            "dir": direction,
            "shape": shape,
            "chain": d2["chain"],
            "backend": d2["backend"],
            "wrs_per_io": per(int(d1["wrs"]), int(d2["wrs"])),
            "mrs_per_io": int(d2["chain_mrs"]),
            "api_ir_per_io": round(per(runs[0][0] - zero_runs[0],
                                       runs[1][0] - zero_runs[1]), 1),
            "zero_ir_per_io": round(per(*zero_runs), 1),
            "own_ir_per_io": round(per(*own_runs), 1),
            **{f"{k}_per_io": per(runs[0][1][k], runs[1][1][k])
               for k in COUNTED},
            "verified": d1["verified"] == "1" and d2["verified"] == "1",
            "inv_fixup": int(d2["fixups"]) > 0,
            "strict_status": d2["strict"],
        }
        if d2["chain_first"] != d2["chain"]:
            r["chain_first_io"] = d2["chain_first"]
        if not r["verified"]:
            bad.append(f"{name}: data or completion check failed")
        # A device MR replaced after 256 keys has no lazily kept key left
        # to kill: the I/O that maps it first skips the chain's LOCAL_INV,
        # one I/O in 256 (in a count of 256 turns of the pool).
        skipped = int(d2["chain_wrs"]) - r["wrs_per_io"]
        if (not 0 <= skipped * 256 <= d2["chain"].count("LOCAL_INV") or
                r["mrs_per_io"] != int(d2["chain_regs"])):
            bad.append(f"{name}: {r['wrs_per_io']} WRs / {r['mrs_per_io']} "
                       f"MRs per I/O, but the chain {r['chain']} has "
                       f"{d2['chain_wrs']} / {d2['chain_regs']} REG_MR")
        rows.append(r)

    by_case = {}
    for r in rows:
        by_case.setdefault(f"{r['profile']}/{r['dir']}/{r['shape']}", {})[r["impl"]] = r
    pairs = []
    for case, p in by_case.items():
        if set(p) != {"mrcore", "rdma_rw"}:
            continue
        m, w = p["mrcore"], p["rdma_rw"]
        pairs.append({
            "case": case,
            "same_chain": m["chain"] == w["chain"],
            "api_ir_ratio": round(m["api_ir_per_io"] / w["api_ir_per_io"], 3),
            "own_ir_ratio": round(m["own_ir_per_io"] / w["own_ir_per_io"], 3),
        })

    doc = json.loads(Path(meta).read_text())
    doc.update({
        "what": "per I/O: init + post (nothing chained, completion on the "
                "last WR; rdma_io_ctx_post() / rdma_rw_ctx_post() to a "
                "simulated HCA that takes the WRs and runs none) + destroy, "
                "steady state; mrcore: rdma_io_ctx_*(), backend chosen by "
                "its cost model; rdma_rw: ib_core's rdma_rw_ctx_*()",
        "allocator": ALLOCATOR,
        "api_ir_per_io": f"callgrind, (Ir({n2}) - Ir({n1})) / {n2 - n1}, "
                         "kzalloc()'s zeroing apart (zero_ir_per_io)",
        "mrs_per_io": "MRs the steady-state checked I/O took from its pool "
                      "(read outside the measured loop)",
        "own_ir_per_io": "the same, functions of core/*.c + drivers/*.c "
                         "(mrcore) or rw.c + mr_pool.c (rdma_rw) only",
        "verified": "checked I/Os posted on the simulated HCA, drained, "
                    "completion and bytes compared, before measuring",
        "inv_fixup": "rdma_rw's READ_WITH_INV carried the key before the "
                     "registered one; the harness set it on the checked I/Os "
                     "only (never in the measured ones); strict_status is "
                     "the completion of one chain posted as built",
        "rows": rows,
        "pairs": pairs,
    })
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(doc, indent=1) + "\n")

    head = (f"{'case':<22} {'chain mrcore':<22} {'chain rdma_rw':<22} "
            f"{'WRs':>5} {'MRs':>5} {'api Ir/IO m':>11} {'r':>6} {'m/r':>5} "
            f"{'own Ir/IO m':>11} {'r':>6} {'m/r':>5} {'allocs':>6} "
            f"{'zero Ir':>9} {'locks':>5} {'refs':>5}  ok")
    print(head)
    print("-" * len(head))
    for p in pairs:
        m, w = by_case[p["case"]]["mrcore"], by_case[p["case"]]["rdma_rw"]
        ok = "ok" if m["verified"] and w["verified"] else "FAIL"
        if m["inv_fixup"] or w["inv_fixup"]:
            ok += "*"
        fmt = lambda k: f"{m[k]:g}/{w[k]:g}"
        print(f"{p['case']:<22} {m['chain']:<22} {w['chain']:<22} "
              f"{fmt('wrs_per_io'):>5} {fmt('mrs_per_io'):>5} "
              f"{m['api_ir_per_io']:>11.0f} {w['api_ir_per_io']:>6.0f} "
              f"{p['api_ir_ratio']:>5.2f} "
              f"{m['own_ir_per_io']:>11.0f} {w['own_ir_per_io']:>6.0f} "
              f"{p['own_ir_ratio']:>5.2f} "
              f"{fmt('allocs_per_io'):>6} {fmt('zero_ir_per_io'):>9} "
              f"{fmt('locks_per_io'):>5} {fmt('module_gets_per_io'):>5}  {ok}")
    print(f"allocator: {ALLOCATOR}")
    for label, sel in (("same chain", True), ("different chain", False)):
        ps = [p for p in pairs if p["same_chain"] == sel]
        if ps:
            print(f"geometric mean m/r, {label} ({len(ps)} cases): api "
                  f"{geomean([p['api_ir_ratio'] for p in ps]):.2f}, own "
                  f"{geomean([p['own_ir_ratio'] for p in ps]):.2f}")
    if any(r["inv_fixup"] for r in rows):
        st = sorted({r["strict_status"] for r in rows if r["inv_fixup"]})
        print("* rdma_rw's READ_WITH_INV invalidates the key before the one "
              "it registers; posted as built it completes with "
              f"{'/'.join(st)} on the simulated HCA: the checked I/Os had "
              "it set to the registered key (never the measured ones).")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
