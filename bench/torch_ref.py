"""Pieces the PyTorch reference scripts of bench/ share (train_step_torch.py,
qwen3_step_torch.py): the Llama/Qwen RMSNorm and rotary half-rotation as Hugging Face
writes them, the 64-bit LCG batches that bench_train_step.cpp draws, and /proc/self/status
readings for peak memory. Imported from the scripts' own folder (python3 bench/NAME.py)."""

import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    """weight * x / sqrt(mean(x^2) + eps), computed in float32 and cast back."""

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


def batches(vocab, batch, seq_len, count):
    """count tensors of (batch, seq_len + 1) ids from the LCG that bench_train_step.cpp uses."""
    x, mask, out = 12345, (1 << 64) - 1, []
    for _ in range(count):
        ids = []
        for _ in range(batch * (seq_len + 1)):
            x = (x * 6364136223846793005 + 1442695040888963407) & mask
            ids.append((x >> 33) % vocab)
        out.append(torch.tensor(ids, dtype=torch.long).view(batch, seq_len + 1))
    return out


def status_bytes(key):
    """A /proc/self/status field in bytes (VmRSS, VmHWM, ...), -1 when absent."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1
