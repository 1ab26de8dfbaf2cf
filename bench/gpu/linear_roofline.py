#!/usr/bin/env python3
"""One engine step's weight matrix products on a real GPU, to check a GPU preset's efficiencies.

The simulator's cost model (docs/simulator.md) times a step of T tokens as a roofline of
  compute = 2 * linear_params * T / (peak * compute_efficiency)
  memory  = weight bytes / (bandwidth * bandwidth_efficiency)
This measures the same thing on the GPU at hand with PyTorch (cuBLAS), for a model preset's
shapes with random bf16 weights: every layer's qkv, o, gate_up and down products plus the lm_head,
each layer with its own weights (so nothing stays in L2), captured in one CUDA graph as vLLM
captures its decode steps (no launch gaps), timed with CUDA events. Attention and the KV cache
are left out: the step's matrix products are what the two efficiencies describe.

  python3 bench/gpu/linear_roofline.py [MODEL=llama-3-8b] [T ...]
prints one JSON line per T: ms per step, achieved TB/s of weights and TFLOP/s.
"""
import json
import sys

import torch

MODELS = {  # hidden, ffn, layers, heads, kv heads, vocab: as `servebench sim --list-presets`
    "llama-3-8b": (4096, 14336, 32, 32, 8, 128256),
    "qwen3-32b": (5120, 25600, 64, 64, 8, 151936),
    "llama-3.2-1b": (2048, 8192, 16, 32, 8, 128256),
}


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "llama-3-8b"
    tokens = [int(t) for t in sys.argv[2:]] or [1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
    h, f, layers, heads, kv, vocab = MODELS[name]
    hd = h // heads
    dev = torch.device("cuda")
    dt = torch.bfloat16
    # (in, out) of each product of one layer
    shapes = [(h, (heads + 2 * kv) * hd), (heads * hd, h), (h, 2 * f), (f, h)]
    ws = [[torch.randn(k, n, device=dev, dtype=dt) * 0.02 for k, n in shapes] for _ in range(layers)]
    head = torch.randn(h, vocab, device=dev, dtype=dt) * 0.02
    linear_params = layers * sum(k * n for k, n in shapes) + h * vocab
    weight_bytes = 2 * linear_params
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "model": name, "linear_params": linear_params,
                      "torch": torch.__version__}), flush=True)
    for t in tokens:
        xs = {k: torch.randn(t, k, device=dev, dtype=dt) for k in {k for k, _ in shapes}}
        outs = [torch.empty(t, n, device=dev, dtype=dt) for _, n in shapes]
        last = torch.empty(1, vocab, device=dev, dtype=dt)  # vLLM computes logits of the last token only

        def step():
            for layer in ws:
                for (k, _), w, o in zip(shapes, layer, outs):
                    torch.matmul(xs[k], w, out=o)
            torch.matmul(xs[h][-1:], head, out=last)

        for _ in range(3):
            step()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        reps = 20
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            g.replay()
        b.record()
        torch.cuda.synchronize()
        ms = a.elapsed_time(b) / reps
        flops = 2 * (linear_params - h * vocab) * t + 2 * h * vocab
        print(json.dumps({"tokens": t, "ms": round(ms, 4), "weights_tb_s": round(weight_bytes / ms / 1e9, 3),
                          "tflop_s": round(flops / ms / 1e9, 1)}), flush=True)
        del g, xs, outs


if __name__ == "__main__":
    main()
