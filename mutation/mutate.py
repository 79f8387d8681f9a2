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
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # the shared constants and helpers
    CHECK_RUNS, CHECK_RUNS_QUICK, EXIT_ERROR, EXIT_OK, EXIT_SURVIVORS, Fatal, SEED, STUDY_FIGURES, STUDY_TRIALS, log, sh, tail)
from measure import (  # what users run
    figure, read_golden, run_check, run_scenario, run_study, scenario_files, study_intervals)

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
        # Inside the scratch checkout (ignored by git, so `git clean` keeps it), as ./build is
        # in the repository: compile commands then read the same relative to each tree, and
        # ccache (scripts/build.sh) serves this build from the repository's.
        self.build = os.path.join(self.src, "build")
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
            # The dev preset's flags (scripts/build.sh) without -Werror: a plausible mutant may
            # leave an unused variable, and is still a real program. ccache is told to ignore
            # -Werror, which changes no object file, so the unmutated units hit its cache.
            launcher = (["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache")
                        else [])
            rc, out = sh(["cmake", "-S", self.src, "-B", self.build, "-G", "Ninja",
                          "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DHASIM_WERROR=OFF",
                          "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG", *launcher])
            if rc != 0:
                raise Fatal(f"cmake failed in {self.build}:\n{tail(out)}")

    def make(self, targets):
        # Paths relative to the checkout, as scripts/build.sh sets them for the repository's.
        env = dict(os.environ, CCACHE_BASEDIR=self.src, CCACHE_NOHASHDIR="1",
                   CCACHE_IGNOREOPTIONS="-Werror")
        return sh(["cmake", "--build", self.build, "-j", str(os.cpu_count() or 2), "--target",
                   *targets], timeout=3600, env=env)

    def hasim(self):
        return os.path.join(self.build, "hasim")

    def remove(self):
        sh(["git", "worktree", "remove", "--force", self.src], cwd=self.root)
        shutil.rmtree(self.dir, ignore_errors=True)
        sh(["git", "worktree", "prune"], cwd=self.root)



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
        # --quick (CI) only asks whether a property catches the mutant: the first kill ends it.
        for s in self.check_scenarios:
            if kills and self.args.quick:
                break
            r = run_check(hasim, self.scratch.src, s, self.check_runs,
                          self.work_dir(m["name"], "check"))
            if r["status"] != "ok":
                crashes.append(f"check {short(s)}: {r['detail']}")
                continue
            for prop, runs in sorted(r["violations"].items()):
                if runs > self.base_check[s].get(prop, 0):
                    kills.append(f"{prop} in {short(s)} (hasim check: {runs}/{self.check_runs} runs)")
        for s in self.golden_scenarios:
            if kills and self.args.quick:
                break
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
    p.add_argument("--check", action="store_true",
                   help="only check that every mutant applies to the working tree (ctest runs "
                        "this, so a refactor that moves a mutant's text fails the tests, not CI)")
    p.add_argument("--keep", action="store_true",
                   help="keep the scratch worktree and build (.mutation/) for the next run")
    p.add_argument("--quick", action="store_true",
                   help=f"CI: no studies, {CHECK_RUNS_QUICK} check runs, no unit tests, "
                        "each mutant judged only until its first kill")
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
    if args.check:
        bad = check_applies(mutants, root)
        for b in bad:
            print(f"ERROR {b}", file=sys.stderr)
        if bad:
            raise Fatal(f"{len(bad)} mutant(s) do not apply to the working tree")
        print(f"{len(mutants)} mutants apply")
        return EXIT_OK
    every = mutants  # each must still apply, even when --only runs a few (CI guards the list)
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
        bad = check_applies(every, scratch.src)
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
