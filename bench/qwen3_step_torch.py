#!/usr/bin/python3
"""One training step of a Qwen3- or Llama-shaped model in plain PyTorch eager: the reference
for `bench_train_step --config bench/configs/qwen3-0.6b.json` (peak memory and tokens/s) and
for bench/size_ladder.sh's steps.

The model follows Hugging Face's Qwen3 and Llama (eager attention): token embedding, pre-norm
layers of RMSNorm, attention with per-head q/k RMSNorm (Qwen3 only), rotary position
embeddings (Llama 3's rope_scaling applied to the frequencies), grouped kv heads repeated to
the query heads and a causal mask, SwiGLU MLP; final RMSNorm; head tied to the embedding or
its own matrix, as the config says. Random weights (normal(0, 0.02), norms 1), float32 on the CPU. Plans:
--lora-rank R (default 16) adds LoRA y = W x + (2R / R) B A x on every linear of every
layer (q, k, v, o, gate, up, down; W frozen, A and B train; B random so that every product
runs), --lora-rank 0 trains every parameter. AdamW (lr 1e-4, weight decay 0.01 on matrices),
clipping at 1.0, cross-entropy over the full logits. Batches of 4 x 256 ids from the 64-bit
LCG bench_train_step draws. --checkpointing 1 wraps every layer in
torch.utils.checkpoint (non-reentrant: the frozen embedding gives the first layer an input without gradient).

Prints one JSON line: "peak_rss_growth_mb" is the peak resident memory (VmHWM, reset first)
less the resident memory before the model was built, as bench_train_step prints it.

Run with Debian's interpreter (python3-torch 1.13):
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/qwen3_step_torch.py --config bench/configs/qwen3-0.6b.json
"""

import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

from torch_ref import RMSNorm, batches, rotate_half, status_bytes


class Linear(nn.Module):
    def __init__(self, i, o, rank):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i).normal_(0, 0.02))
        self.rank = rank
        if rank:
            self.weight.requires_grad_(False)
            self.lora_A = nn.Parameter(torch.empty(rank, i).normal_(0, 0.02))
            self.lora_B = nn.Parameter(torch.empty(o, rank).normal_(0, 0.02))
            self.scale = 2.0

    def forward(self, x):
        y = F.linear(x, self.weight)
        if self.rank:
            y = y + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scale
        return y


def head_dim(c):
    return c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]


def inv_freq(c):
    """RoPE's inverse frequencies, with Llama 3's rope_scaling where the config has it."""
    hd = head_dim(c)
    f = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd))
    rs = c.get("rope_scaling") or {}
    if rs.get("rope_type", rs.get("type")) == "llama3":
        old = rs["original_max_position_embeddings"]
        low, high = old / rs["low_freq_factor"], old / rs["high_freq_factor"]
        wavelen = 2 * math.pi / f
        smooth = (old / wavelen - rs["low_freq_factor"]) / (rs["high_freq_factor"] -
                                                            rs["low_freq_factor"])
        mid = (1 - smooth) * f / rs["factor"] + smooth * f
        f = torch.where(wavelen > low, f / rs["factor"], torch.where(wavelen < high, f, mid))
    return f


class Layer(nn.Module):
    def __init__(self, c, rank):
        super().__init__()
        d, hd = c["hidden_size"], head_dim(c)
        self.h, self.kv, self.hd = c["num_attention_heads"], c["num_key_value_heads"], hd
        eps = c["rms_norm_eps"]
        self.input_layernorm = RMSNorm(d, eps)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.q_proj = Linear(d, self.h * hd, rank)
        self.k_proj = Linear(d, self.kv * hd, rank)
        self.v_proj = Linear(d, self.kv * hd, rank)
        self.o_proj = Linear(self.h * hd, d, rank)
        qk_norm = c["model_type"] == "qwen3"
        self.q_norm = RMSNorm(hd, eps) if qk_norm else nn.Identity()
        self.k_norm = RMSNorm(hd, eps) if qk_norm else nn.Identity()
        p = c["intermediate_size"]
        self.gate_proj = Linear(d, p, rank)
        self.up_proj = Linear(d, p, rank)
        self.down_proj = Linear(p, d, rank)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        hx = self.input_layernorm(x)
        q = self.q_norm(self.q_proj(hx).view(b, t, self.h, self.hd)).transpose(1, 2)
        k = self.k_norm(self.k_proj(hx).view(b, t, self.kv, self.hd)).transpose(1, 2)
        v = self.v_proj(hx).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.h // self.kv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        s = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd) + mask
        a = torch.matmul(F.softmax(s, dim=-1, dtype=torch.float32), v)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, t, -1))
        h2 = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h2)) * self.up_proj(h2))


class Model(nn.Module):
    def __init__(self, c, rank, checkpointing):
        super().__init__()
        self.embed = nn.Embedding(c["vocab_size"], c["hidden_size"])
        nn.init.normal_(self.embed.weight, 0, 0.02)
        if rank:
            self.embed.weight.requires_grad_(False)
        self.layers = nn.ModuleList(Layer(c, rank) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        if rank:
            for m in self.modules():
                if isinstance(m, RMSNorm):
                    m.weight.requires_grad_(False)
        self.head = None
        if not c.get("tie_word_embeddings", False):
            self.head = nn.Parameter(torch.empty(c["vocab_size"], c["hidden_size"]).normal_(0, 0.02),
                                     requires_grad=not rank)
        self.inv_freq = inv_freq(c)
        self.checkpointing = checkpointing

    def forward(self, ids):
        t = ids.shape[1]
        freqs = torch.outer(torch.arange(t).float(), self.inv_freq)
        emb = torch.cat((freqs, freqs), -1)
        cos, sin = emb.cos(), emb.sin()
        mask = torch.full((t, t), float("-inf")).triu(1)
        x = self.embed(ids)
        for layer in self.layers:
            if self.checkpointing and torch.is_grad_enabled():
                x = torch.utils.checkpoint.checkpoint(layer, x, cos, sin, mask, use_reentrant=False)
            else:
                x = layer(x, cos, sin, mask)
        return F.linear(self.norm(x), self.embed.weight if self.head is None else self.head)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--checkpointing", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    c = json.load(open(a.config))
    data = batches(c["vocab_size"], a.batch, a.seq_len, 2)
    rss0 = status_bytes("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    model = Model(c, a.lora_rank, a.checkpointing != 0)
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
    other = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": other, "weight_decay": 0.0}], lr=1e-4, eps=1e-8)
    params = decay + other
    ms, losses = [], []
    for s in range(a.warmup + a.steps):
        ids = data[s % len(data)]
        t0 = time.perf_counter()
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        del logits
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
        t1 = time.perf_counter()
        if s >= a.warmup:
            ms.append((t1 - t0) * 1000)
    peak = status_bytes("VmHWM")
    tokens = a.batch * a.seq_len
    print(json.dumps({
        "impl": "pytorch-eager", "torch": torch.__version__, "threads": a.threads,
        "lora_rank": a.lora_rank, "checkpointing": a.checkpointing != 0,
        "trainable": sum(p.numel() for p in params),
        "params": sum(p.numel() for p in model.parameters()),
        "tokens_per_step": tokens, "step_ms": ms,
        "tokens_per_s": tokens * len(ms) / (sum(ms) / 1000.0), "losses": losses,
        "peak_rss_growth_mb": (peak - rss0) / (1 << 20)}))


if __name__ == "__main__":
    main()
