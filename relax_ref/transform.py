"""The passes as TVM users call them: ``relax_ref.transform.<TVM pass name>(...)`` returns
a pass, a callable ``IRModule -> IRModule`` that carries its contract (spec/passes.md).

    mod = transform.BindSymbolicVars({"n": 4})(mod)
    seq = transform.Sequential([transform.LambdaLift(), transform.ToNonDataflow()])

Each function takes TVM's arguments, by TVM's names and defaults; the passes themselves
live in ``relax_ref/passes/`` (one file per pass). ``build_pass(name, options)`` is the
same from a name and a dict (``relax-ref opt --pass-opt``); ``pass_options(name)`` lists
what a pass takes.
"""
from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence

from relax_ref.passes.registry import Pass, all_passes, get_pass

__all__ = [
    "BindParams", "BindSymbolicVars", "CanonicalizeBindings", "ConvertToDataflow",
    "DeadCodeElimination", "DispatchSortScan", "EliminateCommonSubexpr", "FoldConstant",
    "InlinePrivateFunctions", "LambdaLift", "LegalizeOps", "Normalize", "RemovePurityChecking",
    "RemoveUnusedOutputs", "RemoveUnusedParameters", "ToNonDataflow", "TopologicalSort",
    "RewriteDataflowReshape", "FuseTransposeMatmul",
    "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "FuseOpsByPattern", "LowerToLibrary",
    "CallTIRRewrite", "LowerAllocTensor", "KillAfterLastUse", "LowerRuntimeBuiltin",
    "ComputePrimValue", "AttachGlobalSymbol", "VMShapeLower",
    "DispatchSampling",
    "Sequential", "build_pass", "pass_options",
]


# -- passes with TVM's options ---------------------------------------------------------------

def BindParams(func_name: str, params: Mapping) -> Pass:
    """Bind parameters of ``func_name`` (name or parameter -> NumPy array) to constants."""
    from relax_ref.passes.bind_params import bind_params

    return bind_params(func_name, params)


def BindSymbolicVars(binding_map: Mapping, func_name: str | None = None) -> Pass:
    """Bind symbolic variables (name or variable -> int or expression), in ``func_name``
    or in every Relax function that defines them."""
    from relax_ref.passes.bind_symbolic_vars import bind_symbolic_vars

    return bind_symbolic_vars(binding_map, func_name)


def ConvertToDataflow(min_size: int = 2) -> Pass:
    """Runs of at least ``min_size`` pure bindings become dataflow blocks."""
    from relax_ref.passes.convert_to_dataflow import convert_to_dataflow

    return convert_to_dataflow(min_size)


def DeadCodeElimination(entry_functions: Sequence[str] | None = None) -> Pass:
    """Remove unused pure bindings, and functions neither public nor reached from
    ``entry_functions``."""
    from relax_ref.passes.dead_code_elimination import dead_code_elimination_with

    if isinstance(entry_functions, str):  # one name (``--pass-opt ...:entry_functions=f``)
        entry_functions = [entry_functions]
    return dead_code_elimination_with(entry_functions)


def EliminateCommonSubexpr(call_only: bool = False) -> Pass:
    """Merge equal pure values within a function (only calls with ``call_only``)."""
    from relax_ref.passes.eliminate_common_subexpr import eliminate_common_subexpr_with

    return eliminate_common_subexpr_with(call_only)


def LegalizeOps(customize_legalize_map=None, skip_ops=(), enable_warning: bool = False) -> Pass:
    """Lower every op with a legalization to ``call_tir`` of a PrimFunc (op name ->
    ``ctx -> expr`` in ``customize_legalize_map`` overrides ours; ``skip_ops`` stay)."""
    from relax_ref.passes.legalize_ops import legalize_ops_with

    if isinstance(skip_ops, str):
        skip_ops = [skip_ops]
    return legalize_ops_with(customize_legalize_map, skip_ops, enable_warning)


def TopologicalSort(order: str = "depth-first", direction: str = "from-inputs") -> Pass:
    """Sort the bindings of dataflow blocks (``order``: depth-first or breadth-first;
    ``direction``: from-inputs or from-outputs)."""
    from relax_ref.passes.topological_sort import topological_sort_with

    return topological_sort_with(order, direction)


# -- passes without options --------------------------------------------------------------------

def AnnotateTIROpPattern() -> Pass:
    """Write each PrimFunc's operator pattern (TVM's OpPatternKind) as its ``op_pattern``
    attribute, found from its blocks' loads and stores; FuseOps reads it."""
    return get_pass("AnnotateTIROpPattern")


def FuseOps(fuse_opt_level: int = -1) -> Pass:
    """Group call_tir bindings by their PrimFuncs' ``op_pattern`` into private Primitive
    functions (``fuse_opt_level`` -1: the default level 2; 0: nothing fuses)."""
    from relax_ref.passes.fuse_ops import fuse_ops

    return fuse_ops(fuse_opt_level)


def FuseTIR() -> Pass:
    """Merge the PrimFuncs each Primitive function (FuseOps' groups) calls into one
    PrimFunc and call it with one call_tir (run after FuseOps)."""
    return get_pass("FuseTIR")


def FuseOpsByPattern(patterns=(), bind_constants: bool = True,
                     annotate_codegen: bool = False) -> Pass:
    """Each match of a (name, pattern[, check]) inside a dataflow block becomes a call of a
    private function marked Composite (the name) and Primitive (relax_ref.passes.patterns
    is the pattern language; relax_ref.passes.library the library lowering after it).
    ``patterns`` defaults to none (the identity) where TVM requires it."""
    from relax_ref.passes.fuse_ops_by_pattern import fuse_ops_by_pattern

    return fuse_ops_by_pattern(patterns, bind_constants, annotate_codegen)


def LowerToLibrary() -> Pass:
    """relax_ref's own pass, not TVM's: calls of Composite functions whose pattern name is
    in the library table (relax_ref.passes.library) become R.call_dps_packed of its
    packed function."""
    return get_pass("LowerToLibrary")


def CanonicalizeBindings() -> Pass:
    """Replace trivial re-bindings by their source, simplify redundant match_casts."""
    return get_pass("CanonicalizeBindings")


def DispatchSortScan() -> Pass:
    """sort/argsort/topk to sorting library calls, cumsum/cumprod to serial scans (TVM's
    ``relax.backend.DispatchSortScan``; run before LegalizeOps)."""
    return get_pass("DispatchSortScan")


def DispatchSampling() -> Pass:
    """multinomial_from_uniform to a cumsum and a PrimFunc picking the index (TVM's
    ``relax.backend.DispatchSampling``, CPU path; run before DispatchSortScan)."""
    return get_pass("DispatchSampling")


def FoldConstant() -> Pass:
    """Evaluate calls whose operands are all constants."""
    return get_pass("FoldConstant")


def InlinePrivateFunctions() -> Pass:
    """Inline calls of private Relax functions."""
    return get_pass("InlinePrivateFunctions")


def LambdaLift() -> Pass:
    """Lift local functions to the module."""
    return get_pass("LambdaLift")


def Normalize() -> Pass:
    """Bring the module to A-normal form with struct info everywhere."""
    return get_pass("Normalize")


def RemovePurityChecking() -> Pass:
    """Mark pure functions force_pure and unwrap the pure-override ops."""
    return get_pass("RemovePurityChecking")


def RemoveUnusedOutputs() -> Pass:
    """Drop outputs of private functions that no caller uses."""
    return get_pass("RemoveUnusedOutputs")


def RemoveUnusedParameters() -> Pass:
    """Drop parameters of private functions that their body does not use."""
    return get_pass("RemoveUnusedParameters")


def RewriteDataflowReshape() -> Pass:
    """In dataflow blocks, call_tir of a PrimFunc proved to copy its input in row-major
    order becomes ``R.reshape`` (run after LegalizeOps)."""
    return get_pass("RewriteDataflowReshape")


def FuseTransposeMatmul() -> Pass:
    """``R.matmul(x, R.permute_dims(w))`` (last two axes exchanged) becomes one call_tir
    of a PrimFunc reading ``w`` transposed (run before LegalizeOps)."""
    return get_pass("FuseTransposeMatmul")


def ToNonDataflow() -> Pass:
    """Turn every dataflow block into an ordinary binding block."""
    return get_pass("ToNonDataflow")


def CallTIRRewrite() -> Pass:
    """call_tir, call_tir_inplace and call_dps_packed become R.builtin.alloc_tensor and a
    direct call of the kernel (run after ToNonDataflow and RemovePurityChecking)."""
    return get_pass("CallTIRRewrite")


def LowerAllocTensor() -> Pass:
    """Each R.builtin.alloc_tensor becomes a storage of its bytes and a tensor in it."""
    return get_pass("LowerAllocTensor")


def KillAfterLastUse() -> Pass:
    """Kill each allocated tensor and storage after the last use of what may share it."""
    return get_pass("KillAfterLastUse")


def LowerRuntimeBuiltin() -> Pass:
    """Memory ops to the VM's; reshape, shape_of and tensor_to_shape to VM builtins."""
    return get_pass("LowerRuntimeBuiltin")


def ComputePrimValue() -> Pass:
    """R.prim_value of a composite expression becomes a call of a host PrimFunc."""
    return get_pass("ComputePrimValue")


def AttachGlobalSymbol() -> Pass:
    """Every function public with its global symbol (PrimFuncs after system_lib_prefix)."""
    return get_pass("AttachGlobalSymbol")


def VMShapeLower(emit_err_ctx: bool = True) -> Pass:
    """Symbolic values through the shape heap and the vm.builtin shape calls."""
    if not emit_err_ctx:
        raise ValueError("VMShapeLower always emits its error contexts: they give a failing "
                         "check its kind (EXEC-vm-2)")
    return get_pass("VMShapeLower")


def Sequential(passes: Sequence[Pass | str], name: str | None = None) -> Pass:
    """The passes in order as one pass (TVM's ``tvm.transform.Sequential``), checking
    the IR forms each requires and produces on the way (PASS-pipe-3)."""
    from relax_ref.passes.pipeline import Pipeline

    return Pipeline(passes).as_pass(name)


# -- by name (the command line) -------------------------------------------------------------

#: The parameter that collects the options not named as parameters, for passes whose
#: main argument is a map: ``--pass-opt BindSymbolicVars:n=4`` is ``binding_map={"n": 4}``.
_MAP_PARAMETER = {"BindSymbolicVars": "binding_map", "BindParams": "params"}


def _factory(name: str):
    factory = globals().get(name)
    if name not in __all__ or not callable(factory) or name in ("Sequential", "build_pass",
                                                                   "pass_options"):
        raise KeyError(f"no pass named {name!r} (passes: {', '.join(sorted(all_passes()))})")
    return factory


def pass_options(name: str) -> list[tuple[str, Any]]:
    """The options of pass ``name``: (parameter, default) pairs, ``inspect.Parameter.empty``
    for a required one."""
    return [(p.name, p.default) for p in inspect.signature(_factory(name)).parameters.values()]


def build_pass(name: str, options: Mapping[str, Any] | None = None) -> Pass:
    """Pass ``name`` with ``options`` by TVM's parameter names; for BindSymbolicVars and
    BindParams, the other keys are the entries of its map (symbol or parameter name ->
    value). TypeError or ValueError for options the pass does not take."""
    factory = _factory(name)
    params = dict(pass_options(name))
    kwargs: dict[str, Any] = {}
    entries: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key in params and key != _MAP_PARAMETER.get(name):
            kwargs[key] = value
        elif name in _MAP_PARAMETER:
            entries[key] = value
        else:
            known = ", ".join(params) or "none"
            raise TypeError(f"{name} has no option {key!r} (its options: {known})")
    if name in _MAP_PARAMETER:
        kwargs[_MAP_PARAMETER[name]] = entries
    missing = [p for p, d in params.items() if d is inspect.Parameter.empty and p not in kwargs]
    if missing:
        raise TypeError(f"{name} needs the option {missing[0]!r}")
    return factory(**kwargs)


def StaticPlanBlockMemory() -> Pass:
    """Allocations of tensors with disjoint lifetimes share storage, each plan proved safe
    (run after CallTIRRewrite; sizes at ``tir_var_upper_bound``)."""
    return get_pass("StaticPlanBlockMemory")


__all__.append("StaticPlanBlockMemory")


def AllocateWorkspace() -> Pass:
    """A kernel's global scratch buffers become allocations of the calling function,
    which memory planning may reuse (run between CallTIRRewrite and StaticPlanBlockMemory)."""
    return get_pass("AllocateWorkspace")


__all__.append("AllocateWorkspace")


def RewriteCUDAGraph() -> Pass:
    """Static storages cached across calls and runs of kernel launches on them captured
    and replayed as CUDA Graphs (run after StaticPlanBlockMemory; TVM runs it for CUDA
    targets with relax.backend.use_cuda_graph)."""
    return get_pass("RewriteCUDAGraph")


__all__.append("RewriteCUDAGraph")
