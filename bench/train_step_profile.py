#!/usr/bin/env python3
"""Where a training step's time goes, GrowBench against PyTorch, in one run.

Runs bench_train_step --profile 1 and train_step_torch.py --profile 1 (the same model, the
same batches, the same initial weights) and prints, per side, milliseconds per step:
  - by phase of the step: forward (with the loss), backward, gradient clipping, optimizer
    (the gb::* profiler scopes both sides open);
  - by kind of operator (self time): matmul, attention softmax and mask, loss, elementwise
    and reductions (norms, RoPE, SiLU, residuals, AdamW's arithmetic), copies and layout,
    autograd bookkeeping, other;
  - the operators with the most self time;
  - the step's arithmetic (analytic matmul FLOPs of the model, forward + backward = 3x the
    forward) against the fp32 matmul peak measured in the same run (a 2048 x 2048 product
    through the same OpenBLAS, the same threads), and the Amdahl bound: the ratio GrowBench
    would reach against PyTorch if every non-matmul operator of its step took no time.
Profiling adds overhead on both sides: compare shares and the two sides, not these times
with unprofiled runs (bench/train_step_compare.sh measures throughput).

Usage: bench/train_step_profile.py [--build build] [--steps 10] [--warmup 3] [--threads 1]
           [--shards 1] [--python /usr/bin/python3] [--top 12] [-- extra model options for both sides]
--shards S profiles GrowBench with S row shards (bench_train_step --shards: the blocks of a
batch on OPENBLAS_NUM_THREADS threads at once); operator times are then summed over the
threads, so compare the step medians and the phases, not the operator sums, with PyTorch.
Only the standard library here; the PyTorch side needs Debian's python3-torch.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

MATMUL = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
          "aten::linear", "aten::_mkldnn_matmul"}
ATTENTION = {"aten::_softmax", "aten::_softmax_backward_data", "aten::softmax",
             "aten::masked_fill_", "aten::masked_fill", "aten::triu", "aten::tril"}
LOSS = {"aten::_log_softmax", "aten::_log_softmax_backward_data", "aten::log_softmax",
        "aten::nll_loss", "aten::nll_loss_forward", "aten::nll_loss_backward",
        "aten::nll_loss_nd", "aten::cross_entropy_loss"}
LAYOUT = {"aten::copy_", "aten::clone", "aten::contiguous", "aten::_to_copy", "aten::to",
          "aten::cat", "aten::reshape", "aten::view", "aten::_reshape_alias", "aten::transpose",
          "aten::t", "aten::expand", "aten::as_strided", "aten::empty", "aten::empty_like",
          "aten::empty_strided", "aten::zeros", "aten::zeros_like", "aten::zero_",
          "aten::fill_", "aten::permute", "aten::unsqueeze", "aten::squeeze", "aten::select",
          "aten::slice", "aten::narrow", "aten::detach", "aten::detach_", "aten::alias",
          "aten::resize_", "aten::unsafe_view", "aten::_unsafe_view", "aten::split",
          "aten::chunk", "aten::stack", "aten::lift_fresh", "aten::ones", "aten::ones_like",
          "aten::index_select", "aten::embedding", "aten::embedding_backward",
          "aten::embedding_dense_backward", "aten::arange", "aten::outer"}
KINDS = ["matmul", "attention softmax and mask", "loss (log-softmax, NLL)",
         "elementwise and reductions", "copies and layout", "autograd bookkeeping", "other"]


def kind(op):
    if op in MATMUL:
        return KINDS[0]
    if op in ATTENTION:
        return KINDS[1]
    if op in LOSS:
        return KINDS[2]
    if op in LAYOUT:
        return KINDS[4]
    if op.startswith("aten::"):
        return KINDS[3]
    if "Backward" in op or op.startswith("torch::autograd::") or op.startswith("autograd::"):
        return KINDS[5]
    return KINDS[6]


PEAK = """
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
for _ in range(2):
    a @ b
best = 0.0
for _ in range(5):
    t = time.perf_counter()
    a @ b
    best = max(best, 2 * 2048 ** 3 / (time.perf_counter() - t) / 1e9)
print(best)
"""


def step_gflop(o):
    """Matmul GFLOP of one training step of the bench's model (forward x 3)."""
    d, layers, p, v, t, b = o["hidden"], o["layers"], o["mlp"], o["vocab"], o["seq_len"], o["batch"]
    per_token = 2 * (layers * (4 * d * d + 3 * d * p) + d * v) + layers * 4 * t * d
    return 3 * per_token * t * b / 1e9


def model_options(extra):
    o = {"hidden": 256, "layers": 4, "mlp": 688, "vocab": 2048, "seq_len": 128, "batch": 8}
    for i in range(0, len(extra) - 1, 2):
        key = extra[i].lstrip("-").replace("-", "_")
        if key in o:
            o[key] = int(extra[i + 1])
    return o


def run(cmd, env):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, env=env, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench", "bench_train_step")
    if not os.access(binary, os.X_OK):
        sys.exit(f"no {binary}; build it with -DGB_BUILD_BENCH=ON")
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(a.threads))
    common = ["--steps", str(a.steps), "--warmup", str(a.warmup), "--threads", str(a.threads),
              "--profile", "1"] + a.extra
    with tempfile.TemporaryDirectory() as work:
        init = os.path.join(work, "init")
        gb = run([binary, "--save-init", init, "--shards", str(a.shards)] + common, env)
        pt = run([a.python, os.path.join(HERE, "train_step_torch.py"), "--init",
                  os.path.join(init, "model.safetensors")] + common, env)
    peak = float(subprocess.run([a.python, "-c", PEAK, str(a.threads)], check=True,
                                stdout=subprocess.PIPE, env=env, text=True).stdout)
    sides = [("growbench", gb), ("pytorch", pt)]
    print(f"{a.steps} profiled steps after {a.warmup} warm-up, {a.threads} LibTorch thread(s), "
          f"{a.shards} row shard(s) on GrowBench's side, "
          f"OPENBLAS_NUM_THREADS={env.get('OPENBLAS_NUM_THREADS', 'unset')}; "
          f"ms per step (profiled)")
    print(f"step median: growbench {gb['step_ms_median']:.1f} ms, "
          f"pytorch {pt['step_ms_median']:.1f} ms; first losses "
          f"{gb['losses'][0]:.6f} / {pt['losses'][0]:.6f}")

    def row(name, values):
        cells = "".join(f"{v:>12.2f}" for v in values)
        print(f"{name:<34}{cells}")

    print(f"\n{'phase':<34}{'growbench':>12}{'pytorch':>12}")
    for ph in ["gb::forward", "gb::backward", "gb::clip", "gb::optimizer"]:
        row(ph[4:], [s["profile"]["phases"].get(ph, {}).get("total_ms", 0.0) for _, s in sides])
    totals = []
    by_kind = []
    for _, s in sides:
        k = {name: 0.0 for name in KINDS}
        for op, v in s["profile"]["ops"].items():
            k[kind(op)] += v["self_ms"]
        by_kind.append(k)
        totals.append(sum(k.values()))
    print(f"\n{'operator kind (self time)':<34}{'growbench':>12}{'pytorch':>12}"
          f"{'gb share':>10}")
    for name in KINDS:
        vals = [k[name] for k in by_kind]
        print(f"{name:<34}{vals[0]:>12.2f}{vals[1]:>12.2f}{100 * vals[0] / totals[0]:>9.1f}%")
    row("all operators", totals)
    gflop = step_gflop(model_options(a.extra))
    print(f"\nmatmul arithmetic: {gflop:.2f} GFLOP per step; fp32 matmul peak {peak:.1f} GFLOP/s "
          f"(2048 x 2048, same threads)")
    for (label, s), k in zip(sides, by_kind):
        total = s["step_ms_median"]
        print(f"  {label}: {gflop / (total / 1000.0):.1f} GFLOP/s over the step "
              f"({100 * gflop / (total / 1000.0) / peak:.0f} % of the peak); its matmuls alone "
              f"{gflop / (k['matmul'] / 1000.0):.1f} GFLOP/s")
    gb_other = totals[0] - by_kind[0]["matmul"]
    print(f"  Amdahl bound: with no time outside matmuls, GrowBench would run at "
          f"{totals[1] / by_kind[0]['matmul']:.2f}x PyTorch (non-matmul time now "
          f"{gb_other:.1f} ms of {totals[0]:.1f} ms)")
    for label, s in sides:
        ops = sorted(s["profile"]["ops"].items(), key=lambda kv: -kv[1]["self_ms"])[:a.top]
        print(f"\n{label}: top {a.top} operators by self time")
        for op, v in ops:
            print(f"  {op:<40}{v['self_ms']:>10.2f} ms{v['calls']:>9.1f} calls")


if __name__ == "__main__":
    main()
