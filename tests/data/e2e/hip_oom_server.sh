#!/bin/sh
# A fake server for tests/e2e/tune_test.cpp: prints what vLLM on ROCm prints when the KV cache does
# not fit, and exits 1 before serving, as a real one does.
echo "INFO 03-14 10:02:11 [__init__.py:239] Automatically detected platform rocm."
echo "INFO 03-14 10:03:02 [model_runner.py:1146] Loading model weights took 61.0714 GB"
echo "[rank0]: Traceback (most recent call last):" >&2
echo "[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 12.50 GiB. GPU 0 has a total capacity of 191.98 GiB of which 9.20 GiB is free." >&2
exit 1
