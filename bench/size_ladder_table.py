#!/usr/bin/python3
"""The Markdown table of bench/size_ladder.sh's results (ladder.jsonl): one row per shape and
measurement, the steps beside PyTorch eager's same step (tokens/s ratio, peak ratio).
Usage: bench/size_ladder_table.py LADDER.jsonl"""

import json
import sys

NAMES = {"load": "load + inspect", "probe": "masking probe", "lora": "LoRA r=16, every linear",
         "gfreeze": "G-Freeze, top 4 layers", "full": "full fine-tuning, checkpointing",
         "torch-lora": "PyTorch eager: LoRA", "torch-full": "PyTorch eager: full, checkpointing"}


def gib(mb):
    return f"{mb / 1024:.2f} GiB" if mb >= 1024 else f"{mb:.0f} MiB"


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = {(r["shape"], r["stage"]): r for r in rows}
    # Shapes in the order they were first measured, stages in the ladder's order.
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    order = list(NAMES)
    rows.sort(key=lambda r: (shapes.index(r["shape"]),
                             order.index(r["stage"]) if r["stage"] in order else len(order)))
    print("| shape | measurement | wall | tokens/s | peak | estimate | against PyTorch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        shape, stage = r["shape"], r["stage"]
        name = NAMES.get(stage, stage)
        if stage == "load" and "params" in r:
            name += f" ({r['params'] / 1e6:.0f} M parameters)"
        if stage == "probe":
            name = f"{r.get('method', 'masking')} probe"  # older results name no method
            if r.get("method", "masking") != "masking":
                name += ", checkpointing"
            if "tokens" in r:
                name += f", {r['tokens']} tokens"
        if "skipped" in r:
            print(f"| {shape} | {name} | not run: {r['skipped']} | | | | |")
            continue
        if r.get("rc", 0) != 0:
            print(f"| {shape} | {name} | failed (exit {r['rc']}) after {r['wall_s']:.0f} s | | | | |")
            continue
        tps = f"{r['tokens_per_s']:.1f}" if r.get("tokens_per_s", -1) > 0 else ""
        # The steps' peak is the growth over the process's memory before the model (as the
        # estimate counts it); load and probe give the whole process's peak RSS.
        peak = r.get("peak_growth_mb", -1)
        peak = gib(peak) if peak > 0 else gib(r["peak_rss_mb"])
        est = gib(r["estimated_peak_mb"]) if r.get("estimated_peak_mb", -1) > 0 else ""
        ref = ""
        t = by.get((shape, "torch-" + stage))
        if t and "skipped" not in t and t.get("rc", 1) == 0 and t.get("tokens_per_s", -1) > 0:
            ref = (f"{r['tokens_per_s'] / t['tokens_per_s']:.2f}x the tokens/s, "
                   f"{r['peak_growth_mb'] / t['peak_growth_mb']:.2f}x the peak")
        print(f"| {shape} | {name} | {r['wall_s']:.1f} s | {tps} | {peak} | {est} | {ref} |")


if __name__ == "__main__":
    main()
