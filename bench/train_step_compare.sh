#!/usr/bin/env bash
# Training-step throughput of GrowBench (bench_train_step) against the same model in plain
# PyTorch (train_step_torch.py, Debian's python3-torch), in one run: first a parity check
# (both sides train the same initial weights on the same batches; their losses must agree),
# then REPS alternating repetitions per thread setting, each after WARMUP warm-up steps.
# Prints tokens/s of each side (median over the repetitions) and the ratio growbench/pytorch.
#
# A thread setting is T, T:B or T:B:S: T intra-op threads of LibTorch (at::set_num_threads,
# and OMP_NUM_THREADS), B threads of OpenBLAS (OPENBLAS_NUM_THREADS; B = T when not given)
# and S row shards on GrowBench's side (bench_train_step --shards S, TrainOptions::row_shards:
# each batch split in S blocks of rows computed on B / T threads at once, one BLAS thread
# each; 1 when not given). PyTorch runs T:B either way. With S > 1 a second parity check
# compares the sharded losses with PyTorch's.
# OpenBLAS runs its own thread pool beside LibTorch's OpenMP threads; growbench-cli sets one
# LibTorch thread and leaves OpenBLAS at its default (all cores), i.e. 1:<cores>.
#
# Usage: bench/train_step_compare.sh [BUILD_DIR (default: build)]
# PLAN (a growth plan as JSON, e.g. '{"variant":"lora","rank":8}'; default full fine-tuning):
# GrowBench applies it (bench_train_step --plan) and saves the grown model, which the PyTorch
# side loads and trains with the same frozen set (train_step_torch.py --grown; LoRA, Grow
# G-Freeze and neutral residues are implemented there).
# Environment: STEPS (20), WARMUP (3), REPS (3), THREADS ("1:1 1:2 2:2 1:2:2"), PYTHON
# (/usr/bin/python3), and model options for both sides in EXTRA (e.g. EXTRA="--layers 8").
# Anything else in the environment (GLIBC_TUNABLES, ...) applies to both sides alike.
# Build first: cmake -B build -DGB_BUILD_BENCH=ON && ninja -C build bench_train_step
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-"$here/../build"}
bin="$build/bench/bench_train_step"
py=${PYTHON:-/usr/bin/python3}
steps=${STEPS:-20}
warmup=${WARMUP:-3}
reps=${REPS:-3}
threads=${THREADS:-"1:1 1:2 2:2 1:2:2"}
read -r -a extra <<<"${EXTRA:-}"
plan=${PLAN:-'{"variant":"full"}'}

[[ -x "$bin" ]] || { echo "no $bin; build it with -DGB_BUILD_BENCH=ON" >&2; exit 1; }
"$py" -c 'import torch' 2>/dev/null ||
  { echo "$py has no torch; install python3-torch or set PYTHON" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
init="$work/init"
results="$work/results.jsonl"

echo "machine: $(nproc) cores; $(uptime | sed 's/^ *//')"
echo "growbench: $bin"
torch_version=$("$py" -c 'import torch; print(torch.__version__)')
echo "pytorch:   $py $here/train_step_torch.py (torch $torch_version)"

# Parity: 5 steps from the same weights on the same batches, no warm-up.
"$bin" --steps 5 --warmup 0 --threads 1 --save-init "$init" --plan "$plan" "${extra[@]}" \
  >"$work/gb0.json"
if [[ $plan == '{"variant":"full"}' ]]; then
  ref=(--init "$init/model.safetensors")
else
  ref=(--grown "$init")
fi
"$py" "$here/train_step_torch.py" --steps 5 --warmup 0 --threads 1 "${ref[@]}" "${extra[@]}" \
  >"$work/pt0.json"
echo '{"shards": 1}' >"$work/gbs.json"

for setting in $threads; do
  IFS=: read -r t b s <<<"$setting"
  b=${b:-$t}
  s=${s:-1}
  if ((s > 1)) && [[ $(cat "$work/gbs.json") == '{"shards": 1}' ]]; then
    OPENBLAS_NUM_THREADS=$b "$bin" --steps 5 --warmup 0 --threads 1 --shards "$s" \
      --plan "$plan" "${extra[@]}" >"$work/gbs.json"
  fi
  for r in $(seq "$reps"); do
    # Alternate which side runs first, so that a change in machine load hits both alike.
    gb=("$bin" --steps "$steps" --warmup "$warmup" --threads "$t" --shards "$s" --plan "$plan"
        "${extra[@]}")
    pt=("$py" "$here/train_step_torch.py" --steps "$steps" --warmup "$warmup" --threads "$t"
        "${ref[@]}" "${extra[@]}")
    for side in $( ((r % 2)) && echo "gb pt" || echo "pt gb"); do
      if [[ $side == gb ]]; then cmd=("${gb[@]}"); else cmd=("${pt[@]}"); fi
      line=$(OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$b "${cmd[@]}")
      label="$t:$b"
      ((s > 1)) && label+=":$s"
      printf '%s\t%s\n' "$label" "$line" >>"$results"
    done
  done
done

status=0
"$py" - "$work/gb0.json" "$work/pt0.json" "$results" "$work/gbs.json" "$here" "${extra[@]}" \
  <<'EOF' || status=$?
import json, os, statistics, subprocess, sys
gb0, pt0, gbs = (json.load(open(p)) for p in sys.argv[1:3] + sys.argv[4:5])
sys.path.insert(0, sys.argv[5])
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import train_step_profile  # the matmul peak and the step's arithmetic
extra = sys.argv[6:]
ok = True
for gb in [gb0] + ([gbs] if gbs["shards"] > 1 else []):
    print(f"\nparity (same initial weights and batches, {gb['shards']} row shard(s)), "
          "loss per step:")
    worst = 0.0
    for i, (a, b) in enumerate(zip(gb["losses"], pt0["losses"])):
        worst = max(worst, abs(a - b))
        print(f"  step {i}: growbench {a:.6f}  pytorch {b:.6f}  diff {a - b:+.2e}")
    print(f"  parameters: growbench {gb['params']}, pytorch {pt0['params']}")
    same = worst < 1e-3 and gb["params"] == pt0["params"]
    print("  parity " + ("ok" if same else "FAILED: the two sides do not train the same model"))
    ok = ok and same
rows = []
for line in open(sys.argv[3]):
    setting, text = line.rstrip("\n").split("\t", 1)
    rows.append(dict(json.loads(text), setting=setting))
print(f"\nplan {json.dumps(gb0.get('plan', {'variant': 'full'}))}, "
      f"{gb0.get('trainable', gb0['params'])} of {gb0['params']} parameters trained")
print(f"{rows[0]['tokens_per_step']} tokens per step; median over repetitions of "
      f"{rows[0]['steps']} steps after {rows[0]['warmup']} warm-up steps each\n")
print("| threads torch:blas[:shards] | growbench tok/s | pytorch tok/s | growbench ms/step "
      "| pytorch ms/step "
      "| ratio growbench/pytorch | runs (growbench; pytorch tok/s) |")
print("|---|---|---|---|---|---|---|")
for t in dict.fromkeys(r["setting"] for r in rows):
    g = [r for r in rows if r["setting"] == t and r["impl"] == "growbench"]
    p = [r for r in rows if r["setting"] == t and r["impl"] == "pytorch"]
    gt = statistics.median(r["tokens_per_s"] for r in g)
    pt = statistics.median(r["tokens_per_s"] for r in p)
    gm = statistics.median(r["step_ms_median"] for r in g)
    pm = statistics.median(r["step_ms_median"] for r in p)
    runs = (", ".join(f"{r['tokens_per_s']:.0f}" for r in g) + "; " +
            ", ".join(f"{r['tokens_per_s']:.0f}" for r in p))
    print(f"| {t} | {gt:.0f} | {pt:.0f} | {gm:.1f} | {pm:.1f} | {gt / pt:.3f} | {runs} |")

# Each side at its best: the setting with the highest median (PyTorch's runs pooled by T:B,
# the shards being GrowBench's alone).
def best(impl, key):
    groups = {}
    for r in rows:
        if r["impl"] == impl:
            groups.setdefault(key(r["setting"]), []).append(r)
    return max(((statistics.median(x["tokens_per_s"] for x in g), k, g)
                for k, g in groups.items()), key=lambda b: b[0])
gbest, gset, _ = best("growbench", lambda s: s)
pbest, pset, pruns = best("pytorch", lambda s: ":".join(s.split(":")[:2]))
print(f"\neach side at its best setting (median tok/s): growbench {gbest:.0f} at {gset}, "
      f"pytorch {pbest:.0f} at {pset} ({len(pruns)} runs): ratio {gbest / pbest:.3f}")
if gb0.get("plan", {"variant": "full"}) == {"variant": "full"}:
    # Share of the fp32 matmul peak of the same OpenBLAS with the setting's BLAS threads (a
    # 2048 x 2048 product, best of 5, in each of 3 processes: the highest, the same figure
    # for both sides), from the model's matmul arithmetic.
    gflop = train_step_profile.step_gflop(train_step_profile.model_options(extra))
    peaks = {}
    for label, rate, setting in (("growbench", gbest, gset), ("pytorch", pbest, pset)):
        blas = setting.split(":")[1]
        if blas not in peaks:
            env = dict(os.environ, OPENBLAS_NUM_THREADS=blas)
            peaks[blas] = max(
                float(subprocess.run([sys.executable, "-c", train_step_profile.PEAK, "1"],
                                     check=True, stdout=subprocess.PIPE, env=env,
                                     text=True).stdout) for _ in range(3))
        peak = peaks[blas]
        achieved = gflop * rate / rows[0]["tokens_per_step"]
        print(f"  {label}: {achieved:.1f} GFLOP/s of matmul arithmetic ({gflop:.2f} GFLOP a "
              f"step), {100 * achieved / peak:.0f} % of the {peak:.1f} GFLOP/s fp32 matmul "
              f"peak with {blas} BLAS thread(s)")
sys.exit(0 if ok else 1)
EOF
echo "machine after: $(uptime | sed 's/^ *//')"
exit "$status"
