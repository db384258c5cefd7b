#!/usr/bin/env python3
"""Whole-process figures for docs/performance.md.

For each plan folder (from make-plans.sh) and each format: Python's json.load of
plan.json timed in this process, and `planmark render` of it (with schemas.json) timed
as a whole process, in turn (json.load, planmark, json.load, ...) so that both see the
machine alike; the medians of --runs runs each, their ratio, and planmark's peak memory
(maximum resident set size, from three more runs under GNU time).

    cargo build --release && python3 benches/real/measure.py OUTDIR/*/

On a machine shared with other work, run it at real-time priority (`chrt -f 50 python3
benches/real/measure.py ...`, as root) so that the other work does not preempt the runs.
"""
import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def json_load_seconds(plan):
    start = time.perf_counter()
    with open(plan) as f:
        json.load(f)
    return time.perf_counter() - start


def planmark_seconds(args):
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def peak_bytes(args):
    """Planmark's peak RSS over three runs under GNU time (not this process's children:
    a child forked from this Python process would inherit its high-water mark)."""
    peak = 0
    with tempfile.NamedTemporaryFile("r") as report:
        for _ in range(3):
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *args],
                           stdout=subprocess.DEVNULL, check=True)
            report.seek(0)
            peak = max(peak, int(report.read().split()[-1]) * 1024)  # KiB
    return peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--binary", default=str(ROOT / "target/release/planmark"))
    parser.add_argument("--formats", default="markdown,text")
    args = parser.parse_args()
    print("| plan | input | json.load | format | planmark | ratio | peak memory | peak / input |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for folder in args.folders:
        plan = folder / "plan.json"
        size = plan.stat().st_size / 1e6
        for fmt in args.formats.split(","):
            command = [args.binary, "render", "--format", fmt, "--schemas",
                       folder / "schemas.json", plan]
            planmark_seconds(command)  # warm-up
            loads, runs = [], []
            for _ in range(args.runs):
                loads.append(json_load_seconds(plan))
                runs.append(planmark_seconds(command))
            load, seconds = statistics.median(loads), statistics.median(runs)
            peak = peak_bytes(command)
            print(f"| {folder.name} | {size:.1f} MB | {load:.3f} s | {fmt} | {seconds:.3f} s "
                  f"| {seconds / load:.2f} | {peak / 1e6:.0f} MB | {peak / 1e6 / size:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
