#!/usr/bin/env python3
"""Whole-process figures for docs/performance.md.

For each plan folder (from make-plans.sh): Python's json.load time on plan.json, then
planmark's Markdown and text renders of it (with schemas.json): the best wall time of
--runs runs each, and planmark's peak memory (maximum resident set size, from three
more runs under GNU time).

    cargo build --release && python3 benches/real/measure.py OUTDIR/*/
"""
import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def json_load_seconds(plan, runs):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        with open(plan) as f:
            json.load(f)
        best = min(best, time.perf_counter() - start)
    return best


def planmark(binary, fmt, folder, runs):
    """Best wall seconds over `runs` runs of `planmark render`, and its peak RSS in bytes.

    The times are of planmark alone (run straight from here); the peak comes from
    separate runs under GNU time, whose own start would otherwise count in the time (about
    1 ms), and not from this process's children (a child forked from this Python process
    would inherit its high-water mark: json.load of a big plan takes gigabytes).
    """
    args = [binary, "render", "--format", fmt, "--schemas", folder / "schemas.json",
            folder / "plan.json"]
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - start)
    peak = 0
    with tempfile.NamedTemporaryFile("r") as report:
        for _ in range(3):
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *args],
                           stdout=subprocess.DEVNULL, check=True)
            report.seek(0)
            peak = max(peak, int(report.read().split()[-1]) * 1024)  # KiB
    return best, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary", default=str(ROOT / "target/release/planmark"))
    args = parser.parse_args()
    print("| plan | input | json.load | format | planmark | ratio | peak memory | peak / input |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for folder in args.folders:
        plan = folder / "plan.json"
        size = plan.stat().st_size / 1e6
        # Best of as many runs as planmark gets: the two bests are compared.
        baseline = json_load_seconds(plan, args.runs)
        for fmt in ("markdown", "text"):
            seconds, peak = planmark(args.binary, fmt, folder, args.runs)
            print(f"| {folder.name} | {size:.1f} MB | {baseline:.3f} s | {fmt} | {seconds:.3f} s "
                  f"| {seconds / baseline:.2f} | {peak / 1e6:.0f} MB | {peak / 1e6 / size:.2f} |")


if __name__ == "__main__":
    main()
