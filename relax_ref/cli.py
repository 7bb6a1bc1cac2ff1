"""The ``relax-ref`` command line: print, check and run Relax modules."""
from __future__ import annotations

import argparse
import os
import sys
import zipfile
from pathlib import Path

import numpy as np

from relax_ref.errors import RelaxError, ResourceError


class CLIError(Exception):
    """A problem with the command line itself (bad option values, missing files)."""


def _read(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise CLIError(f"cannot read {path}: {err.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise CLIError(f"{path}:{line}:{col}: error: the file is not UTF-8 text [SYN-lex-1]") from None


def _parse_file(path: str):
    from relax_ref.parser.builder import parse

    return parse(_read(path), path)


def _write_text(text: str, output: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)


def cmd_print(args: argparse.Namespace) -> int:
    from relax_ref.parser.printer import print_module

    _write_text(print_module(_parse_file(args.file)), args.output)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from relax_ref.parser.printer import print_module
    from relax_ref.semantics.normalize import normalize

    from relax_ref.semantics.well_formed import check_well_formed

    text = _read(args.file)
    from relax_ref.parser.builder import parse

    parsed = parse(text, args.file)
    # Every problem at once (well-formedness and annotations), each with its line.
    errors = check_well_formed(parsed)
    if errors:
        for err in errors:
            err.source_text = err.source_text or text
            print(err.render(), file=sys.stderr)
        print(f"{args.file}: {len(errors)} error(s)", file=sys.stderr)
        return 1
    _write_text(print_module(normalize(parsed)), args.output)
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
        try:
            arr = np.load(spec, allow_pickle=False)
        except (OSError, ValueError, EOFError) as err:
            raise CLIError(f"cannot load {spec}: {err}") from None
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


def _load_npz_arguments(path: str) -> list[np.ndarray]:
    """The arrays in_0, in_1, ... of ``path``; ``in_K__dtype`` (written by --out as
    ``out_K__dtype``) names the dtype whose bits ``in_K`` holds."""
    from relax_ref.semantics.inputs import InputError, from_stored_form

    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise CLIError(f"{path} is not an .npz archive")
        with data:
            files = set(data.files)
            keys = [k for k in files if k.startswith("in_") and not k.endswith("__dtype")]
            expected = [f"in_{i}" for i in range(len(keys))]
            if sorted(keys) != sorted(expected):
                raise CLIError(f"{path}: the inputs must be named {', '.join(expected[:3])}"
                               f"{', ...' if len(keys) > 3 else ''} without gaps; found "
                               f"{', '.join(sorted(keys))}")
            arrays = []
            for k in expected:
                arr = data[k]
                if k + "__dtype" in files:
                    name = data[k + "__dtype"]
                    if name.dtype.kind != "U" or name.ndim != 0:
                        raise CLIError(f"{path}: {k}__dtype must be a 0-d string array, "
                                       f"found {name.dtype} of shape {name.shape}")
                    arr = from_stored_form(arr, name.item(), f"{path}: {k}")
                arrays.append(arr)
            orphans = sorted(k for k in files if k.endswith("__dtype")
                             and k.startswith("in_") and k[:-len("__dtype")] not in files)
            if orphans:
                raise CLIError(f"{path}: {orphans[0]} has no array "
                               f"{orphans[0][:-len('__dtype')]} beside it")
            return arrays
    except InputError as err:
        raise CLIError(str(err)) from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise CLIError(f"cannot load {path}: {err}") from None


def _build_arguments(func, args: argparse.Namespace, max_bytes: int):
    from relax_ref.ir import prim_expr as PE
    from relax_ref.ir import struct_info as si
    from relax_ref.semantics.inputs import (
        InputError, arguments_from_arrays, random_value, symbols_needed,
    )

    if args.seed < 0:  # NumPy's generators take only non-negative seeds
        raise CLIError(f"--seed takes a non-negative integer, got {args.seed}")
    rng = np.random.default_rng(args.seed)
    sym = _sym_values(args.sym)
    if args.args:
        if args.arg:
            raise CLIError("give the arguments either with --args or with --arg, not both")
        arrays = _load_npz_arguments(args.args)
        try:
            return arguments_from_arrays(func, arrays)
        except InputError as err:
            raise CLIError(str(err)) from None
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


def _summary(value) -> str:
    from relax_ref.semantics.memory import count_poison
    from relax_ref.values import describe_value

    if isinstance(value, np.ndarray):
        text = describe_value(value)
        if value.size and (np.issubdtype(value.dtype, np.number) or value.dtype == np.bool_):
            as_float = value.astype(np.float64)
            finite = as_float[np.isfinite(as_float)]
            if finite.size:
                text += (f" min={finite.min():.6g} max={finite.max():.6g} "
                         f"mean={finite.mean():.6g}")
            nan = int(np.isnan(as_float).sum())
            if nan:
                text += f" nan={nan}"
            poison = count_poison(value)
            if poison and not np.issubdtype(value.dtype, np.floating):
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


def cmd_run(args: argparse.Namespace) -> int:
    from relax_ref.semantics.interpreter import Interpreter, Limits

    if args.out == "":
        raise CLIError("--out needs a file name")
    mod = _parse_file(args.file)
    trace = None
    if args.trace:
        def trace(binding, value):
            print(f"  {binding.var.name_hint} = {_summary(value)}", file=sys.stderr)
    interp = Interpreter(mod, trace=trace, limits=Limits(tir_mode=args.tir_mode))
    func = interp.mod.functions.get(args.entry)
    if func is None:
        raise CLIError(f"the module has no function {args.entry!r} "
                       f"(functions: {', '.join(interp.mod.functions)})")
    from relax_ref.ir import relax as rx

    if not isinstance(func, rx.Function):
        raise CLIError(f"{args.entry!r} is a prim_func; run a Relax function")
    values = _build_arguments(func, args, interp.limits.max_tensor_bytes)
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
        try:
            with open(args.out, "wb") as f:
                np.savez(f, **arrays)
        except OSError as err:
            raise CLIError(f"cannot write {args.out}: {err.strerror}") from None
    return 0


def cmd_conformance(args: argparse.Namespace) -> int:
    from relax_ref import conformance as conf

    path = Path(args.path) if args.path else conf.DEFAULT_SUITE
    if not path.exists():
        raise CLIError(f"no conformance suite at {path}")
    cases = conf.discover(path, args.k)
    if not cases:
        raise CLIError(f"no cases under {path}" + (f" matching {args.k!r}" if args.k else ""))
    results = conf.run_suite(cases, args.impl, jobs=args.j, progress=sys.stderr.isatty())
    conf.report(results, args.impl)
    if args.junit:
        conf.write_junit(results, args.junit, args.impl)
    if args.record:
        if args.impl != "tvm":
            raise CLIError("--record writes TVM's results: use it with --impl tvm")
        conf.record_tvm(results)
    return 0 if all(r.passed for r in results) else 1


def _passes_by_name(names: list[str]):
    from relax_ref.passes.registry import all_passes

    known = all_passes()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CLIError(f"unknown pass{'es' if len(unknown) > 1 else ''} "
                       f"{', '.join(repr(n) for n in unknown)} (known passes: "
                       f"{', '.join(sorted(known)) or 'none'})")
    return [known[n] for n in names]


def cmd_opt(args: argparse.Namespace) -> int:
    from relax_ref.parser.printer import print_module
    from relax_ref.passes.pipeline import Pipeline, PipelineError
    from relax_ref.verify import PassVerificationError, verify_pipeline

    names = [n.strip() for n in args.passes.split(",") if n.strip()]
    if not names:
        raise CLIError("--passes takes a comma-separated list of pass names")
    pipeline = Pipeline(_passes_by_name(names))
    if args.verify is not None and args.verify < 1:
        raise CLIError(f"--verify takes a positive number of trials, got {args.verify}")
    mod = _parse_file(args.file)
    def show(step) -> None:
        if args.verify is not None:
            traps = f", {step.traps_matched} matching traps" if step.traps_matched else ""
            notes = "".join(f"\n  note: {n}" for n in step.notes)
            print(f"{step.name}: OK ({step.trials} trials, {step.compared} compared{traps})"
                  f"{notes}", file=sys.stderr)

    # Each pass is checked on the module it receives (the previous pass's output).
    try:
        if args.verify:
            mod, _ = verify_pipeline(pipeline, mod, trials=args.verify, seed=args.seed,
                                     on_step=show)
        else:
            mod, _ = pipeline.run(mod, on_step=show)
    except PassVerificationError as err:
        print(f"{err.pass_name}: FAILED\n{err}", file=sys.stderr)
        return 1
    except PipelineError as err:
        raise CLIError(str(err)) from err
    _write_text(print_module(mod), args.output)
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from relax_ref.testing.fuzz import run_campaign

    (p,) = _passes_by_name([args.pass_name])
    if args.time <= 0:
        raise CLIError(f"--time takes a positive number of seconds, got {args.time}")
    result = run_campaign(p, args.time, seed=args.seed, out_dir=args.out,
                          progress=sys.stderr.isatty(), trials=args.trials)
    print(result.summary())
    return 0 if result.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="relax-ref", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("print", help="parse a TVMScript file and print it back (TVM 0.27 dialect)")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_print)

    p = sub.add_parser("check", help="normalize a module and print it with every binding "
                                     "annotated, or report its errors")
    p.add_argument("file")
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("run", help="interpret a function of a module")
    p.add_argument("file")
    p.add_argument("--entry", default="main")
    p.add_argument("--arg", action="append", metavar="NAME=VALUE",
                   help="an argument: file.npy, random:3x4:float32 or a number")
    p.add_argument("--args", metavar="IN.npz", help="all arguments as in_0, in_1, ...")
    p.add_argument("--sym", action="append", metavar="NAME=INT",
                   help="the value of a symbolic variable for random arguments")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", metavar="OUT.npz",
                   help="save results as out_0, out_1, ... (tuples flattened depth-first)")
    p.add_argument("--trace", action="store_true", help="print every binding's value summary")
    p.add_argument("--tir-mode", default="auto",
                   choices=("auto", "ordered", "vectorized", "scalar"),
                   help="how PrimFuncs run: auto (default; float sums of products as BLAS "
                        "contractions), ordered (bit-identical to scalar), vectorized, "
                        "scalar (the definitional path only)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("conformance", help="run the conformance suite")
    p.add_argument("path", nargs="?", help="the suite, an area or one case (default: the "
                                           "suite shipped with relax_ref)")
    p.add_argument("--impl", choices=("relax_ref", "tvm"), default="relax_ref")
    p.add_argument("-k", metavar="PATTERN", help="only cases whose id contains PATTERN")
    p.add_argument("-j", type=int, default=1, metavar="N", help="run N cases in parallel")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--record", action="store_true",
                   help="with --impl tvm: record each case's TVM result in its .toml")
    p.set_defaults(func=cmd_conformance)

    p = sub.add_parser("opt", help="apply passes to a module and print the result")
    p.add_argument("file")
    p.add_argument("--passes", required=True, metavar="A,B,...",
                   help="the passes to apply, in order (TVM's names)")
    p.add_argument("--verify", type=int, metavar="N",
                   help="check each pass against the interpreter on N sets of random inputs")
    p.add_argument("--seed", type=int, default=0, help="seed of --verify's random inputs")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_opt)

    p = sub.add_parser("fuzz", help="check a pass on random modules; save failures shrunk")
    p.add_argument("--pass", dest="pass_name", required=True, metavar="NAME")
    p.add_argument("--time", type=float, default=60.0, metavar="SECONDS",
                   help="how long to generate programs (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="fuzz-failures", metavar="DIR",
                   help="where failures are saved (default fuzz-failures)")
    p.add_argument("--trials", type=int, default=3,
                   help="input sets compared per program (default 3)")
    p.set_defaults(func=cmd_fuzz)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RelaxError as err:
        if err.source_text is None and err.span is not None:
            try:
                err.source_text = Path(err.span.source).read_text()
            except (OSError, UnicodeDecodeError):
                pass
        print(err.render(), file=sys.stderr)
        return 1
    except CLIError as err:
        print(f"relax-ref: error: {err}", file=sys.stderr)
        return 2
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
