"""The device schedule the emitters, the device host and the benchmark apply
(spec/backends.md BE-sched-9): injective stages inlined (BE-sched-6), reduction nests
register-tiled with their epilogue (BE-sched-7, 8), row reductions as shared-memory
trees on request (BE-sched-5), every other nest bound by the default schedule
(BE-sched-1..4). Each step keeps what it cannot prove exact as it was, so the fallback
for any stage is the default schedule's kernel per nest."""
from __future__ import annotations

from relax_ref.ir import tir

from .gpu_schedule import default_gpu_schedule, is_scheduled
from .inline import inline_injective
from .row_reduction import is_row_reduction, schedule_row_reductions
from .tile_reduction import tile_reductions

__all__ = ["device_schedule"]


def device_schedule(func: tir.PrimFunc, max_threads: int = 1024,
                    row_reductions: bool = False) -> tir.PrimFunc:
    """``func`` scheduled for a GPU with at most ``max_threads`` threads per block;
    unchanged when already scheduled."""
    if is_scheduled(func):
        return func
    staged = inline_injective(func)
    staged = tile_reductions(staged, skip=is_row_reduction if row_reductions else None)
    if row_reductions:
        return schedule_row_reductions(staged, max_threads)
    return default_gpu_schedule(staged, max_threads)
