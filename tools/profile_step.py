#!/usr/bin/env python3
"""Kernels of one training step, from two ncu runs of the same program that differ only in the
number of steps (A and B > A): every kernel's count and GPU time in run B minus run A, divided by
B - A. Setup, data loading and the evaluation pass are the same in both runs and cancel.

Usage: profile_step.py A.csv B.csv STEPS_A STEPS_B LABEL > LABEL.json
The CSV files are `ncu --csv --print-units base --metrics gpu__time_duration.sum` output."""
import csv, json, sys
from collections import defaultdict


def kernels(path):
    count, ns = defaultdict(int), defaultdict(float)
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own messages start with ==PROF==
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"]
        name = name if len(name) <= 90 else name[:87] + "..."
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        scale = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}
        count[name] += 1
        ns[name] += value * scale.get(unit, 1)
    return count, ns


def main():
    a_path, b_path, steps_a, steps_b, label = sys.argv[1:6]
    steps = int(steps_b) - int(steps_a)
    ca, ta = kernels(a_path)
    cb, tb = kernels(b_path)
    rows = []
    for name in set(cb) | set(ca):
        n = (cb.get(name, 0) - ca.get(name, 0)) / steps
        us = (tb.get(name, 0.0) - ta.get(name, 0.0)) / steps / 1e3
        if n > 0.01:
            rows.append({"kernel": name, "per_step": round(n, 2), "us_per_step": round(us, 2)})
    rows.sort(key=lambda r: -r["us_per_step"])
    out = {"label": label, "steps": steps, "launches_per_step": round(sum(r["per_step"] for r in rows), 1),
           "gpu_us_per_step": round(sum(r["us_per_step"] for r in rows), 1), "kernels": rows}
    print(json.dumps(out, indent=1))
    print(f"{label}: {out['launches_per_step']} launches, {out['gpu_us_per_step']} us of GPU time "
          f"per step", file=sys.stderr)
    for r in rows[:12]:
        print(f"  {r['us_per_step']:8.2f} us {r['per_step']:5.1f}x  {r['kernel']}", file=sys.stderr)


if __name__ == "__main__":
    main()
