#!/usr/bin/python3
"""Would fewer, larger matrix products speed up a training step? (issue 17's next question)

Forward and backward of the bench model's projections (tokens 1 024 = 8 x 128, d = 256) in
Debian's PyTorch, on the OpenBLAS GrowBench uses: q, k, v as three products against one
product with the three weights stacked (stored stacked, or concatenated every step as a
model with separate Hugging Face tensors would), and the same for gate and up (MLP 688).
Prints the median time of each and the ratio separate / fused.

Run: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/fused_products.py [--threads 1]
"""

import argparse
import statistics
import time

import torch


def median_ms(fn, reps=15):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000.0


def case(x, outs):
    d = x.shape[1]
    separate_w = [torch.randn(o, d, requires_grad=True) for o in outs]
    stacked_w = torch.randn(sum(outs), d, requires_grad=True)

    def separate():
        sum(torch.nn.functional.linear(x, w).sum() for w in separate_w).backward()

    def stacked():
        torch.nn.functional.linear(x, stacked_w).sum().backward()

    def concatenated():
        torch.nn.functional.linear(x, torch.cat(separate_w, 0)).sum().backward()

    return median_ms(separate), median_ms(stacked), median_ms(concatenated)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    x = torch.randn(1024, 256, requires_grad=True)
    for name, outs in [("q, k, v (3 x 256)", [256, 256, 256]), ("gate, up (2 x 688)", [688, 688])]:
        s, f, c = case(x, outs)
        print(f"{name}: separate {s:.2f} ms; one stacked product {f:.2f} ms ({s / f:.2f}x); "
              f"concatenated each step {c:.2f} ms ({s / c:.2f}x)")


if __name__ == "__main__":
    main()
