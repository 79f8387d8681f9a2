"""What users run, for the mutation run (mutation/mutate.py): `hasim check`, `hasim run`
against the golden outputs, the studies on few trials, and the baseline intervals a study
figure must leave to count a mutant as killed. Stdlib only."""
import csv
import json
import math
import os
import re
import shutil

from common import SEED, STUDY_ALPHA, STUDY_FIGURES, Fatal, sh, tail

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


RUN_LINE = re.compile(r"^  (VIOLATED|held)\s+(\S+)(\s+\(.*\))?\s*$")  # "(2 windows, ...)"
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


GOLDEN_VIOLATED = re.compile(r"^violated\s+(\S+) first at t=([0-9.]+)s(;.*)?$")  # "; N windows"
GOLDEN_HELD = re.compile(r"^held\s+(\S+)(;.*)?$")


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
