#!/usr/bin/env python3
"""The mutation run (issue 18, part 1): plants each mutant of mutation/mutants.json, one at a
time, in a scratch worktree and asks hasim, as a user would, whether anything is wrong.

Called by scripts/mutation.sh (see its header for usage). Stdlib only.

Per mutant, in this order (each stage runs only while the mutant is still alive, except that
`check` and `run` always both run, being cheap, so the matrix names every scenario that
catches it):
  1. hasim check over scenarios/check/*.json (fixed --runs and --seed);
  2. hasim run on every scenario with a golden output: a verdict that differs from the golden
     (a new violation or one gone) kills; a changed trace hash, event count or first-violation
     time with equal verdicts is "golden trace only";
  3. the studies (upgrade-skew, failover) on few trials, every cell's figures against the
     unmutated baseline's interval;
  4. the unit tests (hasim_tests, minus the [golden] test, which stage 2 already stands for).
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

EXIT_OK, EXIT_SURVIVORS, EXIT_ERROR = 0, 1, 2

# Trials per study cell, check runs per check scenario. Measured on the 2-core machine: see the
# README's "Mutation score" section. --quick (CI) skips the studies and runs fewer checks.
CHECK_RUNS, CHECK_RUNS_QUICK = 500, 100
STUDY_TRIALS = 200
SEED = 1
# A single command that runs this long is a hang (a mutant can make a model spin).
COMMAND_TIMEOUT_S = 900

# Which per-trial columns of STUDY.trials.csv are compared, and how. "p": a 0/1 outcome,
# compared as a proportion; "mean": a duration, compared as a mean over the trials that have
# it. Chosen to be the figures each study's table reports.
STUDY_FIGURES = {
    "upgrade-skew": {
        "violated": "p",          # P(at least one no-skew violation)
        "kcmViolated": "p",       # the same for the KCM lease alone
        "violationTimeNs": "mean",  # violation time, over the trials that violate
    },
    "failover": {
        "dualLeader": "p",        # P(two acting leaders)
        "harmful": "p",           # ... both writing
        "recovered": "p",         # P(a leader acts again)
        "unavailableNs": "mean",  # time without a working leader
    },
}
# Family-wise false-kill rate per mutant for the studies: an equivalent mutant that changes
# only random draws must not count as killed. Each figure's interval is a Bonferroni-corrected
# prediction interval for a second, independent run of the same code (hence the sqrt(2)).
STUDY_ALPHA = 0.01


class Fatal(Exception):
    """An error that stops the run with exit code 2 and a message naming the fix."""


def log(msg):
    print(f"mutation: {msg}", file=sys.stderr, flush=True)


def sh(cmd, cwd=None, timeout=COMMAND_TIMEOUT_S, env=None):
    """Runs a command, returns (returncode, stdout+stderr). A timeout gives returncode None."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return None, out


# --- mutants ---------------------------------------------------------------------------------

REQUIRED = ("name", "system", "file", "original", "replacement", "bug")


def load_mutants(path):
    try:
        with open(path) as f:
            mutants = json.load(f)
    except (OSError, ValueError) as e:
        raise Fatal(f"{path}: cannot read the mutant list: {e}")
    if not isinstance(mutants, list):
        raise Fatal(f"{path}: expected a JSON array of mutants")
    seen = set()
    for i, m in enumerate(mutants):
        missing = [k for k in REQUIRED if not isinstance(m.get(k), str)]
        if missing:
            raise Fatal(f"{path}: mutant #{i} ({m.get('name', '?')}) lacks {', '.join(missing)}")
        if m["name"] in seen:
            raise Fatal(f"{path}: two mutants are named {m['name']}")
        if m["original"] == m["replacement"]:
            raise Fatal(f"{path}: mutant {m['name']} replaces its text with itself")
        seen.add(m["name"])
    return mutants


def check_applies(mutants, src):
    """Every mutant's original text must occur exactly once in its file at HEAD."""
    bad = []
    for m in mutants:
        path = os.path.join(src, m["file"])
        try:
            with open(path) as f:
                count = f.read().count(m["original"])
        except OSError:
            bad.append(f"{m['name']}: {m['file']} does not exist")
            continue
        if count != 1:
            bad.append(f"{m['name']}: its original text occurs {count} times in {m['file']}"
                       " (must be exactly once; update mutation/mutants.json)")
    return bad


# --- the scratch worktree --------------------------------------------------------------------

class Scratch:
    def __init__(self, root, head):
        self.root = root
        self.head = head
        self.dir = os.path.join(root, ".mutation")
        self.src = os.path.join(self.dir, "src")
        self.build = os.path.join(self.dir, "build")
        self.built_tests = False

    def prepare(self):
        os.makedirs(self.dir, exist_ok=True)
        sh(["git", "worktree", "prune"], cwd=self.root)
        if os.path.exists(os.path.join(self.src, ".git")):
            # A kept scratch worktree: move it to HEAD and drop any mutant left in it (a run
            # killed mid-mutant); the build dir stays, so the rebuild is incremental.
            rc, out = sh(["git", "checkout", "--quiet", "--force", "--detach", self.head],
                         cwd=self.src)
            if rc != 0:
                raise Fatal(f"cannot reset the scratch worktree {self.src}: {out.strip()}; "
                            "delete .mutation/ and run again")
            sh(["git", "clean", "-fdq"], cwd=self.src)
        else:
            if os.path.exists(self.src):
                shutil.rmtree(self.src)
            rc, out = sh(["git", "worktree", "add", "--quiet", "--detach", self.src, self.head],
                         cwd=self.root)
            if rc != 0:
                raise Fatal(f"cannot create the scratch worktree {self.src}: {out.strip()}")
        # Tests read ../shared/ beside the source tree (the raft transcripts): give the scratch
        # tree the same neighbour as the repository.
        shared = os.path.join(os.path.dirname(self.root), "shared")
        link = os.path.join(self.dir, "shared")
        if os.path.isdir(shared) and not os.path.exists(link):
            os.symlink(shared, link)
        if not os.path.exists(os.path.join(self.build, "build.ninja")):
            log(f"configuring {self.build} (once; later builds are incremental)")
            # Release without debug info and without -Werror: a plausible mutant may leave an
            # unused variable, and is still a real program.
            rc, out = sh(["cmake", "-S", self.src, "-B", self.build, "-G", "Ninja",
                          "-DCMAKE_BUILD_TYPE=Release", "-DHASIM_WERROR=OFF",
                          "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"])
            if rc != 0:
                raise Fatal(f"cmake failed in {self.build}:\n{tail(out)}")

    def make(self, targets):
        return sh(["cmake", "--build", self.build, "-j", str(os.cpu_count() or 2), "--target",
                   *targets], timeout=3600)

    def hasim(self):
        return os.path.join(self.build, "hasim")

    def remove(self):
        sh(["git", "worktree", "remove", "--force", self.src], cwd=self.root)
        shutil.rmtree(self.dir, ignore_errors=True)
        sh(["git", "worktree", "prune"], cwd=self.root)


def tail(text, n=15):
    return "\n".join(text.rstrip().splitlines()[-n:])


class Applied:
    """A mutant written into the scratch worktree; the original file comes back on exit."""

    def __init__(self, scratch, mutant):
        self.path = os.path.join(scratch.src, mutant["file"])
        self.mutant = mutant

    def __enter__(self):
        with open(self.path) as f:
            self.text = f.read()
        with open(self.path, "w") as f:
            f.write(self.text.replace(self.mutant["original"], self.mutant["replacement"], 1))
        return self

    def __exit__(self, *exc):
        with open(self.path, "w") as f:
            f.write(self.text)


# --- what users run --------------------------------------------------------------------------

def scenario_files(src, sub=None):
    base = os.path.join(src, "scenarios", sub) if sub else os.path.join(src, "scenarios")
    found = []
    for d, _, files in os.walk(base):
        for name in files:
            if name.endswith(".json") and name != "schema.json":
                found.append(os.path.relpath(os.path.join(d, name), src))
    return sorted(found)


def run_check(hasim, src, scenario, runs, out_dir):
    """hasim check: returns {"violations": {property: runs}, "status": ok|crash}."""
    shutil.rmtree(out_dir, ignore_errors=True)
    # No shrinking: which property broke is the answer; a minimal schedule is not needed here.
    rc, out = sh([hasim, "check", os.path.join(src, scenario), "--runs", str(runs), "--seed",
                  str(SEED), "--jobs", str(os.cpu_count() or 2), "--out", out_dir, "--force",
                  "--quiet", "--max-shrink-steps", "0"])
    summary = os.path.join(out_dir, "check.json")
    if rc not in (0, 1) or not os.path.exists(summary):
        return {"status": "crash", "detail": f"exit {rc}: {tail(out, 3)}"}
    with open(summary) as f:
        data = json.load(f)
    return {"status": "ok", "violations": data.get("violationsByProperty", {}),
            "incomplete": data.get("incompleteRuns", 0)}


RUN_LINE = re.compile(r"^  (VIOLATED|held)\s+(\S+)\s*$")
AT_LINE = re.compile(r"^\s+at t=([0-9.]+)s:")
TRACE_LINE = re.compile(r"^trace\s+([0-9,]+) events, hash ([0-9a-f]+)")


def run_scenario(hasim, src, scenario):
    """hasim run, parsed into the golden file's terms: {property: None | first-violation time}."""
    rc, out = sh([hasim, "run", os.path.join(src, scenario)])
    result = {"verdicts": {}, "events": None, "hash": None, "stopped": False}
    last = None
    for line in out.splitlines():
        m = RUN_LINE.match(line)
        if m:
            last = m.group(2)
            result["verdicts"][last] = None if m.group(1) == "held" else "?"
            continue
        m = AT_LINE.match(line)
        if m and last is not None and result["verdicts"].get(last) == "?":
            result["verdicts"][last] = m.group(1)
            continue
        m = TRACE_LINE.match(line)
        if m:
            result["events"] = int(m.group(1).replace(",", ""))
            result["hash"] = m.group(2)
        if line.startswith("STOPPED"):
            result["stopped"] = True
    result["status"] = "ok" if rc in (0, 1) and result["hash"] and not result["stopped"] else "crash"
    if result["status"] != "ok":
        result["detail"] = f"exit {rc}: {tail(out, 3)}"
    return result


GOLDEN_VIOLATED = re.compile(r"^violated\s+(\S+) first at t=([0-9.]+)s$")
GOLDEN_HELD = re.compile(r"^held\s+(\S+)$")


def read_golden(path):
    verdicts, events, trace = {}, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if m := GOLDEN_VIOLATED.match(line):
                verdicts[m.group(1)] = m.group(2)
            elif m := GOLDEN_HELD.match(line):
                verdicts[m.group(1)] = None
            elif line.startswith("events"):
                events = int(line.split()[1])
            elif line.startswith("trace"):
                trace = line.split()[1]
    return {"verdicts": verdicts, "events": events, "hash": trace}


def run_study(hasim, study, trials, out_dir):
    """hasim report STUDY; returns {cell: {column: [values]}} from STUDY.trials.csv."""
    shutil.rmtree(out_dir, ignore_errors=True)
    rc, out = sh([hasim, "report", study, "--trials", str(trials), "--seed", str(SEED), "--jobs",
                  str(os.cpu_count() or 2), "--out", out_dir, "--force", "--quiet"])
    path = os.path.join(out_dir, f"{study}.trials.csv")
    if rc != 0 or not os.path.exists(path):
        return {"status": "crash", "detail": f"exit {rc}: {tail(out, 3)}"}
    cells = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            cell = cells.setdefault(row["cell"], {})
            for column, kind in STUDY_FIGURES[study].items():
                value = row.get(column, "")
                if value in ("", None):
                    continue
                value = float(value)
                if kind == "mean":
                    # Durations in seconds; a zero violation time is a trial without one.
                    if column == "violationTimeNs" and value <= 0:
                        continue
                    value /= 1e9
                cell.setdefault(column, []).append(value)
    return {"status": "ok", "cells": cells}


def figure(kind, values, n):
    """A cell's figure and its standard error: a proportion over n trials or a mean."""
    if kind == "p":
        k = sum(1 for v in values if v != 0)
        p = k / n if n else 0.0
        # Never a zero-width interval: the Wilson-style floor of 1/n keeps a 0% or 100%
        # baseline from killing every mutant that flips a single trial by chance.
        se = math.sqrt(max(p * (1 - p), 1.0 / n) / n) if n else 0.0
        return p, se
    if not values:
        return None, None
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1) if len(values) > 1 else 0.0
    return mean, math.sqrt(var / len(values))


def z_for(alpha):
    """Two-sided normal quantile (bisection on erfc: stdlib has no inverse)."""
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def study_intervals(baseline_studies, trials):
    """For each study/cell/figure of the baseline: (value, low, high)."""
    count = sum(len(cells) * len(STUDY_FIGURES[s]) for s, cells in baseline_studies.items())
    z = z_for(STUDY_ALPHA / max(count, 1))
    intervals = {}
    for study, cells in baseline_studies.items():
        for cell, columns in cells.items():
            for column, kind in STUDY_FIGURES[study].items():
                value, se = figure(kind, columns.get(column, []), trials)
                if value is None:
                    intervals[(study, cell, column)] = (None, None, None)
                    continue
                # Durations: at least 1% of the value or 50 ms wide, so a mean over identical
                # samples (se 0) does not flag a sub-millisecond shift.
                if kind == "mean":
                    se = max(se, 0.01 * abs(value) / z, 0.05 / z)
                half = z * math.sqrt(2) * se
                intervals[(study, cell, column)] = (value, value - half, value + half)
    return intervals


# --- the run ---------------------------------------------------------------------------------

class Runner:
    def __init__(self, args, root, scratch):
        self.args = args
        self.root = root
        self.scratch = scratch
        self.out = args.out
        self.check_runs = CHECK_RUNS_QUICK if args.quick else CHECK_RUNS
        self.check_scenarios = scenario_files(scratch.src, "check")
        self.golden_scenarios = [s for s in scenario_files(scratch.src)
                                 if os.path.exists(os.path.join(scratch.src, s[:-5] + ".golden"))]
        self.studies = [] if args.quick else list(STUDY_FIGURES)

    def work_dir(self, *parts):
        path = os.path.join(self.out, "work", *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    # Baselines: the unmutated tree, in the same scratch build, so a mutant is compared with
    # exactly the code it was cut from.
    def baseline(self):
        log("building the unmutated tree")
        rc, out = self.scratch.make(["hasim"])
        if rc != 0:
            raise Fatal(f"the unmutated tree does not build:\n{tail(out)}")
        hasim = self.scratch.hasim()
        self.base_check = {}
        for s in self.check_scenarios:
            r = run_check(hasim, self.scratch.src, s, self.check_runs, self.work_dir("base", "check"))
            if r["status"] != "ok":
                raise Fatal(f"baseline: hasim check {s} failed: {r['detail']}")
            self.base_check[s] = r["violations"]
        self.golden = {}
        for s in self.golden_scenarios:
            golden = read_golden(os.path.join(self.scratch.src, s[:-5] + ".golden"))
            r = run_scenario(hasim, self.scratch.src, s)
            if r["status"] != "ok" or r["verdicts"] != golden["verdicts"] or \
                    r["hash"] != golden["hash"]:
                raise Fatal(f"baseline: hasim run {s} does not match {s[:-5]}.golden; the tree "
                            "must pass its own golden tests before mutants are judged by them")
            self.golden[s] = golden
        self.base_studies = {}
        for study in self.studies:
            t0 = time.time()
            r = run_study(hasim, study, STUDY_TRIALS, self.work_dir("base", study))
            if r["status"] != "ok":
                raise Fatal(f"baseline: hasim report {study} failed: {r['detail']}")
            self.base_studies[study] = r["cells"]
            log(f"baseline {study}: {len(r['cells'])} cells in {time.time() - t0:.0f} s")
        self.intervals = study_intervals(self.base_studies, STUDY_TRIALS)
        if not self.args.quick:
            self.unit_baseline()

    def judge(self, m):
        """Returns (category, detail) for one mutant; category in killed, golden-only,
        unit-only, crash, survived, ERROR."""
        with Applied(self.scratch, m):
            rc, out = self.scratch.make(["hasim"])
            if rc != 0:
                return "ERROR", "does not build: " + first_error(out)
            return self.stages(m)

    def stages(self, m):
        hasim = self.scratch.hasim()
        kills, golden_only, crashes = [], [], []
        for s in self.check_scenarios:
            r = run_check(hasim, self.scratch.src, s, self.check_runs,
                          self.work_dir(m["name"], "check"))
            if r["status"] != "ok":
                crashes.append(f"check {short(s)}: {r['detail']}")
                continue
            for prop, runs in sorted(r["violations"].items()):
                if runs > self.base_check[s].get(prop, 0):
                    kills.append(f"{prop} in {short(s)} (hasim check: {runs}/{self.check_runs} runs)")
        for s in self.golden_scenarios:
            golden = self.golden[s]
            r = run_scenario(hasim, self.scratch.src, s)
            if r["status"] != "ok":
                crashes.append(f"run {short(s)}: {r['detail']}")
                continue
            for prop, first in golden["verdicts"].items():
                now = r["verdicts"].get(prop, None)
                if (first is None) != (now is None):
                    kills.append(f"{prop} in {short(s)} ("
                                 + ("violated, golden held" if now is not None
                                    else "held, golden violated") + ")")
                elif first != now:
                    golden_only.append(f"{short(s)} ({prop} first at {now}s, golden {first}s)")
            if r["hash"] != golden["hash"] and not any(short(s) in g for g in golden_only):
                golden_only.append(f"{short(s)} (trace {r['hash']})")
        if kills:
            return "killed", "; ".join(kills)
        for study in self.studies:
            r = run_study(hasim, study, STUDY_TRIALS, self.work_dir(m["name"], study))
            if r["status"] != "ok":
                crashes.append(f"report {study}: {r['detail']}")
                continue
            for cell, columns in sorted(r["cells"].items()):
                for column, kind in STUDY_FIGURES[study].items():
                    value, _ = figure(kind, columns.get(column, []), STUDY_TRIALS)
                    base, low, high = self.intervals.get((study, cell, column), (None,) * 3)
                    if base is None and value is None:
                        continue
                    if base is None or value is None or not (low <= value <= high):
                        kills.append(f"{study} cell {cell} {column} = {fmt(value, kind)}, "
                                     f"baseline {fmt(base, kind)} "
                                     f"[{fmt(low, kind)}, {fmt(high, kind)}]")
        if kills:
            return "killed", "; ".join(kills)
        if crashes:
            return "crash", "; ".join(crashes)
        if golden_only:
            return "golden-only", "; ".join(golden_only)
        if self.args.quick:
            return "survived", "(--quick: unit tests not run)"
        return self.unit_tests()

    def run_unit_tests(self):
        """Returns (returncode, names of the failing test cases)."""
        # Fixed RapidCheck seed: the same mutant must give the same line every time. The
        # [golden] test is the run stage's business.
        env = dict(os.environ, RC_PARAMS="seed=1 verbose_progress=0 verbose_shrinking=0")
        rc, out = sh([os.path.join(self.scratch.build, "hasim_tests"), "~[golden]"],
                     cwd=self.scratch.src, env=env)
        # Catch2's console reporter heads each failing test case with its name between rules.
        # Long names wrap over several lines.
        names = [" ".join(n.split()) for n in
                 re.findall(r"^-{70,}\n((?:.+\n)+?)-{70,}", out, re.M)]
        return rc, list(dict.fromkeys(names)), out

    def unit_baseline(self):
        rc, out = self.scratch.make(["hasim_tests"])
        if rc != 0:
            raise Fatal(f"the unmutated hasim_tests does not build:\n{tail(out)}")
        rc, names, out = self.run_unit_tests()
        self.base_unit = (rc, set(names))
        if rc != 0:
            log(f"baseline: the unit tests fail on the unmutated tree ({', '.join(names)}); "
                "only other failures count against a mutant")

    def unit_tests(self):
        rc, out = self.scratch.make(["hasim_tests"])
        if rc != 0:
            return "ERROR", "hasim_tests does not build: " + first_error(out)
        rc, names, out = self.run_unit_tests()
        base_rc, base_names = self.base_unit
        new = [n for n in names if n not in base_names]
        if rc == 0 or (base_rc != 0 and not new and rc is not None and rc > 0):
            return "survived", ""
        what = ", ".join(new) or tail(out, 2)
        return "unit-only", ("crashed: " if rc is None or rc < 0 else "") + what[:300]


def short(scenario):
    return scenario[len("scenarios/"):-len(".json")]


def fmt(value, kind):
    if value is None:
        return "-"
    return f"{100 * value:.1f}%" if kind == "p" else f"{value:.2f}s"


def first_error(out):
    for line in out.splitlines():
        if "error:" in line:
            return line.strip()[:300]
    return tail(out, 2)


def main():
    p = argparse.ArgumentParser(prog="scripts/mutation.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated mutant names")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--keep", action="store_true",
                   help="keep the scratch worktree and build (.mutation/) for the next run")
    p.add_argument("--quick", action="store_true",
                   help=f"CI: no studies, {CHECK_RUNS_QUICK} check runs, no unit tests")
    p.add_argument("--mutants", default="mutation/mutants.json")
    p.add_argument("--out", default="reports/out/mutation",
                   help="where matrix.txt, matrix.json and the runs' files go")
    args = p.parse_args()

    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                          text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    os.chdir(root)
    mutants = load_mutants(args.mutants)
    if args.list:
        for m in mutants:
            print(f"{m['name']:48} {m['system']:22} {m['file']}\n{'':48} {m['bug']}")
        print(f"{len(mutants)} mutants")
        return EXIT_OK
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        names = {m["name"] for m in mutants}
        unknown = [n for n in wanted if n not in names]
        if unknown:
            raise Fatal(f"--only: no mutant named {', '.join(unknown)}; "
                        "scripts/mutation.sh --list shows them")
        mutants = [m for m in mutants if m["name"] in wanted]
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)

    started = time.time()
    scratch = Scratch(root, head)
    try:
        scratch.prepare()
        bad = check_applies(mutants, scratch.src)
        if bad:
            for b in bad:
                print(f"ERROR {b}", file=sys.stderr)
            raise Fatal(f"{len(bad)} mutant(s) do not apply to HEAD {head[:12]}")
        runner = Runner(args, root, scratch)
        runner.baseline()
        log(f"baseline done in {time.time() - started:.0f} s: {len(runner.check_scenarios)} "
            f"check scenario(s) x {runner.check_runs} runs, {len(runner.golden_scenarios)} "
            f"golden scenarios, studies: {', '.join(runner.studies) or 'none (--quick)'}")
        results = []
        width = max(len(m["name"]) for m in mutants)
        for i, m in enumerate(mutants, 1):
            t0 = time.time()
            category, detail = runner.judge(m)
            results.append({"name": m["name"], "system": m["system"], "category": category,
                            "detail": detail, "seconds": round(time.time() - t0, 1)})
            log(f"[{i}/{len(mutants)}] {m['name']}: {category} ({time.time() - t0:.0f} s)")
        # Leaves the scratch tree exactly at HEAD, built, for a kept next run.
    finally:
        if not args.keep:
            scratch.remove()

    labels = {"killed": "KILLED", "golden-only": "GOLDEN-ONLY", "unit-only": "UNIT-ONLY",
              "crash": "CRASH-ONLY", "survived": "SURVIVED", "ERROR": "ERROR"}
    lines = []
    for r in results:
        # The first three findings on the line; matrix.json keeps them all.
        parts = r["detail"].split("; ")
        detail = "; ".join(parts[:3]) + (f" (+{len(parts) - 3} more)" if len(parts) > 3 else "")
        lines.append(f"{r['name']:{width}}  {labels[r['category']]:11}  {detail}".rstrip())
    counts = {c: sum(1 for r in results if r["category"] == c) for c in labels}
    killed = counts["killed"]
    score = f"{killed}/{len(results)} = {100 * killed / len(results):.1f}%"
    summary = (f"killed by a property or study {counts['killed']}, golden trace only "
               f"{counts['golden-only']}, unit tests only {counts['unit-only']}, crash only "
               f"{counts['crash']}, survived {counts['survived']}, errors {counts['ERROR']}")
    text = "\n".join(["kill matrix (HEAD " + head[:12] + (", --quick" if args.quick else "") + ")",
                      *lines, "", summary, f"score       {score}",
                      f"wall time   {time.time() - started:.0f} s"]) + "\n"
    print(text, end="")
    with open(os.path.join(args.out, "matrix.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "matrix.json"), "w") as f:
        json.dump({"head": head, "quick": args.quick, "checkRuns": runner.check_runs,
                   "studyTrials": STUDY_TRIALS, "seed": SEED, "score": killed / len(results),
                   "counts": counts, "mutants": results}, f, indent=2)
        f.write("\n")
    if counts["ERROR"]:
        return EXIT_ERROR
    return EXIT_OK if killed == len(results) else EXIT_SURVIVORS


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fatal as e:
        print(f"mutation: {e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        sys.exit(130)
