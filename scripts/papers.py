#!/usr/bin/env python3
"""Runs the paper reproductions of resources/experiments/papers/ end to end.

For each experiment NAME (grow, scale, neutral-residues, adept, mh-moe):

  sweep   growbench-cli run papers/NAME-sweep.json: every swept method over its learning
          rates, one seed, validation sets only.
  choose  for every swept method, the rate with the best final validation figure of the
          sweep's runs (the lowest eval/new/loss; for a task sequence the highest eval/op);
          written into papers/NAME.json as the plan's "train": {"lr": ...} with a "comment"
          naming the sweep and the rule, and into papers/chosen-lrs.json. A plan the sweep
          does not hold (a paper's ablation) takes the rate of the method it ablates
          (ABLATES below). Nothing here reads a test metric.
  run     growbench-cli run papers/NAME.json: every plan at its chosen rate, over its seeds.
  report  growbench-cli report papers/NAME.json: docs/reproductions/NAME.html and NAME.json,
          and each figure as docs/reproductions/NAME/<n>-<kind>.svg.

Usage: scripts/papers.py [--db papers.db] [--cli build/app/cli/growbench-cli]
                         [--steps sweep,choose,run,report] [--jobs N] NAME...
--jobs N (default: the number of cores) runs N of a spec's runs side by side
(`growbench-cli run --jobs N`; each run's numbers equal the run alone).
Only the standard library; the store is read through growbench-cli's JSON output.
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

# Plans of an experiment that its sweep does not hold: the method whose rate they take.
ABLATES = {
    "grow": {"G-Freeze (top-2 by update magnitude)": "G-Freeze (all layers)"},
    "scale": {
        "SCALE-Adapt L_fp=2 (all linears)": "SCALE-Route (L_fp=3)",
        "SCALE-Adapt L_fp=2 (attention only)": "SCALE-Route (L_fp=3)",
        "SCALE-Adapt L_fp=2 (FFN only)": "SCALE-Route (L_fp=3)",
    },
    "neutral-residues": {
        "Neutral residues p=0": "Neutral residues (ELU, l1)",
        "Neutral residues alpha=0": "Neutral residues (ELU, l1)",
    },
    "adept": {"ADEPT w/o stage 2": "ADEPT", "ADEPT w/o stage 1": "ADEPT"},
    "mh-moe": {
        "LoRAMoE (K=4, top-1, softmax_all)": "LoRAMoE (K=4, top-1)",
        "MH-MoE (H=4, K=4, top-1, softmax_all)": "MH-MoE (H=4, K=4, top-1)",
        "LoRAMoE (K=26, top-5)": "LoRAMoE (K=4, top-1)",
        "MH-MoE (M=8, top-1 of 4)": "MH-MoE (H=4, K=4, top-1)",
    },
}


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def cli_json(args, opts):
    out = subprocess.run([opts.cli] + args + ["--db", opts.db], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return json.loads(out)


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


def newest_group(name, opts):
    runs = [r for r in cli_json(["runs", "list", "--json"], opts)
            if r["group"].split("@")[0] == name]
    if not runs:
        sys.exit(f"papers: no runs of '{name}' in {opts.db}; run the sweep first")
    newest = max(runs, key=lambda r: r["id"])["group"]
    return newest, [r for r in runs if r["group"] == newest]


def choose(name, opts):
    sweep = json.load(open(os.path.join(PAPERS, name + "-sweep.json")))
    sequence = "sequence" in sweep
    key, lower = ("eval/op", False) if sequence else ("eval/new/loss", True)
    rule = (f"the {'lowest' if lower else 'highest'} final validation {key} of "
            f"{{n}} rates, seed {sweep.get('seed', 0)}")
    group, runs = newest_group(name + "-sweep", opts)
    best = {}
    table = {}
    for r in runs:
        if r["status"] != "finished":
            sys.exit(f"papers: run {r['id']} of {group} is {r['status']}; finish the sweep first")
        show = cli_json(["runs", "show", str(r["id"]), "--json"], opts)
        plan, lr = show["params"]["plan"], show["params"]["train.lr"]
        value = show["final_metrics"].get(key)
        if isinstance(value, dict):  # {"step": N, "value": x}
            value = value.get("value")
        if value is None:
            sys.exit(f"papers: run {r['id']} has no final {key}")
        table.setdefault(plan, []).append((lr, value, r["id"]))
    for plan, rows in table.items():
        rows.sort()
        pick = (min if lower else max)(rows, key=lambda row: row[1])
        best[plan] = {"lr": pick[0], "value": pick[1], "run": pick[2],
                      "rule": rule.format(n=len(rows)), "group": group,
                      "sweep": [{"lr": lr, key: v, "run": rid} for lr, v, rid in rows]}
        log(f"  {plan}: " + ", ".join(f"{lr:g} -> {v:.4f}" for lr, v, _ in rows) +
            f"; chosen {pick[0]:g}")

    path = os.path.join(PAPERS, name + ".json")
    spec = json.load(open(path))
    for p in spec["plans"]:
        label = p["name"]
        source = label if label in best else ABLATES.get(name, {}).get(label)
        if source is None or source not in best:
            sys.exit(f"papers: plan '{label}' of {name}.json has no rate in the sweep and no "
                     f"method it ablates")
        b = best[source]
        p.setdefault("train", {})["lr"] = b["lr"]
        why = b["rule"]
        if source == label:
            p["comment"] = f"train.lr {b['lr']:g} chosen by {name}-sweep.json ({why})"
        else:
            p["comment"] = (f"train.lr {b['lr']:g} chosen by {name}-sweep.json for "
                            f"'{source}', the method this plan ablates ({why})")
    with open(path, "w") as f:
        json.dump(spec, f, indent=2, ensure_ascii=False)
        f.write("\n")
    chosen_path = os.path.join(PAPERS, "chosen-lrs.json")
    chosen = json.load(open(chosen_path)) if os.path.exists(chosen_path) else {}
    chosen[name] = best
    with open(chosen_path, "w") as f:
        json.dump(chosen, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    log(f"  wrote the chosen rates into {os.path.relpath(path, ROOT)}")


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
    ap.add_argument("--steps", default="sweep,choose,run,report")
    ap.add_argument("--logs", default=os.path.join(ROOT, "papers-logs"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()
    if opts.jobs < 1:
        sys.exit("papers: --jobs must be at least 1")
    opts.db = os.path.abspath(opts.db)
    steps = opts.steps.split(",")
    for s in steps:
        if s not in ("sweep", "choose", "run", "report"):
            sys.exit(f"papers: unknown step '{s}' (sweep, choose, run, report)")
    names = NAMES if "all" in opts.names else opts.names
    for name in names:
        log(f"== {name}")
        if "sweep" in steps:
            run_spec(os.path.join(PAPERS, name + "-sweep.json"), opts, name + "-sweep")
        if "choose" in steps:
            choose(name, opts)
        if "run" in steps:
            run_spec(os.path.join(PAPERS, name + ".json"), opts, name)
        if "report" in steps:
            report(name, opts)


if __name__ == "__main__":
    main()
