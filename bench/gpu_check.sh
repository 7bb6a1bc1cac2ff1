#!/usr/bin/env bash
# Our CUDA kernels on an NVIDIA GPU (spec/backends.md BE-host-3): the Llama-style layer
# and the conformance kernels, compiled with NVRTC, loaded and launched with
# cuda-bindings, each compared with the interpreter; prints the largest differences and
# the kernel times. Needs no network: the repository's virtual environment with the
# cuda extra (nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12, cuda-bindings).
# Under 8 minutes: compiling takes about a minute, the conformance part stops at
# BUDGET seconds (default 300).
#     bench/gpu_check.sh [--n 8] [--cases N]
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
command -v nvidia-smi >/dev/null && nvidia-smi -L || echo "nvidia-smi not found"
exec timeout 470 "$PY" bench/gpu_check.py --budget "${BUDGET:-300}" "$@"
