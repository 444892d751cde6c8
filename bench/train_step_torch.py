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


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


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

    def forward(self, h, cos, sin):
        h = h + self.self_attn(self.input_layernorm(h), cos, sin)
        return h + self.mlp(self.post_attention_layernorm(h))


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

    def forward(self, ids):  # (B, T) → logits (B, T, V)
        t = ids.shape[1]
        freqs = torch.outer(torch.arange(t, dtype=torch.float), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        h = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            h = layer(h, cos, sin)
        return self.lm_head(self.model.norm(h))


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


def batches(vocab, batch, seq_len, count):
    """(batch, seq_len + 1) ids from the LCG that bench_train_step.cpp uses."""
    x, mask, out = 12345, (1 << 64) - 1, []
    for _ in range(count):
        ids = []
        for _ in range(batch * (seq_len + 1)):
            x = (x * 6364136223846793005 + 1442695040888963407) & mask
            ids.append((x >> 33) % vocab)
        out.append(torch.tensor(ids, dtype=torch.long).view(batch, seq_len + 1))
    return out


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
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = Llama(a.vocab, a.hidden, a.layers, a.heads, a.mlp)
    if a.init:
        missing, unexpected = model.load_state_dict(load_safetensors(a.init), strict=True)
        assert not missing and not unexpected
    else:
        init_weights(model)
    model.train()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
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
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, a.vocab).float(), labels.reshape(-1))
            loss_value = loss.item()  # as GrowBench's trainer checks it every step
        with scope("gb::backward"):
            loss.backward()
        with scope("gb::clip"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
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
        "params": sum(p.numel() for p in model.parameters()),
        "tokens_per_step": tokens_per_step, "step_ms_median": median,
        "step_ms_mean": sum(ms) / n,
        "tokens_per_s": tokens_per_step * n / (sum(ms) / 1000.0), "losses": losses}
    if profile is not None:
        out["profile"] = profile
    print(json.dumps(out))


if __name__ == "__main__":
    main()
