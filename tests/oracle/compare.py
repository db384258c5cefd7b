#!/usr/bin/env python3
"""Differential test of planmark's `--policy` against the real OPA engine.

Every policy set of the corpus (tests/fixtures/policy-oracle/sets/<set>/) is run over every
plan, once as `planmark render --format text --policy SET PLAN` (its exit code and the
`planmark: policy…` lines on standard error) and once under OPA's Go engine
(`opa-golib-python-bindings`) with conftest's conventions, as conftest's policy/engine.go
applies them: the `main` package's rules named `^(deny|violation|warn)(_[a-zA-Z0-9]+)*$`,
each queried on its own; a rule whose name (without its `deny_`/`violation_`/`warn_`
prefix) is in `data.main.exception[_][_]` reports nothing; results are strings, or objects
whose `msg` is a string (an object without one is an error), anything else ignored.

Per pair the failures and the warnings are compared as multisets of messages, and an error
on one side must be an error on the other (planmark's exit 2). The oracle evaluates with
strict builtin errors (the bindings offer no other mode), where conftest's default makes
the expression undefined: a pair whose OPA run stops on a builtin error is compared with
planmark in its strict mode (`--policy-strict` when planmark has it) and counted apart.

Prints the agreement figure and every disagreement (set, plan, both results), grouped by
the cause known-differences.txt gives; exits 1 when a pair disagrees that is not listed
there, 0 otherwise. Run `tests/oracle/compare.py --help` for the plan selections.
"""

import argparse
import collections
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fixtures/policy-oracle"
KNOWN = ROOT / "tests/oracle/known-differences.txt"
SHARED = ROOT.parent / "shared/corpus"
SHARED_ROOT = SHARED.parent
NAMESPACE = "main"
RULE = re.compile(r"^(deny|violation|warn)(_[a-zA-Z0-9]+)*$")
FAILURE = re.compile(r"^(deny|violation)(_[a-zA-Z0-9]+)*$")
# A few plans of each kind for the test the suite runs; the rest in a full run.
CI_PLANS = [
    "tests/fixtures/policy/rego-plan.json",
    "tests/fixtures/real-plans/data_sources/plan.json",
    "tests/fixtures/real-plans/nested_modules/plan.json",
    "tests/fixtures/real-plans/removals/plan.json",
]


# ---------------------------------------------------------------- plans


def looks_like_plan(doc):
    return (
        isinstance(doc, dict)
        and "format_version" in doc
        and "provider_schemas" not in doc
        and any(k in doc for k in ("planned_values", "resource_changes", "prior_state"))
    )


def plan_files(selection, shared):
    """The plans of `selection` (ci, fixtures, all), each content once, in path order."""
    global SHARED_ROOT
    # Plans from the shared corpus are named `shared/…` wherever it lies.
    SHARED_ROOT = shared.resolve().parent
    if selection == "ci":
        paths = [CORPUS / "plans"]
        for pattern in CI_PLANS:
            paths += sorted(ROOT.glob(pattern))
    else:
        paths = [CORPUS / "plans", ROOT / "tests/fixtures", ROOT / "examples"]
        if selection == "all":
            if shared.is_dir():
                paths.append(shared)
            else:
                print(f"skipped: {shared} is absent, its plans are not compared")
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*.json") if CORPUS / "sets" not in p.parents)
        elif path.is_file():
            files.append(path)
    seen, plans = set(), []
    for path in files:
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if digest in seen:
            continue
        try:
            doc = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue
        if looks_like_plan(doc):
            seen.add(digest)
            plans.append((path, doc))
    return plans


def finite(value):
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list):
        return all(finite(v) for v in value)
    return True


def name_of(path):
    """The plan's path from the repository, or `shared/…` for the shared corpus."""
    for base, prefix in ((ROOT, ""), (SHARED_ROOT, "shared/")):
        try:
            return prefix + str(path.relative_to(base))
        except ValueError:
            pass
    return str(path)


# ---------------------------------------------------------------- planmark


def escape_line(text):
    """planmark's one-line form of a message (src/input/text.rs `one_line`)."""
    invisible = [
        (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
        (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
        (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0xE0000, 0xE0FFF),
    ]
    out = []
    for c in text:
        code = ord(c)
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif (
            unicodedata.category(c) == "Cc"
            or code in (0x2028, 0x2029)
            or any(lo <= code <= hi for lo, hi in invisible)
        ):
            out.append("\\u{%04X}" % code)
        else:
            out.append(c)
    return "".join(out)


def run_planmark(binary, policy, plan, strict):
    # Verdicts are compared, not speed: a debug build on a busy machine must not time out.
    args = [binary, "render", "--format", "text", "--policy-timeout", "300s",
            "--policy", str(policy), str(plan)]
    if strict:
        args.insert(4, "--policy-strict")
    try:
        out = subprocess.run(args, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"kind": "crash", "detail": "ran past 120 s"}
    stderr = out.stderr.decode("utf-8", "replace")
    if out.returncode == 2:
        return {"kind": "error", "detail": stderr.strip().splitlines()[-1:] or [""]}
    if out.returncode not in (0, 3):
        return {"kind": "crash", "detail": f"exit {out.returncode}: {stderr.strip()[:300]}"}
    failures, warnings, other = [], [], []
    for line in stderr.splitlines():
        if line.startswith("planmark: policy: "):
            failures.append(line[len("planmark: policy: "):])
        elif line.startswith("planmark: policy warning: "):
            warnings.append(line[len("planmark: policy warning: "):])
        else:
            other.append(line)
    result = {"kind": "ok", "failures": sorted(failures), "warnings": sorted(warnings)}
    if (out.returncode == 3) != bool(failures):
        result = {"kind": "crash", "detail": f"exit {out.returncode} with {len(failures)} failures"}
    if other:
        result["notes"] = other
    return result


def has_strict_flag(binary):
    out = subprocess.run([binary, "render", "--help"], capture_output=True, text=True)
    return "--policy-strict" in out.stdout


# ---------------------------------------------------------------- OPA


class Oracle:
    """One policy set loaded in OPA, queried as conftest queries it."""

    def __init__(self, directory):
        from opa_bindings import OpaEngine, OpaError

        self.error_type = OpaError
        self.engine = OpaEngine()
        self.load_error = None
        self.rules = []
        try:
            self.load(directory)
        except OpaError as e:
            self.load_error = f"{e.code}: {e.message}"

    def load(self, directory):
        files = sorted(
            p for p in directory.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(directory).parts)
        )
        parser = type(self.engine)()
        counts = collections.Counter()
        for path in files:
            rel = str(path.relative_to(directory))
            if path.suffix == ".rego" and not path.name.endswith("_test.rego"):
                text = path.read_text()
                self.engine.add_policy(rel, text)
                module = parser.eval_query("m := rego.parse_module(input.f, input.t)", {"f": rel, "t": text})
                module = module[0]["m"]
                package = [t["value"] for t in module["package"]["path"][1:]]
                if package != [NAMESPACE]:
                    continue
                for rule in module.get("rules", []):
                    name = rule["head"].get("name", "")
                    if RULE.match(name):
                        counts[name] += 1
            elif path.suffix in (".json", ".yaml", ".yml"):
                # OPA's loader (conftest --data) puts a file's document at its folder's path.
                folder = ".".join(path.relative_to(directory).parts[:-1])
                if path.suffix == ".json":
                    doc = json.loads(path.read_text())
                else:
                    import yaml

                    doc = yaml.safe_load(path.read_text())
                self.engine.add_data(doc, folder)
        parser.close()
        self.rules = list(counts)

    def check(self, plan):
        """{"kind": "ok", failures, warnings} | {"kind": "error" | "builtin-error", detail}."""
        if self.load_error:
            return {"kind": "error", "detail": self.load_error}
        failures, warnings = [], []
        try:
            for rule in self.rules:
                bare = re.sub(r"^(violation_|deny_|warn_)", "", rule)
                query = f"data.{NAMESPACE}.exception[_][_] == {json.dumps(bare)}"
                if self.engine.eval_query(query, plan):
                    continue
                rows = self.engine.eval_query(f"x := data.{NAMESPACE}.{rule}", plan)
                for row in rows:
                    value = row.get("x")
                    if not isinstance(value, list):
                        continue
                    for item in value:
                        line = message(item, rule)
                        if line is None:
                            continue
                        (failures if FAILURE.match(rule) else warnings).append(escape_line(line))
        except self.error_type as e:
            kind = "builtin-error" if "eval_builtin_error" in e.message else "error"
            return {"kind": kind, "detail": f"{e.code}: {e.message}"}
        except ValueError as e:
            return {"kind": "error", "detail": str(e)}
        return {"kind": "ok", "failures": sorted(failures), "warnings": sorted(warnings)}


def message(item, rule):
    """The line planmark prints for one result (`RESOURCE: MSG (main.RULE)`); None when
    conftest ignores the result."""
    if isinstance(item, str):
        text = item
    elif isinstance(item, dict):
        if not isinstance(item.get("msg"), str):
            raise ValueError(f'{rule}: "msg" field must be present and a string')
        text = item["msg"]
        # planmark's own addition: a string `resource` names the resource in the line.
        if isinstance(item.get("resource"), str):
            text = f"{item['resource']}: {text}"
    else:
        return None
    return f"{text} ({NAMESPACE}.{rule})"


# ---------------------------------------------------------------- comparison


def agree(opa, mark):
    if opa["kind"] in ("error", "builtin-error"):
        return mark["kind"] == "error"
    return (
        mark["kind"] == "ok"
        and opa["failures"] == mark["failures"]
        and opa["warnings"] == mark["warnings"]
    )


def show(result):
    if result["kind"] != "ok":
        detail = result["detail"]
        if isinstance(detail, list):
            detail = " ".join(detail)
        return f"{result['kind']}: {' '.join(detail.split())[:400]}"
    parts = [f"failures {result['failures']}", f"warnings {result['warnings']}"]
    return "; ".join(parts)[:1200]


def read_known(path):
    known = []
    if not path.is_file():
        return known
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or ":" not in parts[2]:
            sys.exit(f"{path}:{number}: want `SET PLAN-GLOB CAUSE: reason`, got {line!r}")
        cause, reason = parts[2].split(":", 1)
        known.append({"set": parts[0], "plan": parts[1], "cause": cause.strip(),
                      "reason": reason.strip(), "used": 0})
    return known


def listed(known, policy, plan):
    for entry in known:
        if fnmatch.fnmatchcase(policy, entry["set"]) and fnmatch.fnmatchcase(plan, entry["plan"]):
            return entry
    return None


def report(records):
    """Each set's disagreements: how many pairs, and the first of them in full."""
    by_set = collections.defaultdict(list)
    for record in records:
        by_set[record[0]].append(record)
    for policy, pairs in sorted(by_set.items()):
        _, plan, opa, mark = pairs[0]
        more = f" (and {len(pairs) - 1} more plans)" if len(pairs) > 1 else ""
        print(f"  {policy} × {plan}{more}")
        print(f"    OPA:      {show(opa)}")
        print(f"    planmark: {show(mark)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--planmark", default=str(ROOT / "target/debug/planmark"))
    parser.add_argument(
        "--plans", choices=["ci", "fixtures", "all"], default="all",
        help="ci: the corpus's plans and a few fixtures; fixtures: every plan under "
        "tests/fixtures and examples; all: those and ../shared/corpus (default)",
    )
    parser.add_argument("--sets", default="*", help="glob of the policy sets to run")
    parser.add_argument(
        "--policy", action="append", default=[],
        help="a policy directory to run instead of the corpus's sets (repeatable), e.g. a "
        "case of tests/fixtures/policy/ to record OPA's verdict with --verbose",
    )
    parser.add_argument(
        "--plan", action="append", default=[],
        help="a plan to run instead of the --plans selection (repeatable)",
    )
    parser.add_argument("--shared", default=str(SHARED))
    parser.add_argument("--known", default=str(KNOWN))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print every pair")
    args = parser.parse_args()

    sets = sorted(
        p for p in (CORPUS / "sets").iterdir()
        if p.is_dir() and fnmatch.fnmatchcase(p.name, args.sets)
    )
    if args.policy:
        sets = [Path(p).resolve() for p in args.policy]
    if args.plan:
        plans = [(Path(p).resolve(), json.loads(Path(p).read_bytes())) for p in args.plan]
    else:
        plans = plan_files(args.plans, Path(args.shared))
    strict_flag = has_strict_flag(args.planmark)

    # Plans planmark refuses without any policy are not policy questions.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        readable = list(pool.map(
            lambda p: subprocess.run([args.planmark, "render", "--format", "text", str(p[0])],
                                     capture_output=True).returncode == 0,
            plans,
        ))
    unreadable = [name_of(p) for (p, _), ok in zip(plans, readable) if not ok]
    plans = [plan for plan, ok in zip(plans, readable) if ok]
    # A number past float64 (1e400) is read by planmark but not by conftest (Go's
    # encoding/json), nor by the bindings: such plans are not compared.
    beyond = [name_of(p) for p, doc in plans if not finite(doc)]
    plans = [(p, doc) for p, doc in plans if finite(doc)]

    known = read_known(Path(args.known))
    pairs = collections.Counter()
    unlisted, by_cause = [], collections.defaultdict(list)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for policy in sets:
            label = policy.name if policy.parent == CORPUS / "sets" else name_of(policy)
            oracle = Oracle(policy)
            expected = [oracle.check(doc) for _, doc in plans]
            strict = [strict_flag and e["kind"] == "builtin-error" for e in expected]
            marks = pool.map(
                lambda job: run_planmark(args.planmark, policy, job[0][0], job[1]),
                zip(plans, strict),
            )
            for (path, _), opa, mark in zip(plans, expected, marks):
                plan = name_of(path)
                same = agree(opa, mark)
                pairs["pairs"] += 1
                pairs["agree"] += same
                if opa["kind"] == "builtin-error":
                    pairs["strict"] += 1
                if args.verbose:
                    print(f"{'=' if same else '≠'} {label} × {plan}: {show(opa)}")
                if same:
                    continue
                record = (label, plan, opa, mark)
                entry = listed(known, label, plan)
                if entry:
                    entry["used"] += 1
                    by_cause[entry["cause"]].append(record)
                else:
                    unlisted.append(record)

    total, good = pairs["pairs"], pairs["agree"]
    share = 100.0 * good / total if total else 100.0
    selection = "given" if args.plan else args.plans
    print(f"policy sets {len(sets)}, plans {len(plans)} ({selection}), pairs {total}")
    if unreadable:
        print(f"plans planmark does not read (left out): {len(unreadable)}")
    if beyond:
        print(f"plans with numbers past float64, which conftest does not read (left out): "
              f"{', '.join(beyond)}")
    print(f"agreement: {good}/{total} = {share:.1f} %"
          f" ({pairs['strict']} pairs stop on a builtin error in OPA's strict mode)")
    for cause in sorted(by_cause):
        print(f"\nknown difference, {cause}:")
        report(by_cause[cause])
    for entry in known:
        ran = any(fnmatch.fnmatchcase(p.name, entry["set"]) for p in sets) and any(
            fnmatch.fnmatchcase(name_of(p), entry["plan"]) for p, _ in plans
        )
        if ran and not entry["used"]:
            print(f"\nnote: no difference in this selection for {entry['set']} {entry['plan']}"
                  f" ({entry['cause']}); remove it from {args.known} if a full run agrees")
    if unlisted:
        print(f"\nDISAGREEMENTS NOT IN {args.known}:")
        report(unlisted)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
