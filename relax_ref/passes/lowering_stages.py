"""The order of TVM 0.27's default build pipeline (``relax.pipeline.default_build_pipeline``,
what ``tvm.compile`` runs for "llvm"; paper Fig. 13), and the input each of its passes
gets: the passes before it (spec/passes.md, PASS-lower-stage-1).

The lowering passes are fuzzed on random programs brought to their stage (PASS-fuzz-3),
and ``PIPELINES["default"]`` is the part of this order relax_ref registers.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx

from .registry import all_passes, get_pass

#: TVM 0.27's default pipeline, in order (DispatchSampling and RewriteCUDAGraph included:
#: the stages relax_ref does not register are skipped where the order is used).
TVM_DEFAULT_ORDER: tuple[str, ...] = (
    "DispatchSampling", "DispatchSortScan", "LegalizeOps", "RewriteDataflowReshape",
    "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
    "RewriteCUDAGraph", "LowerAllocTensor", "KillAfterLastUse", "LowerRuntimeBuiltin",
    "ComputePrimValue", "VMShapeLower", "AttachGlobalSymbol",
)


#: Stages TVM runs only for some targets (RewriteCUDAGraph: CUDA with
#: ``relax.backend.use_cuda_graph``); the order above skips them (PASS-cudagraph-7).
TARGET_OPTIONAL: frozenset[str] = frozenset({"RewriteCUDAGraph"})


def registered_default_order() -> tuple[str, ...]:
    """The passes of ``TVM_DEFAULT_ORDER`` that relax_ref registers, in order."""
    known = all_passes()
    return tuple(name for name in TVM_DEFAULT_ORDER
                 if name in known and name not in TARGET_OPTIONAL)


def stage_before(name: str, mod: rx.IRModule) -> rx.IRModule:
    """``mod`` after every registered pass that precedes ``name`` in the default order."""
    known = all_passes()
    for earlier in TVM_DEFAULT_ORDER[:TVM_DEFAULT_ORDER.index(name)]:
        if earlier in known and earlier not in TARGET_OPTIONAL:
            mod = get_pass(earlier)(mod)
    return mod


def fuzz_inputs_for(name: str):
    """PASS-fuzz-3: the ``fuzz_inputs`` of the lowering pass ``name``."""
    def prepare(mod: rx.IRModule) -> rx.IRModule:
        return stage_before(name, mod)
    prepare.__name__ = f"before_{name}"
    return prepare
