"""The ``relax-ref`` command line: print, check, run and optimize Relax modules; list the
passes and the ops; run the conformance suite; fuzz a pass."""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from relax_ref.cli_io import (
    CLIError, load_npy, load_npz, read_text, writable_directory, write_output, write_text,
)
from relax_ref.errors import RelaxError, RelaxWarning, ResourceError


def _parse_file(path: str):
    from relax_ref.parser.builder import parse

    return parse(read_text(path), path)


def _write_text(text: str, output: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output is not None:
        write_text(output, text)
    else:
        sys.stdout.write(text)


# -- option values (CLI-budget-1): argparse refuses them with exit 2 -------------------------

def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


# Repetition counts and fuzzing time are bounded, so no option value asks for a run
# that never ends (CLI-budget-1).
MAX_COUNT = 100_000
MAX_SECONDS = 86_400.0


def _count(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to {MAX_COUNT}, "
                                         f"got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") \
            from None
    if value < 0:  # NumPy's generators take only non-negative seeds
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") \
            from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive finite number of seconds, "
                                         f"got {text}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_SECONDS:g} seconds (a day), "
                                         f"got {text}")
    return value


def cmd_print(args: argparse.Namespace) -> int:
    from relax_ref.parser.printer import print_module

    _write_text(print_module(_parse_file(args.file)), args.output)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from relax_ref import CheckError, check
    from relax_ref.parser.builder import parse
    from relax_ref.parser.printer import print_module

    text = read_text(args.file)
    try:
        checked = check(parse(text, args.file))
    except CheckError as err:
        # Every problem at once (well-formedness and annotations), each with its line.
        for e in err.errors:
            e.source_text = e.source_text or text
            print(e.render(), file=sys.stderr)
        print(f"{args.file}: {len(err.errors)} error(s)", file=sys.stderr)
        return 1
    _write_text(print_module(checked), args.output)
    return 0


def _sym_values(specs: list[str]) -> dict[str, int]:
    from relax_ref.semantics.memory import INT64_MAX, INT64_MIN

    out = {}
    for spec in specs or []:
        name, sep, value = spec.partition("=")
        if not sep:
            raise CLIError(f"--sym takes NAME=INT, got {spec!r}")
        name = name.strip()
        if name in out:
            raise CLIError(f"--sym {name} is given twice")
        try:
            out[name] = int(value)
        except ValueError:
            raise CLIError(f"--sym {name}: {value!r} is not an integer") from None
        # Symbolic variables are int64 (TVM's shape type).
        if not INT64_MIN <= out[name] <= INT64_MAX:
            raise CLIError(f"--sym {name}: {value} is outside the int64 range")
    return out


def _arg_value(spec: str, sinfo, env, rng, max_bytes: int):
    from relax_ref.semantics.inputs import InputError, random_tensor, value_from_array
    from relax_ref.ir.dtype import parse_dtype, DTypeError

    if spec.startswith("random:"):
        parts = spec.split(":")
        if len(parts) != 3:
            raise CLIError(f"random arguments are random:3x4:float32, got {spec!r}")
        if not parts[2]:
            raise CLIError(f"bad random argument {spec!r}: the dtype is missing "
                           f"(e.g. random:3x4:float32)")
        try:
            shape = tuple(int(d) for d in parts[1].split("x")) if parts[1] else ()
            dtype = parse_dtype(parts[2])
        except (ValueError, DTypeError) as err:
            raise CLIError(f"bad random argument {spec!r}: {err}") from None
        if any(d < 0 for d in shape):
            raise CLIError(f"bad random argument {spec!r}: a dimension is negative")
        try:
            return random_tensor(shape, dtype, rng, max_bytes=max_bytes, what=repr(spec))
        except InputError as err:
            raise CLIError(f"bad random argument {err}") from None
    if spec.endswith(".npy"):
        arr = load_npy(spec, max_bytes)  # CLI-input-2: the declared size first
        try:
            return value_from_array(arr, sinfo, spec)
        except InputError as err:
            raise CLIError(str(err)) from None
    try:
        number = float(spec) if any(c in spec for c in ".eE") else int(spec)
    except ValueError:
        raise CLIError(f"cannot read the argument {spec!r} (a .npy file, random:SHAPE:DTYPE "
                       f"or a number)") from None
    # value_from_array checks the number against the parameter (2.0 is a fine int64).
    try:
        return value_from_array(np.asarray(number), sinfo, spec)
    except InputError as err:
        raise CLIError(str(err)) from None


def _build_arguments(func, args: argparse.Namespace, max_bytes: int):
    from relax_ref.ir import prim_expr as PE
    from relax_ref.ir import struct_info as si
    from relax_ref.semantics.inputs import (
        InputError, arguments_from_named_arrays, random_value, symbols_needed,
    )

    rng = np.random.default_rng(args.seed)
    sym = _sym_values(args.sym)
    if args.args:
        if args.arg:
            raise CLIError("give the arguments either with --args or with --arg, not both")
        arrays = load_npz(args.args, max_bytes)  # CLI-input-2
        try:
            return arguments_from_named_arrays(func, arrays, args.args)  # CLI-input-3
        except InputError as err:
            raise CLIError(str(err), 1) from None
    given = {}
    for spec in args.arg or []:
        name, sep, value = spec.partition("=")
        if not sep:
            raise CLIError(f"--arg takes NAME=VALUE, got {spec!r}")
        name = name.strip()
        if name in given:
            raise CLIError(f"--arg {name} is given twice")
        given[name] = value
    names = [p.name_hint for p in func.params]
    for name in given:
        if name not in names:
            raise CLIError(f"the function has no parameter {name!r} (parameters: {', '.join(names)})")
    env = {}
    needed = symbols_needed(func)
    for v in needed:
        if v.name in sym:
            env[v] = sym[v.name]
    unknown = sorted(set(sym) - {v.name for v in needed})
    if unknown:
        known = ", ".join(sorted({v.name for v in needed})) or "none"
        raise CLIError(f"--sym {', '.join(unknown)}: the signature of {args.entry!r} has no "
                       f"such symbolic variable (its symbolic variables: {known})")
    values = []
    for p in func.params:
        if p.name_hint in given:
            try:
                values.append(_arg_value(given[p.name_hint], p.struct_info, env, rng,
                                         max_bytes))
            except CLIError as err:
                raise CLIError(f"--arg {p.name_hint}: {err}") from None
            except ResourceError as err:  # a random: tensor over the size limit
                raise ResourceError(f"--arg {p.name_hint}: {err.message}",
                                    rule=err.rule) from None
        else:
            prim = p.struct_info
            if (isinstance(prim, si.PrimStructInfo) and isinstance(prim.value, PE.Var)
                    and prim.value not in env):
                hint = f"--arg {p.name_hint}=VALUE"
                if not prim.dtype.is_float:
                    hint += f" or --sym {prim.value.name}=INT"
                raise CLIError(f"{p.name_hint}: the scalar parameter needs a value ({hint})")
            try:
                values.append(random_value(p.struct_info, env, rng, what=p.name_hint,
                                           max_bytes=max_bytes))
            except InputError as err:
                raise CLIError(str(err)) from None
    return values


_SUMMARY_CHUNK = 1 << 20


def _summary(value) -> str:
    from relax_ref.semantics.memory import count_poison
    from relax_ref.values import describe_value

    if isinstance(value, np.ndarray):
        text = describe_value(value)
        if value.size and (np.issubdtype(value.dtype, np.number) or value.dtype == np.bool_):
            # Chunk by chunk: a float64 copy of a large result would need several times
            # the memory the run itself did.
            flat = value.reshape(-1)
            lo, hi, total, count, nan, poison = np.inf, -np.inf, 0.0, 0, 0, 0
            for start in range(0, flat.size, _SUMMARY_CHUNK):
                chunk = flat[start:start + _SUMMARY_CHUNK]
                as_float = chunk.astype(np.float64)
                finite = as_float[np.isfinite(as_float)]
                if finite.size:
                    lo, hi = min(lo, finite.min()), max(hi, finite.max())
                    total += float(finite.sum())
                    count += finite.size
                nan += int(np.isnan(as_float).sum())
                if not np.issubdtype(value.dtype, np.floating):
                    poison += count_poison(chunk)
            if count:
                text += f" min={lo:.6g} max={hi:.6g} mean={total / count:.6g}"
            if nan:
                text += f" nan={nan}"
            if poison:
                text += f" poison={poison}"
        return text
    if isinstance(value, tuple):
        return "Tuple(" + ", ".join(_summary(v) for v in value) + ")"
    return describe_value(value)


def _leaves(value, sinfo) -> list:
    """The results in the out_0, out_1, ... order: tuples flattened depth-first. The
    interpreter holds R.null_value() as an empty tuple; where the annotation says the
    value is not a tuple, it is a result of its own (None), not nothing."""
    from relax_ref.ir import struct_info as si

    if not isinstance(value, tuple):
        return [value]
    if not value and sinfo is not None and not isinstance(sinfo, si.TupleStructInfo):
        return [None]
    fields = [None] * len(value)
    if isinstance(sinfo, si.TupleStructInfo) and len(sinfo.fields) == len(value):
        fields = sinfo.fields
    return [leaf for v, f in zip(value, fields) for leaf in _leaves(v, f)]


def _saved_arrays(outs: list) -> dict[str, np.ndarray]:
    """The arrays --out writes: out_K per result; a result of an ml_dtypes type (bfloat16,
    float8, int4, ...) as its raw bits, with its TVM dtype name in out_K__dtype."""
    from relax_ref.ir.dtype import DTypeError
    from relax_ref.ir.numpy_dtype import numpy_dtype
    from relax_ref.semantics.inputs import stored_form
    from relax_ref.values import (
        DTypeValue, PrimScalar, ShapeValue, StringValue, describe_value,
    )

    arrays = {}
    for i, v in enumerate(outs):
        key = f"out_{i}"
        if isinstance(v, PrimScalar):
            try:
                # Keep the scalar's own dtype (a float32 Prim is not saved as float64).
                v = np.asarray(v.value, dtype=numpy_dtype(v.dtype))
            except DTypeError as err:
                raise CLIError(f"--out: cannot save {key}: {err}") from None
        elif isinstance(v, ShapeValue):
            v = np.asarray(v.dims, dtype=np.int64)
        elif isinstance(v, StringValue):
            v = np.asarray(v.value, dtype=np.str_)
        elif isinstance(v, DTypeValue):
            v = np.asarray(str(v.dtype), dtype=np.str_)
        if not isinstance(v, np.ndarray) or v.dtype.hasobject:  # np.savez would pickle
            what = "R.null_value()" if v is None else describe_value(v)
            raise CLIError(f"--out: {key} is {what}, which is not data; --out saves tensors, "
                           f"shapes, scalars, strings and dtypes")
        arrays[key], dtype_name = stored_form(v)
        if dtype_name is not None:
            arrays[key + "__dtype"] = np.asarray(dtype_name, dtype=np.str_)
    return arrays


def _limits(args: argparse.Namespace):
    """The interpreter's limits from --tir-mode and --max-steps."""
    from relax_ref import _limits as with_options
    from relax_ref.semantics.interpreter import Limits

    return with_options(Limits(), getattr(args, "tir_mode", None),
                        getattr(args, "max_steps", None))


def _entry(mod, entry: str | None) -> str:
    """API-entry-1 (``--entry``, else main, else the only Relax function)."""
    from relax_ref.semantics.inputs import InputError, entry_function

    try:
        return entry_function(mod, entry)
    except InputError as err:
        raise CLIError(f"{err}{'' if entry else '; pick one with --entry NAME'}") from None


def cmd_run(args: argparse.Namespace) -> int:
    from relax_ref.semantics.interpreter import Interpreter

    if args.out == "":
        raise CLIError("--out needs a file name")
    mod = _parse_file(args.file)
    if args.target:  # BE-cli-run-1: the PrimFuncs on a device
        from relax_ref.backends.run_device import cmd_run_device
        return cmd_run_device(args, mod, sys.modules[__name__])
    if args.compare:
        raise CLIError("--compare compares a device run with the interpreter: give --target")
    trace = None
    if args.trace:
        def trace(binding, value):
            print(f"  {binding.var.name_hint} = {_summary(value)}", file=sys.stderr)
    interp = Interpreter(mod, trace=trace, limits=_limits(args))
    args.entry = _entry(interp.mod, args.entry)
    func = interp.mod.functions[args.entry]
    values = _build_arguments(func, args, interp.limits.max_tensor_bytes)
    with _Status(f"running {args.entry}", enabled=not args.trace):
        result = interp.run(args.entry, values)
    ret = func.ret_struct_info or getattr(func.body, "struct_info", None)
    outs = _leaves(result, ret)
    for i, v in enumerate(outs):
        print(f"out_{i}: {'R.null_value()' if v is None else _summary(v)}")
        if isinstance(v, np.ndarray) and v.size:
            print("  " + np.array2string(v.reshape(-1)[:8], precision=5, separator=", ")
                  + (" ..." if v.size > 8 else ""))
    if args.out is not None:
        arrays = _saved_arrays(outs)  # every check before the file is opened
        write_output(args.out, lambda f: np.savez(f, **arrays))  # CLI-output-1
    return 0


class _Status:
    """A spinner on stderr while a run works, when stderr is a terminal (else nothing:
    the printed results are the summary)."""

    def __init__(self, text: str, enabled: bool = True):
        self.text, self.enabled, self.status = text, enabled, None

    def __enter__(self):
        if self.enabled and sys.stderr.isatty():
            from rich.console import Console

            self.status = Console(stderr=True).status(self.text)
            self.status.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)


def cmd_conformance(args: argparse.Namespace) -> int:
    from relax_ref import conformance as conf

    path = Path(args.path) if args.path else conf.DEFAULT_SUITE
    if args.impl in ("tvm", "tvm-lowered"):
        try:
            conf.IMPLEMENTATIONS[args.impl]()
        except conf.Unsupported as err:
            raise CLIError(f"--impl {args.impl} needs Apache TVM 0.27 (pip install "
                           f"'relax-ref[tvm]'): {err}") from None
    if args.junit == "":
        raise CLIError("--junit needs a file name")
    cases = _conformance_cases(conf, path, args.k)
    passes = tuple(n.strip() for n in (args.passes or "").split(",") if n.strip())
    if passes and args.impl != "relax_ref":
        raise CLIError("--passes transforms relax_ref's modules: use it with --impl relax_ref")
    if passes:
        from relax_ref.passes.registry import all_passes

        unknown = [n for n in passes if n not in all_passes()]
        if unknown:
            raise CLIError(f"no pass named {unknown[0]!r} (see `relax-ref passes`)")
    results = conf.run_suite(cases, args.impl, jobs=args.j, progress=sys.stderr.isatty(),
                             max_steps=args.max_steps, passes=passes)
    conf.report(results, args.impl)
    if args.junit:
        write_text(args.junit, conf.junit_xml(results, args.impl))  # CLI-output-1
    if args.record:
        if args.impl != "tvm":
            raise CLIError("--record writes TVM's results: use it with --impl tvm")
        conf.record_tvm(results)
    return 0 if all(r.passed for r in results) else 1


def _conformance_cases(conf, path: Path, pattern: str | None) -> list:
    """The cases of a suite or an area (a directory of cases) or of one case (its .py or
    .toml); anything else is an error naming what is expected."""
    what = ("a conformance suite, area or case (a directory of <case>.toml files, or a "
            "case's .py or .toml)")
    if not path.exists():
        raise CLIError(f"{path} does not exist; expected {what}", 1)
    if path.is_dir():
        if not any(path.rglob("*.toml")):
            raise CLIError(f"{path} holds no cases; expected {what}", 1)
    elif path.suffix not in (".py", ".toml") or not path.with_suffix(".toml").is_file() \
            or not path.with_suffix(".py").is_file():
        raise CLIError(f"{path} is not {what}", 1)
    try:
        cases = conf.discover(path, pattern)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CLIError(f"cannot read the cases under {path}: {err}", 1) from None
    if not cases:
        raise CLIError(f"no cases under {path}" + (f" matching {pattern!r}" if pattern else ""))
    return cases


def _passes_by_name(names: list[str]):
    from relax_ref.passes.registry import all_passes

    known = all_passes()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CLIError(f"unknown pass{'es' if len(unknown) > 1 else ''} "
                       f"{', '.join(repr(n) for n in unknown)} (known passes: "
                       f"{', '.join(sorted(known)) or 'none'})")
    return [known[n] for n in names]


def _option_value(text: str):
    """CLI-pass-opt-1: a value read, never evaluated: int, float, bool, none, else a
    string; with commas, a list of such values."""
    if "," in text:
        return [_option_value(t.strip()) for t in text.split(",") if t.strip()]
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if kind is float and not math.isfinite(value):
            break  # "nan", "inf": names, not numbers
        return value
    return text


def _pass_options(specs: list[str], names: list[str], max_bytes: int) -> dict[str, dict]:
    """--pass-opt PASS:KEY=VALUE, grouped by pass (CLI-pass-opt-1)."""
    from relax_ref.transform import pass_options

    out: dict[str, dict] = {}
    for spec in specs or []:
        name, colon, rest = spec.partition(":")
        key, eq, value = rest.partition("=")
        name, key = name.strip(), key.strip()
        if not (colon and eq and name and key):
            raise CLIError(f"--pass-opt takes PASS:KEY=VALUE, got {spec!r}")
        if name not in names:
            raise CLIError(f"--pass-opt {spec!r}: {name} is not among --passes")
        opts = out.setdefault(name, {})
        if key in opts:
            raise CLIError(f"--pass-opt {name}:{key} is given twice")
        parsed = _option_value(value.strip())
        if name == "BindParams" and key not in dict(pass_options(name)):
            # A parameter's value: a .npy file (its declared size checked first) or a number.
            parsed = load_npy(value.strip(), max_bytes) if value.strip().endswith(".npy") \
                else np.asarray(parsed)
        opts[key] = parsed
    return out


def _build_passes(names: list[str], options: dict[str, dict]):
    from relax_ref.transform import build_pass

    _passes_by_name(names)
    passes = []
    for name in names:
        try:
            passes.append(build_pass(name, options.get(name)) if name in options
                          else _passes_by_name([name])[0])
        except (TypeError, ValueError) as err:
            raise CLIError(f"--pass-opt {name}: {err}") from None
    return passes


def cmd_opt(args: argparse.Namespace) -> int:
    from relax_ref.parser.printer import print_module
    from relax_ref.passes.pipeline import Pipeline, PipelineError
    from relax_ref.semantics.memory import DEFAULT_MAX_BYTES
    from relax_ref.verify import PassVerificationError, verify_pipeline

    from relax_ref.passes.pipeline import PIPELINES

    if args.pipeline is not None and args.pipeline not in PIPELINES:
        raise CLIError(f"no pipeline named {args.pipeline!r} (pipelines: "
                       f"{', '.join(sorted(PIPELINES))})")
    names = list(PIPELINES[args.pipeline]) if args.pipeline else []
    names += [n.strip() for n in (args.passes or "").split(",") if n.strip()]
    if not names:
        raise CLIError("--passes takes a comma-separated list of pass names "
                       "(or give --pipeline NAME)")
    _passes_by_name(names)
    for name in args.print_after or []:
        if name not in names:
            raise CLIError(f"--print-after {name}: {name} is not among --passes")
    if args.output == "":
        raise CLIError("-o needs a file name")
    options = _pass_options(args.pass_opt, names, DEFAULT_MAX_BYTES)
    pipeline = Pipeline(_build_passes(names, options))
    mod = _parse_file(args.file)

    def show(step) -> None:
        if args.verify is not None:
            traps = f", {step.traps_matched} matching traps" if step.traps_matched else ""
            notes = "".join(f"\n  note: {n}" for n in step.notes)
            print(f"{step.name}: OK ({step.trials} trials, {step.compared} compared{traps})"
                  f"{notes}", file=sys.stderr)

    def dump(p, after) -> None:
        # As mlir-opt's --mlir-print-ir-after and TVM's PrintAfterAll: on stderr, so
        # standard output stays the final module.
        if args.print_after_all or p.name in (args.print_after or []):
            print(f"# IR after {p.name}\n{print_module(after)}", file=sys.stderr)

    # Each pass is checked on the module it receives (the previous pass's output).
    try:
        if args.verify:
            mod, _ = verify_pipeline(pipeline, mod, trials=args.verify, seed=args.seed,
                                     on_step=show, after_step=dump, limits=_limits(args))
        else:
            mod, _ = pipeline.run(mod, on_step=show, after_step=dump)
    except PassVerificationError as err:
        print(f"{err.pass_name}: FAILED\n{err}", file=sys.stderr)
        return 1
    except PipelineError as err:
        raise CLIError(str(err)) from err
    except (ValueError, TypeError) as err:  # a pass refused its input or an option's value
        raise CLIError(str(err), 1) from None
    _write_text(print_module(mod), args.output)
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from relax_ref.testing.fuzz import run_campaign

    (p,) = _passes_by_name([args.pass_name])
    writable_directory(args.out)  # CLI-output-1, before any work
    seconds = args.time if args.time is not None or args.programs is not None else 60.0
    try:
        result = run_campaign(p, seconds, seed=args.seed, out_dir=args.out,
                              progress=sys.stderr.isatty(), trials=args.trials,
                              programs=args.programs)
    except OSError as err:
        raise CLIError(f"cannot save a failure under {args.out}: {err.strerror or err}", 1) \
            from None
    print(result.summary())
    return 0 if result.ok else 1


def cmd_passes(args: argparse.Namespace) -> int:
    """Every registered pass with its contract (spec/passes.md) and options."""
    import inspect

    from relax_ref import transform
    from relax_ref.passes.registry import all_passes

    for name, p in sorted(all_passes().items()):
        factory = getattr(transform, name, None)
        doc = " ".join((factory.__doc__ if factory else p.doc or "").split())
        print(f"{name}: {doc}")
        results = "exact" if p.exact else "within float tolerance"
        if p.may_remove_traps:
            results += "; may remove traps of unused pure code (PASS-verify-4)"
        print(f"  results: {results}")
        print(f"  requires: {', '.join(p.requires) or 'nothing'}; "
              f"produces: {', '.join(p.produces) or 'nothing'}")
        opts = [o if d is inspect.Parameter.empty else f"{o}={d!r}"
                for o, d in transform.pass_options(name)]
        if opts:
            print(f"  options: {', '.join(opts)}")
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    """CLI-graph-1: the entry function's dataflow graph as DOT text (or SVG through
    Graphviz), fused groups boxed; ``--fuse`` lowers and fuses first."""
    import shutil
    import subprocess

    from relax_ref.graph import dataflow_dot
    from relax_ref.semantics.normalize import normalize

    mod = normalize(_parse_file(args.file))
    if args.fuse:
        from relax_ref.transform import Sequential

        mod = Sequential(["LegalizeOps", "AnnotateTIROpPattern", "FuseOps"])(mod)
    entry = args.entry or "main"
    try:
        text = dataflow_dot(mod, entry)
    except KeyError as err:
        raise CLIError(f"{args.file}: {err.args[0]}") from None
    if args.output and args.output.endswith(".svg"):
        dot = shutil.which("dot")
        if dot is None:
            raise CLIError("writing SVG needs Graphviz's `dot` program on PATH; write a "
                           ".dot file instead (-o graph.dot)")
        svg = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True,
                             check=False)
        if svg.returncode != 0:
            raise CLIError(f"dot failed: {svg.stderr.strip()}")
        write_text(args.output, svg.stdout)
        return 0
    _write_text(text, args.output)
    return 0


def cmd_emit(args: argparse.Namespace) -> int:
    """BE-cli-1: the kernels of a module as CUDA or OpenCL C, and a launch table."""
    from relax_ref.backends.emit import write_emitted

    write_emitted(_parse_file(args.file), args.file, args.target, args.fuse, args.output,
                  args.row_reductions)
    return 0


def cmd_memplan(args: argparse.Namespace) -> int:
    """CLI-memplan-1..4: allocations before and after planning (relax_ref/memplan.py)."""
    from relax_ref.memplan import run_command

    if args.output and not args.output.endswith(".svg"):
        raise CLIError(f"-o writes the SVG timeline: name a .svg file, got {args.output!r}")
    try:
        text, svg = run_command(_parse_file(args.file), args.bound, args.at, args.entry,
                                args.output is not None)
    except ValueError as err:
        raise CLIError(str(err)) from None
    sys.stdout.write(text)
    if svg is not None:
        write_text(args.output, svg)
    return 0


def cmd_ops(args: argparse.Namespace) -> int:
    """CLI-ops-1: every TVM 0.27 op and every op we register, with what relax_ref has of
    it (registry, conformance suite, spec pages), and totals."""
    import json

    from relax_ref.ops.op_table import op_rows
    from relax_ref.semantics.interpreter import evaluated_ops

    rows = op_rows(evaluated_ops())
    shown = [r for r in rows if r.missing()] if args.missing else rows
    if args.json:
        print(json.dumps([r.as_dict() for r in shown], indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table

    def mark(ok: bool) -> str:
        return "yes" if ok else "[red]no[/]"

    table = Table(title="relax ops: TVM 0.27 and relax_ref")
    for col in ("op", "registered", "deduction", "semantics", "legalization", "TVM lowers",
                "cases", "spec"):
        table.add_column(col, justify="right" if col == "cases" else "left",
                         no_wrap=True)
    for r in shown:
        if not r.registered:
            table.add_row(r.name, mark(False), "", "", "", r.tvm_lowering or "-", "", "")
            continue
        table.add_row(r.name, "yes", mark(r.deduction), r.semantics or mark(False),
                      "yes" if r.legalization else
                      (mark(False) if r.tvm_lowering == "legalize" else "-"),
                      "-" if r.tvm_lowering is None else (r.tvm_lowering or "-"),
                      "?" if r.cases is None else
                      (str(r.cases) if r.cases else mark(False)),
                      "?" if r.spec is None else (r.spec.removeprefix("spec/ops/") or
                                                  mark(False)))
    ours = [r for r in rows if r.registered]
    tvm = [r for r in rows if r.tvm_lowering is not None]
    tvm_legal = [r for r in ours if r.tvm_lowering == "legalize"]
    # Wide enough for the longest op name when written to a file or a pipe.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)
    console.print(table)
    totals = [
        f"TVM 0.27 ops: {len(tvm)} ({sum(r.tvm_lowering == 'legalize' for r in tvm)} "
        f"legalized by TVM); registered here: {len(ours)} "
        f"({sum(r.tvm_lowering is not None for r in ours)} of TVM's)",
        f"deduction {sum(r.deduction for r in ours)}, semantics "
        f"{sum(bool(r.semantics) for r in ours)}, legalization "
        f"{sum(r.legalization for r in ours)} (of the {len(tvm_legal)} TVM legalizes: "
        f"{sum(r.legalization for r in tvm_legal)}), with conformance cases "
        f"{sum(bool(r.cases) for r in ours)}, on a spec page {sum(bool(r.spec) for r in ours)}",
        f"rows lacking something: {sum(bool(r.missing()) for r in rows)}",
    ]
    for line in totals:
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from relax_ref import __version__

    parser = argparse.ArgumentParser(
        prog="relax-ref", description="A reference implementation of the Relax IR: read, "
        "check, run and optimize TVMScript modules.")
    parser.add_argument("--version", action="version", version=f"relax-ref {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("print", help="parse a TVMScript file and print it back (TVM 0.27 dialect)")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_print)

    p = sub.add_parser("check", help="normalize a module and print it with every binding "
                                     "annotated, or report its errors")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("run", help="interpret a function of a module on given or random inputs")
    p.add_argument("file")
    p.add_argument("--entry", default=None,
                   help="the function to run (default: main, else the only Relax function)")
    p.add_argument("--arg", action="append", metavar="NAME=VALUE",
                   help="an argument: file.npy, random:3x4:float32 or a number")
    p.add_argument("--args", metavar="IN.npz",
                   help="all arguments as in_0, in_1, ... (a tuple parameter K as in_K_0, "
                        "in_K_1, ...)")
    p.add_argument("--sym", action="append", metavar="NAME=INT",
                   help="the value of a symbolic variable for random arguments")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--out", metavar="OUT.npz",
                   help="save results as out_0, out_1, ... (tuples flattened depth-first)")
    p.add_argument("--trace", action="store_true", help="print every binding's value summary")
    p.add_argument("--target", choices=("opencl", "cuda"), default=None,
                   help="compile as tvm.compile does and run the kernels on this device")
    p.add_argument("--compare", action="store_true",
                   help="with --target: also run the interpreter and report the differences")
    _tir_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("conformance", help="run the conformance suite")
    p.add_argument("path", nargs="?", help="the suite, an area or one case (default: the "
                                           "suite shipped with relax_ref)")
    p.add_argument("--impl", choices=("relax_ref", "tvm", "tvm-lowered"), default="relax_ref",
                   help="who runs the cases: relax_ref, TVM 0.27, or relax_ref on TVM's "
                        "LegalizeOps output (tvm-lowered)")
    p.add_argument("-k", metavar="PATTERN", help="only cases whose id contains PATTERN")
    p.add_argument("-j", type=_positive_int, default=1, metavar="N",
                   help="run N cases in parallel")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--record", action="store_true",
                   help="with --impl tvm: record each case's TVM result in its .toml")
    p.add_argument("--max-steps", type=_positive_int, metavar="N",
                   help="the TIR step budget of one PrimFunc call")
    p.add_argument("--passes", metavar="P1,P2",
                   help="run these passes on each module before its runs (e.g. LegalizeOps)")
    p.set_defaults(func=cmd_conformance)

    p = sub.add_parser("opt", help="apply passes to a module and print the result")
    p.add_argument("file")
    p.add_argument("--passes", metavar="A,B,...",
                   help="the passes to apply, in order (TVM's names; see relax-ref passes)")
    p.add_argument("--pipeline", metavar="NAME",
                   help="a named pipeline run before --passes: fuse (LegalizeOps, "
                        "AnnotateTIROpPattern, FuseOps, FuseTIR)")
    p.add_argument("--pass-opt", action="append", metavar="PASS:KEY=VALUE",
                   help="an option of a pass, by TVM's name (BindSymbolicVars:n=4; repeat "
                        "for more; a,b is a list)")
    p.add_argument("--verify", type=_count, metavar="N",
                   help="check each pass against the interpreter on N sets of random inputs")
    p.add_argument("--seed", type=_seed, default=0, help="seed of --verify's random inputs")
    p.add_argument("--max-steps", type=_positive_int, metavar="N",
                   help="with --verify: the TIR step budget of one PrimFunc call")
    p.add_argument("--print-after-all", action="store_true",
                   help="print the module after each pass (to stderr, '# IR after PASS')")
    p.add_argument("--print-after", action="append", metavar="PASS",
                   help="print the module after PASS (repeatable)")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_opt)

    p = sub.add_parser("passes", help="list every pass with its contract and options")
    p.set_defaults(func=cmd_passes)

    p = sub.add_parser("graph", help="draw a function's dataflow graph (DOT, or SVG with "
                                     "Graphviz), fused groups boxed")
    p.add_argument("file", help="a TVMScript module")
    p.add_argument("--entry", metavar="NAME", help="the function to draw (default: main)")
    p.add_argument("--fuse", action="store_true",
                   help="run LegalizeOps, AnnotateTIROpPattern and FuseOps first")
    p.add_argument("-o", "--output", help="write to FILE (.dot text, or .svg) instead of "
                                          "standard output")
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("memplan", help="allocations before and after memory planning, "
                                       "total and peak bytes, the storage reuse timeline")
    p.add_argument("file", help="a TVMScript module (lowered to planning's stage first)")
    p.add_argument("--bound", action="append", metavar="NAME=INT",
                   help="an upper bound of a symbolic variable, for planning (repeatable)")
    p.add_argument("--at", action="append", metavar="NAME=INT",
                   help="a value at which sizes are shown (default: the upper bounds)")
    p.add_argument("--entry", metavar="NAME", help="only this function")
    p.add_argument("-o", "--output", metavar="FILE.svg", help="write the timeline as SVG")
    p.set_defaults(func=cmd_memplan)

    p = sub.add_parser("emit", help="a module's kernels as CUDA or OpenCL C (scheduled, "
                                    "lowered) and a launch table")
    p.add_argument("file", help="a TVMScript module")
    p.add_argument("--target", required=True, choices=("cuda", "opencl"))
    p.add_argument("--fuse", action="store_true", help="fuse as the default pipeline does")
    p.add_argument("--row-reductions", action="store_true",
                   help="row reductions as shared-memory trees (one block per row)")
    p.add_argument("-o", "--output", metavar="DIR", help="write FILE.cu/.cl and "
                   "FILE.launch.json there (default: the source to standard output)")
    p.set_defaults(func=cmd_emit)

    p = sub.add_parser("ops", help="every TVM 0.27 op with relax_ref's status: deduction, "
                                   "semantics, legalization, conformance cases, spec page")
    p.add_argument("--missing", action="store_true",
                   help="only the ops that lack something (including TVM ops not registered)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(func=cmd_ops)

    p = sub.add_parser("fuzz", help="check a pass on random modules; save failures shrunk")
    p.add_argument("--pass", dest="pass_name", required=True, metavar="NAME")
    p.add_argument("--time", type=_seconds, default=None, metavar="SECONDS",
                   help="how long to generate programs (default 60 without --programs)")
    p.add_argument("--programs", type=_count, metavar="N",
                   help="check N programs (the same N for a seed on any machine)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--out", default="fuzz-failures", metavar="DIR",
                   help="where failures are saved (default fuzz-failures)")
    p.add_argument("--trials", type=_count, default=3,
                   help="input sets compared per program (default 3)")
    p.set_defaults(func=cmd_fuzz)
    return parser


def _tir_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tir-mode", default="auto",
                   choices=("auto", "ordered", "vectorized", "scalar"),
                   help="how PrimFuncs run: auto (default; float sums of products as BLAS "
                        "contractions), ordered (bit-identical to scalar), vectorized, "
                        "scalar (the definitional path only)")
    p.add_argument("--max-steps", type=_positive_int, metavar="N",
                   help="the TIR step budget of one PrimFunc call")


def _show_warning(default, message, category, filename, lineno, file=None, line=None):
    """A RelaxWarning as ``FILE:LINE:COL: warning: ...`` with its source line, like the
    errors; other warnings as Python shows them."""
    if not isinstance(message, RelaxWarning):
        return default(message, category, filename, lineno, file, line)
    source = None
    if message.span is not None:
        try:
            source = read_text(message.span.source)
        except (CLIError, RelaxError):
            pass
    print(message.render(source), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error (exit 2)
        return done.code if isinstance(done.code, int) else 2
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", RelaxWarning)  # each warning once
            shown = warnings.showwarning
            warnings.showwarning = functools.partial(_show_warning, shown)
            return args.func(args)
    except RelaxError as err:
        if err.source_text is None and err.span is not None:
            try:
                err.source_text = read_text(err.span.source)
            except (CLIError, RelaxError):
                pass
        print(err.render(), file=sys.stderr)
        return 1
    except CLIError as err:
        print(f"relax-ref: error: {err}", file=sys.stderr)
        return err.code
    except RecursionError:
        print("relax-ref: error: the program is nested too deeply", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader of our output went away (``relax-ref run ... | head``): stop quietly,
        # and keep Python from reporting the pipe again when it flushes at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # stdout is not a real file
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
