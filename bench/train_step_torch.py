#!/usr/bin/python3
"""Training-step throughput of a plain PyTorch Llama, the reference for bench_train_step.

The model and the step are the ones bench/bench_train_step.cpp runs through GrowBench's
trainer: a Llama-shaped decoder (token embedding, pre-norm layers of RMSNorm, attention with
rotary position embeddings and a causal mask, RMSNorm, SwiGLU MLP; final RMSNorm; untied
head), full fine-tuning with AdamW (lr 1e-4, weight decay 0.01 on matrices only, eps 1e-8),
gradient clipping at 1.0, the loss read back every step; CPU float32; batches of 8 x 128
ids drawn from the same 64-bit LCG. Prints one JSON line.

Run it with Debian's interpreter, which has python3-torch (1.13, the LibTorch GrowBench
links): /usr/bin/python3 bench/train_step_torch.py [--steps N] [--threads T] ...
--init PATH loads the initial weights from a model.safetensors that
`bench_train_step --save-init DIR` wrote, so that both sides train the same model.
--profile 1 runs the measured steps under torch.autograd.profiler and adds "profile" in the
shape bench_train_step --profile 1 prints: per operator its self time and calls per step,
per phase (gb::forward, gb::backward, gb::clip, gb::optimizer scopes) its total per step.
--grown DIR trains the grown model that `bench_train_step --plan PLAN --save-init DIR` trains
instead of fully fine-tuning the base: it reads the plan and the names of the trainable
tensors from DIR/grown.json, builds the plan's modules (as GrowBench's core/grow computes
them), loads every tensor from DIR/grown.safetensors by GrowBench's names (strictly: every
tensor of the file used, every tensor of the model loaded), computes gradients of the
trainable tensors only, gives AdamW exactly those (weight decay 0.01 on dim >= 2) and clips
them in the trainer's order; the loss is the cross-entropy plus the plan's auxiliary terms
(coefficient x value, as GrowBench's trainer adds them). Plans (defaults as GrowBench's):
  lora              y = W x + (alpha / r) B A x on the targets (default q, v; alpha 2 r;
                    no dropout); W frozen, A (r, in) and B (out, r) train.
  grow              k-fold MLP width ("Grow, don't overwrite"). G-Freeze ("mode": "freeze"):
                    gate/up y = cat(W_f x, W_g x) (original rows frozen, the k-1 new copies
                    train), down y = W_f x[:p] + W_g x[p:] (both halves already divided by k
                    in the file; the original columns frozen, the new ones train). G-Train
                    ("mode": "train"): dense k-times gate/up that train, dense down frozen.
  neutral-residues  beside each selected MLP, on its normalised input x2, a gated adapter
  / adapters        y = s(x2) W_down (SiLU(W_g x2) * W_up x2), s = ELU(w_s x2) ("gate": "elu",
                    the default), sigmoid(w_s x2) ("sigmoid") or 1 (variant "adapters"), added
                    to the residual after the MLP's output; only the adapters train. Aux
                    terms: "local_l1" = alpha * mean |y| on original-domain batches only, and
                    for the sigmoid gate "gate_bce" = 1 * mean BCE(w_s x2, domain label).
                    The bench's batches are all new-domain (label 1), as bench_train_step's
                    (data::Domain::New), so the ELU gate adds no term there.
The printed line then has "plan" (the plan; {"variant": "full"} without --grown) and
"trainable" (the number of trainable elements).
"""

import argparse
import json
import math
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_ref import RMSNorm, batches, rotate_half


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        shape = (b, t, self.heads, self.head_dim)
        q = self.q_proj(x).view(shape).transpose(1, 2)  # (B, H, T, d_h)
        k = self.k_proj(x).view(shape).transpose(1, 2)
        v = self.v_proj(x).view(shape).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        future = torch.ones(t, t, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, d)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, d, p):
        super().__init__()
        self.gate_proj = nn.Linear(d, p, bias=False)
        self.up_proj = nn.Linear(d, p, bias=False)
        self.down_proj = nn.Linear(p, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, d, heads, p, eps):
        super().__init__()
        self.input_layernorm = RMSNorm(d, eps)
        self.self_attn = Attention(d, heads)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.mlp = MLP(d, p)
        self.adapter = None  # a branch beside the MLP (--grown with neutral residues)

    def forward(self, h, cos, sin, state=None):
        h = h + self.self_attn(self.input_layernorm(h), cos, sin)
        if self.adapter is None:
            return h + self.mlp(self.post_attention_layernorm(h))
        # As DecoderLayerImpl::forward: the branch reads the MLP's normalised input and its
        # output is added after the MLP's.
        x2 = self.post_attention_layernorm(h)
        return h + self.mlp(x2) + self.adapter(x2, state)


class Backbone(nn.Module):
    def __init__(self, vocab, d, layers, heads, p, eps):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d, heads, p, eps) for _ in range(layers))
        self.norm = RMSNorm(d, eps)


class Llama(nn.Module):
    """Module names are the Hugging Face tensor names (model.layers.0.mlp.up_proj.weight)."""

    def __init__(self, vocab, d, layers, heads, p, eps=1e-6, theta=10000.0):
        super().__init__()
        self.model = Backbone(vocab, d, layers, heads, p, eps)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        head_dim = d // heads
        inv = 1.0 / theta ** (torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim)
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, ids, state=None):  # (B, T) → logits (B, T, V)
        t = ids.shape[1]
        freqs = torch.outer(torch.arange(t, dtype=torch.float), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        h = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            h = layer(h, cos, sin, state)
        return self.lm_head(self.model.norm(h))


# ---------------------------------------------------------------------------------------
# Grown models (--grown DIR): GrowBench's variants, module for module (core/grow).


class ForwardState:
    """What GrowBench's ForwardState gives a branch: the batch's domain and the aux list."""

    def __init__(self, rows, original_domain=False):
        self.original_domain = original_domain
        # data/torch_batch.cpp to_tensors: one label per row, 1 = new domain, 0 = original domain.
        self.domain_labels = torch.full((rows,), 0.0 if original_domain else 1.0)
        self.aux = []  # (name, value, coefficient)


class LoraLinear(nn.Module):
    """grow/lora.cpp LoraLinearImpl: y = base(x) + (alpha / r) · B (A x); no dropout."""

    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.zeros(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scale


class RowSplitLinear(nn.Module):
    """grow/split_linear.cpp: output rows split, y = cat(x W_fᵀ, x W_gᵀ) (up, gate)."""

    def __init__(self, d_in, out_frozen, out_grown):
        super().__init__()
        self.frozen_weight = nn.Parameter(torch.zeros(out_frozen, d_in))
        self.grown_weight = nn.Parameter(torch.zeros(out_grown, d_in))

    def forward(self, x):
        return torch.cat((F.linear(x, self.frozen_weight), F.linear(x, self.grown_weight)), -1)


class ColSplitLinear(nn.Module):
    """grow/split_linear.cpp: input columns split, y = x[:, :n_f] W_fᵀ + x[:, n_f:] W_gᵀ."""

    def __init__(self, in_frozen, in_grown, d_out):
        super().__init__()
        self.frozen_weight = nn.Parameter(torch.zeros(d_out, in_frozen))
        self.grown_weight = nn.Parameter(torch.zeros(d_out, in_grown))

    def forward(self, x):
        nf, ng = self.frozen_weight.shape[1], self.grown_weight.shape[1]
        return (F.linear(x.narrow(-1, 0, nf), self.frozen_weight) +
                F.linear(x.narrow(-1, nf, ng), self.grown_weight))


class GatedAdapter(nn.Module):
    """grow/adapters.cpp GatedAdapterImpl: y = s(x) · W_down (SiLU(W_g x) ⊙ W_up x)."""

    def __init__(self, d, m, gate, l1_alpha, bce_coefficient=1.0):
        super().__init__()
        self.gate_proj = nn.Linear(d, m, bias=False)
        self.up_proj = nn.Linear(d, m, bias=False)
        self.down_proj = nn.Linear(m, d, bias=False)
        self.block_gate = nn.Linear(d, 1, bias=False) if gate != "none" else None
        self.gate, self.l1_alpha, self.bce_coefficient = gate, l1_alpha, bce_coefficient

    def forward(self, x, state):
        a = self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
        z = None
        if self.gate == "none":
            y = a
        else:
            z = self.block_gate(x)  # (B, T, 1)
            y = (F.elu(z) if self.gate == "elu" else torch.sigmoid(z)) * a
        if state is None:
            return y
        b, t = x.shape[0], x.shape[1]  # no padding here: token means are plain means
        if self.l1_alpha > 0 and state.original_domain:
            l1 = y.float().abs().mean(-1).reshape(b, t).mean()
            state.aux.append(("local_l1", l1, self.l1_alpha))
        if self.gate == "sigmoid":
            target = state.domain_labels.float().reshape(-1).unsqueeze(1).expand(b, t)
            bce = F.binary_cross_entropy_with_logits(z.float().reshape(b, t), target,
                                                     reduction="none")
            state.aux.append(("gate_bce", bce.mean(), self.bce_coefficient))
        return y


UNIT_PATHS = {"q": ("self_attn", "q_proj"), "k": ("self_attn", "k_proj"),
              "v": ("self_attn", "v_proj"), "o": ("self_attn", "o_proj"),
              "gate": ("mlp", "gate_proj"), "up": ("mlp", "up_proj"), "down": ("mlp", "down_proj")}


def resolve_layers(selection, n):
    """LayerSelection::resolve: "all" (or absent) or a list of indices (sorted, unique)."""
    if selection is None or selection == "all":
        return list(range(n))
    if isinstance(selection, list) and selection and all(
            isinstance(i, int) and 0 <= i < n for i in selection):
        return sorted(set(selection))
    sys.exit(f"--grown: layers {json.dumps(selection)} is not \"all\" or a list of indices < {n}")


def apply_plan(model, plan, layer_count):
    """Grows `model` in place as GrowBench's apply_plan does (the structure only: the values
    come from grown.safetensors). Returns the names of the tensors that train, grouped as
    the plan's GrowthResult::groups (one group per unit, in the operator's order)."""
    variant = plan.get("variant", "full")
    layers = model.model.layers
    groups = []
    if variant == "lora":
        rank = int(plan.get("rank", 8))
        alpha = float(plan["alpha"]) if "alpha" in plan else 2.0 * rank  # variants/lora.cpp
        targets = plan.get("targets", ["q", "v"])
        if not targets or any(t not in UNIT_PATHS for t in targets) or len(set(targets)) < len(
                targets):
            sys.exit(f"--grown: bad LoRA targets in {json.dumps(plan)}")
        for l in resolve_layers(plan.get("layers"), layer_count):
            for target in targets:
                parent, attr = UNIT_PATHS[target]
                owner = getattr(layers[l], parent)
                setattr(owner, attr, LoraLinear(getattr(owner, attr), rank, alpha))
                prefix = f"model.layers.{l}.{parent}.{attr}."
                groups.append([prefix + "lora_A", prefix + "lora_B"])
    elif variant == "grow":
        mode, k = plan.get("mode", "freeze"), int(plan.get("k", 2))
        if mode not in ("freeze", "train") or k < 2:
            sys.exit(f"--grown: grow needs mode freeze or train and k >= 2: {json.dumps(plan)}")
        for l in resolve_layers(plan.get("layers"), layer_count):
            mlp = layers[l].mlp
            p, d = mlp.up_proj.out_features, mlp.up_proj.in_features
            prefix = f"model.layers.{l}.mlp."
            if mode == "freeze":
                mlp.gate_proj = RowSplitLinear(d, p, (k - 1) * p)
                mlp.up_proj = RowSplitLinear(d, p, (k - 1) * p)
                mlp.down_proj = ColSplitLinear(p, (k - 1) * p, d)
                groups += [[prefix + u + ".grown_weight"] for u in ("gate_proj", "up_proj",
                                                                      "down_proj")]
            else:
                mlp.gate_proj = nn.Linear(d, k * p, bias=False)
                mlp.up_proj = nn.Linear(d, k * p, bias=False)
                mlp.down_proj = nn.Linear(k * p, d, bias=False)
                groups += [[prefix + "gate_proj.weight"], [prefix + "up_proj.weight"]]
    elif variant in ("neutral-residues", "adapters"):
        nr = variant == "neutral-residues"
        gate = plan.get("gate", "elu") if nr else "none"
        if (nr and gate not in ("elu", "sigmoid")) or (not nr and "gate" in plan):
            sys.exit(f"--grown: bad adapter gate in {json.dumps(plan)}")
        l1_alpha = float(plan.get("alpha", 100.0)) if nr else 0.0
        selected = resolve_layers(plan.get("layers"), layer_count)
        d = layers[selected[0]].mlp.up_proj.in_features
        inner = int(plan.get("inner", 0))
        if inner <= 0:  # adapter_inner_size: the budget over the selected layers
            base = sum(t.numel() for t in model.parameters())
            per_layer = float(plan.get("budget", 0.2)) * base / len(selected)
            inner = int(math.floor((per_layer - (d if gate != "none" else 0)) / (3.0 * d)))
        for l in selected:
            layers[l].adapter = GatedAdapter(d, inner, gate, l1_alpha)
            # groups_from_requires_grad: one group per (layer, branch), in parameter order.
            groups.append([f"model.layers.{l}.adapter.{name}"
                           for name, _ in layers[l].adapter.named_parameters()])
    else:
        sys.exit(f"--grown: variant '{variant}' is not implemented here "
                 "(lora, grow, neutral-residues, adapters)")
    return groups


def load_grown(model, grown_dir, layer_count):
    """Grows the model as grown.json's plan says, loads grown.safetensors into it and sets
    requires_grad from the file's list. Returns (plan, trainable tensors in the trainer's
    order)."""
    with open(f"{grown_dir}/grown.json") as f:
        meta = json.load(f)
    plan, trainable = meta["plan"], meta["trainable"]
    groups = apply_plan(model, plan, layer_count)
    missing, unexpected = model.load_state_dict(
        load_safetensors(f"{grown_dir}/grown.safetensors"), strict=True)
    assert not missing and not unexpected
    params = dict(model.named_parameters())
    # The trainer's AdamW groups (train/trainer.cpp): per plan group its matrices (weight
    # decay), then its vectors; it clips the gradients in this order too.
    order = [n for g in groups for n in
             [n for n in g if params[n].dim() >= 2] + [n for n in g if params[n].dim() < 2]]
    if sorted(order) != sorted(trainable) or len(set(trainable)) != len(trainable):
        sys.exit(f"--grown: {grown_dir}/grown.json trains {sorted(trainable)}, but the plan "
                 f"{json.dumps(plan)} trains {sorted(order)} here")
    for t in params.values():
        t.requires_grad_(False)
    for name in trainable:
        params[name].requires_grad_(True)
    return plan, [params[name] for name in order]


def init_weights(model, std=0.02):
    """As gb::init_weights: normal(0, std) matrices, unit norm weights."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0)
            else:
                p.normal_(0.0, std)


def load_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            sys.exit(f"{path}: tensor {name} is {info['dtype']}, expected F32")
        start, end = info["data_offsets"]
        buf = bytearray(data[base + start : base + end])
        tensors[name] = torch.frombuffer(buf, dtype=torch.float32).reshape(info["shape"])
    return tensors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--mlp", type=int, default=688)
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--init", help="model.safetensors written by bench_train_step --save-init")
    ap.add_argument("--grown", metavar="DIR",
                    help="train the grown model that bench_train_step --plan P --save-init DIR "
                         "wrote (DIR/grown.json, DIR/grown.safetensors)")
    a = ap.parse_args()
    if a.init and a.grown:
        sys.exit("--init and --grown exclude each other (grown.safetensors holds every tensor)")

    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = Llama(a.vocab, a.hidden, a.layers, a.heads, a.mlp)
    plan = {"variant": "full"}
    if a.grown:
        plan, trained = load_grown(model, a.grown, a.layers)
    elif a.init:
        missing, unexpected = model.load_state_dict(load_safetensors(a.init), strict=True)
        assert not missing and not unexpected
    else:
        init_weights(model)
    model.train()
    if not a.grown:
        trained = list(model.parameters())
    decay = [p for p in trained if p.dim() >= 2]
    no_decay = [p for p in trained if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=1e-4, betas=(0.9, 0.999), eps=1e-8)
    data = batches(a.vocab, a.batch, a.seq_len, 4)

    ms, losses = [], []
    scope = torch.autograd.profiler.record_function
    profiler = None
    for s in range(a.warmup + a.steps):
        if a.profile and s == a.warmup:
            profiler = torch.autograd.profiler.profile()
            profiler.__enter__()
        t0 = time.perf_counter()
        tokens = data[s % len(data)]
        inputs, labels = tokens[:, :-1], tokens[:, 1:]
        with scope("gb::forward"):
            if a.grown:
                # Every batch is new-domain (data::Batch's default), as bench_train_step's.
                state = ForwardState(inputs.shape[0], original_domain=False)
                logits = model(inputs, state)
            else:
                logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, a.vocab).float(), labels.reshape(-1))
            if a.grown:
                for _, value, coefficient in state.aux:  # Trainer::part_loss
                    loss = loss + value * coefficient
            loss_value = loss.item()  # as GrowBench's trainer checks it every step
        with scope("gb::backward"):
            loss.backward()
        with scope("gb::clip"):
            torch.nn.utils.clip_grad_norm_(trained if a.grown else model.parameters(), 1.0)
        with scope("gb::optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        t1 = time.perf_counter()
        losses.append(loss_value)
        if s >= a.warmup:
            ms.append((t1 - t0) * 1000.0)
    ms_sorted = sorted(ms)
    n = len(ms_sorted)
    median = ms_sorted[n // 2] if n % 2 else 0.5 * (ms_sorted[n // 2 - 1] + ms_sorted[n // 2])
    tokens_per_step = a.batch * a.seq_len
    profile = None
    if profiler is not None:
        profiler.__exit__(None, None, None)
        profile = {"phases": {}, "ops": {}}
        for e in profiler.key_averages():
            if e.key.startswith("gb::"):
                profile["phases"][e.key] = {"total_ms": e.cpu_time_total / 1000.0 / a.steps,
                                            "self_ms": e.self_cpu_time_total / 1000.0 / a.steps}
            else:
                profile["ops"][e.key] = {"self_ms": e.self_cpu_time_total / 1000.0 / a.steps,
                                         "calls": e.count / a.steps}
    out = {
        "impl": "pytorch", "torch": torch.__version__, "threads": a.threads,
        "steps": a.steps, "warmup": a.warmup,
        "plan": plan,
        "params": sum(p.numel() for p in model.parameters()),
        "trainable": sum(p.numel() for p in trained),
        "tokens_per_step": tokens_per_step, "step_ms_median": median,
        "step_ms_mean": sum(ms) / n,
        "tokens_per_s": tokens_per_step * n / (sum(ms) / 1000.0), "losses": losses}
    if profile is not None:
        out["profile"] = profile
    print(json.dumps(out))


if __name__ == "__main__":
    main()
