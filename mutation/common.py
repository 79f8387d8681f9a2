"""The mutation run's shared pieces: exit codes, counts, the study figures compared, errors,
logging and running a command. Stdlib only."""
import subprocess
import sys

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


def tail(text, n=15):
    return "\n".join(text.rstrip().splitlines()[-n:])
