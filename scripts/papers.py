#!/usr/bin/env python3
"""Runs the paper reproductions of resources/experiments/papers/ end to end.

For each experiment NAME (grow, scale, neutral-residues, adept, mh-moe):

  run     growbench-cli run papers/NAME.json: every plan over its rate grid and seeds, in one
          group (the trade-off fronts; the paper's own protocol is one rate of each grid,
          named by the spec's report section "protocol").
  report  growbench-cli report papers/NAME.json: docs/reproductions/NAME.html and NAME.json,
          and each figure as docs/reproductions/NAME/<n>-<kind>.svg. Each claim gets a verdict
          at the paper's protocol and at matched learning (validation picks rate and step,
          the test halves give the numbers).

Usage: scripts/papers.py [--db papers.db] [--cli build/app/cli/growbench-cli]
                         [--steps run,report] [--jobs N] NAME...
--jobs N (default: the number of cores) runs N of a spec's runs side by side
(`growbench-cli run --jobs N`; each run's numbers equal the run alone). A run that was
interrupted is continued, in its group, with `growbench-cli run --resume RUN_ID --db DB`
(`growbench-cli runs list --db DB` names the unfinished ones); the report reads the spec's
newest group.
Only the standard library.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PAPERS = os.path.join(ROOT, "resources", "experiments", "papers")
DOCS = os.path.join(ROOT, "docs", "reproductions")
NAMES = ["grow", "scale", "neutral-residues", "adept", "mh-moe"]

def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def run_spec(path, opts, logname):
    os.makedirs(opts.logs, exist_ok=True)
    logfile = os.path.join(opts.logs, logname + ".log")
    start = time.time()
    log(f"run {os.path.relpath(path, ROOT)} (log {logfile})")
    with open(logfile, "a") as f:
        rc = subprocess.run([opts.cli, "run", path, "--db", opts.db, "--quiet",
                             "--jobs", str(opts.jobs)],
                            stdout=f, stderr=subprocess.STDOUT).returncode
    minutes = (time.time() - start) / 60
    log(f"  exit {rc} after {minutes:.1f} min")
    if rc != 0:
        sys.exit(f"papers: {os.path.basename(path)} exited {rc}; see {logfile}")
    return minutes


def report(name, opts):
    os.makedirs(DOCS, exist_ok=True)
    html = os.path.join(DOCS, name + ".html")
    js = os.path.join(DOCS, name + ".json")
    subprocess.run([opts.cli, "report", os.path.join(PAPERS, name + ".json"), "--db", opts.db,
                    "--out", html, "--json", js, "--title", f"GrowBench reproduction: {name}"],
                   check=True)
    j = json.load(open(js))
    figdir = os.path.join(DOCS, name)
    os.makedirs(figdir, exist_ok=True)
    for old in os.listdir(figdir):
        if old.endswith(".svg"):
            os.remove(os.path.join(figdir, old))
    for i, fig in enumerate(j.get("figures", [])):
        if not fig.get("svg"):
            continue
        slug = re.sub(r"[^a-z0-9]+", "-", fig.get("kind", "figure").lower()).strip("-")
        with open(os.path.join(figdir, f"{i + 1:02d}-{slug}.svg"), "w") as f:
            f.write(fig["svg"])
    for c in j["claims"]:
        log(f"  {c['id']}: {c['verdict']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+", choices=NAMES + ["all"])
    ap.add_argument("--db", default=os.path.join(ROOT, "papers.db"))
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "cli", "growbench-cli"))
    ap.add_argument("--steps", default="run,report")
    ap.add_argument("--logs", default=os.path.join(ROOT, "papers-logs"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()
    if opts.jobs < 1:
        sys.exit("papers: --jobs must be at least 1")
    opts.db = os.path.abspath(opts.db)
    steps = opts.steps.split(",")
    for s in steps:
        if s not in ("run", "report"):
            sys.exit(f"papers: unknown step '{s}' (run, report)")
    names = NAMES if "all" in opts.names else opts.names
    for name in names:
        log(f"== {name}")
        if "run" in steps:
            run_spec(os.path.join(PAPERS, name + ".json"), opts, name)
        if "report" in steps:
            report(name, opts)


if __name__ == "__main__":
    main()
