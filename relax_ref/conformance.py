"""The conformance-suite runner (spec/conformance.md, DESIGN.md section 6).

A case is ``<area>/<name>.py`` (a module in TVMScript) and ``<area>/<name>.toml`` (what
to do with it), optionally with ``<name>.npz`` for large arrays. The four kinds of
expectation follow the WebAssembly spec tests:

- ``expect = "malformed"``: the text must be rejected by the parser;
- ``expect = "invalid"``: it parses, but is rejected by well-formedness / struct-info
  checking (``rule`` optionally names the spec rule);
- runs (``[[run]]`` tables) with ``expect = "ok"`` and ``outputs``, or
  ``expect = "trap"`` with a ``kind`` (the run-time check that must fail).

An implementation plugs in through ``Implementation`` (see ``RelaxRefImpl`` and
``TVMImpl``); nothing about a case depends on relax_ref's internals.
"""
from __future__ import annotations

import copy

import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_SUITE = Path(__file__).resolve().parents[1] / "conformance"


# -- outcomes of an implementation -------------------------------------------------------

class Malformed(Exception):
    """The implementation rejected the text as malformed."""


class Invalid(Exception):
    """The implementation rejected the module as ill-formed or ill-typed."""

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.rule = rule


class Trap(Exception):
    """A run stopped at a failed run-time check of kind ``kind`` (rule ``rule``)."""

    def __init__(self, message: str, kind: str | None, rule: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.rule = rule


class Unsupported(Exception):
    """The implementation cannot run this case at all (missing feature)."""


# -- values --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    dims: tuple[int, ...]


@dataclass(frozen=True)
class Prim:
    value: Any
    dtype: str


def decode_value(spec: Any, npz, where: str) -> Any:
    """A value written in a case file: ``{tensor = [...], dtype = "float32"}``,
    ``{prim = 3, dtype = "int64"}``, ``{shape = [2, 3]}``, ``{tuple = [...]}``,
    ``{npz = "in_0"}``, ``{string = "..."}``."""
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: a value is a table such as {{tensor = [...], dtype = ...}}")
    if "tensor" in spec:
        from relax_ref.ir.dtype import parse_dtype
        from relax_ref.ir.numpy_dtype import numpy_dtype

        dtype = numpy_dtype(parse_dtype(spec.get("dtype", "float32")))
        data = spec["tensor"]
        shape = spec.get("shape")
        arr = np.array(data, dtype=np.float64 if np.issubdtype(dtype, np.floating) or
                       dtype.kind == "V" else None)
        arr = arr.astype(dtype)
        if shape is not None:
            arr = arr.reshape(shape)
        return arr
    if "npz" in spec:
        if npz is None:
            raise ValueError(f"{where}: the case has no .npz file")
        return np.asarray(npz[spec["npz"]])
    if "prim" in spec:
        return Prim(spec["prim"], spec.get("dtype", "int64"))
    if "shape" in spec:
        return Shape(tuple(int(d) for d in spec["shape"]))
    if "tuple" in spec:
        return tuple(decode_value(v, npz, f"{where}[{i}]") for i, v in enumerate(spec["tuple"]))
    if "string" in spec:
        return spec["string"]
    raise ValueError(f"{where}: unknown value form {sorted(spec)}")


# -- cases ---------------------------------------------------------------------------------------

@dataclass
class Run:
    entry: str
    args: list
    expect: str
    outputs: list | None = None
    kind: str | None = None
    rtol: float = 1e-5
    atol: float = 1e-6
    sym: dict = field(default_factory=dict)


@dataclass
class Case:
    area: str
    name: str
    path: Path
    text: str
    expect: str  # "ok" (has runs), "malformed", "invalid"
    rule: str | None
    runs: list[Run]
    tvm: str
    description: str = ""

    @property
    def id(self) -> str:
        return f"{self.area}/{self.name}"


def load_case(toml_path: Path, root: Path) -> Case:
    data = tomllib.loads(toml_path.read_text())
    module_path = toml_path.with_suffix(".py")
    text = module_path.read_text() if module_path.exists() else data.get("text", "")
    npz_path = toml_path.with_suffix(".npz")
    npz = np.load(npz_path) if npz_path.exists() else None
    rel = toml_path.relative_to(root)
    area = rel.parts[0] if len(rel.parts) > 1 else "misc"
    name = str(rel.with_suffix("")).split("/", 1)[-1] if len(rel.parts) > 1 else rel.stem
    runs = []
    for i, r in enumerate(data.get("run", [])):
        where = f"{rel} run {i}"
        args = [decode_value(a, npz, f"{where} arg {j}") for j, a in enumerate(r.get("args", []))]
        outputs = None
        if "outputs" in r:
            outputs = [decode_value(o, npz, f"{where} output {j}")
                       for j, o in enumerate(r["outputs"])]
        runs.append(Run(r.get("entry", "main"), args, r.get("expect", "ok"), outputs,
                        r.get("kind"), float(r.get("rtol", 1e-5)), float(r.get("atol", 1e-6)),
                        dict(r.get("sym", {}))))
    expect = data.get("expect", "ok")
    return Case(area, name, toml_path, text, expect, data.get("rule"), runs,
                data.get("tvm", "unsupported: not recorded"), data.get("description", ""))


def discover(path: Path, pattern: str | None = None) -> list[Case]:
    path = Path(path)
    root = path if path.is_dir() else path.parent
    suite_root = root
    while suite_root.parent != suite_root and not (suite_root / "README.md").exists() \
            and suite_root.name != "conformance":
        suite_root = suite_root.parent
    if suite_root.name != "conformance":
        suite_root = root
    files = sorted(root.rglob("*.toml")) if path.is_dir() else [path.with_suffix(".toml")]
    cases = [load_case(f, suite_root) for f in files]
    if pattern:
        cases = [c for c in cases if pattern in c.id]
    return cases


# -- implementations ---------------------------------------------------------------------------

class Implementation:
    name = "?"

    def load(self, text: str, source: str) -> Any:
        """Parse and check a module: Malformed, Invalid, or a handle to run."""
        raise NotImplementedError

    def run(self, handle: Any, entry: str, args: list) -> list:
        """Run ``entry``: the flattened results, or Trap."""
        raise NotImplementedError


class RelaxRefImpl(Implementation):
    name = "relax_ref"

    def __init__(self, max_steps: int | None = None, passes: tuple[str, ...] = ()):
        self.max_steps = max_steps  # the TIR step budget of one PrimFunc call
        # Passes run on each checked module before it runs (``--passes LegalizeOps``):
        # the suite's expectations must hold of the transformed module too (CONF-pass-1).
        self.passes = tuple(passes)

    def load(self, text: str, source: str):
        from relax_ref.parser.builder import parse
        from relax_ref.errors import ParseError, RelaxError
        from relax_ref.semantics.interpreter import Interpreter

        from relax_ref.semantics.well_formed import check_well_formed

        try:
            mod = parse(text, source)
        except ParseError as err:
            raise Malformed(err.render()) from None
        # Well-formedness of the module as written first (it reports every problem
        # under its own rule), then normalization for the interpreter.
        errors = check_well_formed(mod)
        if errors:
            raise Invalid(errors[0].render(), errors[0].rule)
        from relax_ref.semantics.interpreter import Limits

        try:
            limits = Limits(max_tir_steps=self.max_steps) if self.max_steps else None
            if self.passes:
                from relax_ref.transform import Sequential

                mod = Sequential(list(self.passes))(mod)
            return Interpreter(mod, limits=limits)
        except RelaxError as err:
            raise Invalid(err.render(), err.rule) from None

    def run(self, interp, entry: str, args: list) -> list:
        from relax_ref.ir.dtype import parse_dtype
        from relax_ref.errors import ResourceError, RuntimeCheckError
        from relax_ref.semantics.interpreter import flatten_values
        from relax_ref.values import PrimScalar, ShapeValue

        def convert(v):
            if isinstance(v, Prim):
                dt = parse_dtype(v.dtype)
                value = bool(v.value) if dt.is_bool else (float(v.value) if dt.is_float
                                                          else int(v.value))
                return PrimScalar(value, dt)
            if isinstance(v, Shape):
                return ShapeValue(v.dims)
            if isinstance(v, tuple):
                return tuple(convert(x) for x in v)
            return v

        import contextlib
        import io

        try:
            # R.print writes to standard output; keep it out of the runner's report.
            with contextlib.redirect_stdout(io.StringIO()):
                result = interp.run(entry, [convert(a) for a in args])
        except RuntimeCheckError as err:
            raise Trap(err.render(), err.check, err.rule) from None
        except ResourceError as err:
            raise Trap(err.render(), "resource") from None
        out = []
        for v in flatten_values(result):
            if isinstance(v, PrimScalar):
                out.append(Prim(v.value, str(v.dtype)))
            elif isinstance(v, ShapeValue):
                out.append(Shape(v.dims))
            else:
                out.append(v)
        return out


class TVMImpl(Implementation):
    """Apache TVM 0.27: parse with tvm.script.from_source, compile for llvm, run on the
    VM. Its error messages do not name our check kinds, so a trap matches any kind."""

    name = "tvm"

    def __init__(self):
        try:
            import tvm  # noqa: F401
        except Exception as err:  # noqa: BLE001 - TVM absent or broken
            raise Unsupported(f"TVM is not importable: {err}") from None

    def load(self, text: str, source: str):
        import tvm
        from tvm import relax
        from tvm.script import from_source

        if not _parses_in_time(text, 120):
            raise Malformed("TVM's parser did not finish within 120 s")
        try:
            mod = from_source(text)
        except Exception as err:  # noqa: BLE001 - TVM raises many kinds
            raise Malformed(_first_line(err)) from None
        try:
            if relax.analysis.well_formed(mod) is False:
                raise Invalid("relax.analysis.well_formed returned False")
            exe = tvm.compile(mod, target="llvm")
            vm = relax.VirtualMachine(exe, tvm.cpu())
        except Invalid:
            raise
        except Exception as err:  # noqa: BLE001
            raise Invalid(_first_line(err)) from None
        return vm

    def run(self, vm, entry: str, args: list) -> list:
        import tvm

        def convert(v):
            if isinstance(v, Prim):
                return v.value
            if isinstance(v, Shape):
                return tvm.runtime.ShapeTuple(list(v.dims))
            if isinstance(v, tuple):
                return tuple(convert(x) for x in v)
            if isinstance(v, np.ndarray):
                return tvm.runtime.tensor(v) if hasattr(tvm.runtime, "tensor") else tvm.nd.array(v)
            return v

        # TVM's compiled code can kill the process (an integer division by zero raises
        # SIGFPE), so each run happens in a forked child that reports back. os.fork, not
        # multiprocessing, so that this also works inside the runner's pool workers.
        import os
        import pickle

        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read_fd)
            try:
                try:
                    result = vm[entry](*[convert(a) for a in args])
                    message = ("ok", _flatten_tvm(result))
                except Exception as err:  # noqa: BLE001
                    message = ("trap", _first_line(err))
                with os.fdopen(write_fd, "wb") as out:
                    pickle.dump(message, out)
            finally:
                os._exit(0)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as inp:
            data = inp.read()
        _, status = os.waitpid(pid, 0)
        if not data:
            how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                   else f"exit code {os.WEXITSTATUS(status)}")
            raise Trap(f"the TVM run died ({how})", None)
        kind, payload = pickle.loads(data)  # our own child's message
        if kind == "trap":
            raise Trap(payload, None)
        return payload


class TVMLoweredImpl(RelaxRefImpl):
    """The cross-check of TVM's lowering (CONF-lower-1): the module is checked by
    relax_ref as written (a malformed or invalid case is judged there: there is nothing
    to lower); then TVM 0.27 parses it, runs its LegalizeOps and prints the result, and
    relax_ref parses that text and runs it. A case TVM cannot parse or lower is
    Unsupported; text of TVM's that we cannot read back is a failure (Malformed)."""

    name = "tvm-lowered"

    def __init__(self, max_steps: int | None = None, seconds: float = 120.0):
        super().__init__(max_steps)
        self.seconds = seconds  # how long TVM may take to parse, lower and print
        try:
            import tvm.relax.transform  # noqa: F401 - imported once, before the forks
            import tvm.script  # noqa: F401
        except Exception as err:  # noqa: BLE001 - TVM absent or broken
            raise Unsupported(f"TVM is not importable: {err}") from None

    def load(self, text: str, source: str):
        super().load(text, source)  # ours first: Malformed / Invalid as written
        ok, lowered = tvm_legalized_text(text, self.seconds)
        if not ok:
            raise Unsupported(lowered)
        try:
            return super().load(lowered, source + " (TVM's LegalizeOps)")
        except Malformed as err:
            raise Malformed(f"TVM's lowered text is not read back: {err}") from None
        except Invalid as err:
            raise Invalid(f"TVM's lowered module is invalid here: {err}", err.rule) from None


def tvm_legalized_text(text: str, seconds: float = 120.0) -> tuple[bool, str]:
    """``(True, text)``: TVM 0.27's ``LegalizeOps`` output for the module ``text``, as
    TVM prints it (tensor constants in a metadata section, _tvm_script_with_constants);
    ``(False, why)`` when TVM cannot parse, lower or print it."""

    def work(tvm, from_source):
        try:
            mod = from_source(text)
        except Exception as err:  # noqa: BLE001 - TVM raises many kinds
            return False, f"TVM 0.27's parser rejects the text: {_first_line(err)}"
        if not isinstance(mod, tvm.IRModule):  # a file of one function (SYN-module-1):
            mod = tvm.IRModule.from_expr(mod)  # TVM names it main
        try:
            lowered = tvm.relax.transform.LegalizeOps()(mod)
        except Exception as err:  # noqa: BLE001
            return False, f"TVM's LegalizeOps fails: {_first_line(err)}"
        return _tvm_script_with_constants(lowered)

    message = _in_tvm_child(work, seconds, "parse and lower the module")
    if not message[0] or len(message) == 2:
        return message[0], message[1]
    _, lowered, arrays = message
    from relax_ref.ir.relax import Constant
    from relax_ref.parser.metadata import encode_metadata, escape_python_string

    graph = encode_metadata([Constant(a) for a in arrays])
    return True, f'metadata = tvm.ir.load_json("""{escape_python_string(graph)}""")\n' + lowered


def tvm_reads_text(text: str, seconds: float = 120.0) -> tuple[bool, str]:
    """``(True, "")`` when TVM 0.27's ``tvm.script.from_source`` reads ``text``, else
    ``(False, why)`` (CONF-lower-2: TVM reads what our LegalizeOps prints)."""

    def work(tvm, from_source):
        try:
            from_source(text)
        except Exception as err:  # noqa: BLE001 - TVM raises many kinds
            return False, f"TVM 0.27's parser rejects the text: {_first_line(err)}"
        return True, ""

    return _in_tvm_child(work, seconds, "parse the module")


def _in_tvm_child(work, seconds: float, what: str) -> tuple:
    """``work(tvm, from_source)`` run in a forked child, its (picklable) result returned:
    TVM can loop forever or die on some input, and neither may stop the runner. A child
    that dies or runs past ``seconds`` gives ``(False, why)``."""
    import os
    import pickle
    import time as _time

    try:  # imported here once, not in each child (a second or more each time)
        import tvm
        from tvm.script import from_source
    except Exception as err:  # noqa: BLE001 - TVM absent or broken
        return False, f"TVM is not importable: {err}"
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_fd)
        try:
            try:
                message = work(tvm, from_source)
            except BaseException as err:  # noqa: BLE001 - reported, never raised
                message = (False, f"TVM failed: {type(err).__name__}: {err}")
            with os.fdopen(write_fd, "wb") as out:
                pickle.dump(message, out)
        finally:
            os._exit(0)
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    chunks = []
    deadline = _time.monotonic() + seconds
    with os.fdopen(read_fd, "rb") as inp:
        while True:  # read as the child writes, so a large message cannot block it
            chunk = inp.read()
            if chunk:
                chunks.append(chunk)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                chunks.append(inp.read() or b"")
                break
            if _time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return False, f"TVM did not {what} within {seconds:g} s"
            _time.sleep(0.005)
    data = b"".join(chunks)
    if not data:
        how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
               else f"exit code {os.WEXITSTATUS(status)}")
        return False, f"TVM died trying to {what} ({how})"
    return pickle.loads(data)  # our own child's message


_METADATA_REF = re.compile(r'metadata\["([^"\\]+)"\]\[(\d+)\]')


def _tvm_script_with_constants(mod) -> tuple:
    """Runs in tvm_legalized_text's child: ``(True, text)`` for a module without tensor
    constants, else ``(True, text, arrays)``, where ``text`` refers to the k-th array as
    ``metadata["relax.expr.Constant"][k]``. TVM 0.27's ``script(show_meta=True)`` dies in
    ``ToJSONGraph`` on a module with constants (and its parser refuses the section it
    would write), so the body is printed without metadata and the constants are
    collected here in the printer's order: functions as they appear in the text, each
    constant numbered at its first occurrence, per metadata key."""
    from tvm import relax

    text = mod.script(show_meta=False)
    refs = _METADATA_REF.findall(text)
    if not refs:
        return True, text
    order = sorted(mod.functions.items(),
                   key=lambda kv: text.find(f"def {kv[0].name_hint}("))
    constants: list = []

    def collect(node) -> None:
        # A tensor constant (GenericConst in 0.27, its tensor in .value); a 0-d one
        # prints inline as R.const(v, dtype), not as metadata.
        value = getattr(node, "value", None)
        if type(node).__name__ in ("GenericConst", "Constant") and hasattr(value, "numpy") \
                and len(value.shape) > 0 and not any(node.same_as(c) for c in constants):
            constants.append(node)

    for _, func in order:
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func, collect)  # children left to right
    keys = list(dict.fromkeys(key for key, _ in refs))
    counts = {key: len({int(k) for kk, k in refs if kk == key}) for key in keys}
    if len(keys) != 1 or len(constants) != counts[keys[0]]:
        return False, (f"could not match TVM's metadata references {counts} with the "
                       f"module's {len(constants)} constants")
    text = _METADATA_REF.sub(lambda m: f'metadata["relax.expr.Constant"][{m.group(2)}]', text)
    return True, text, [c.value.numpy() for c in constants]


def _first_line(err: Exception) -> str:
    """The informative line of a TVM error: its ``error:`` line when there is one."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    for line in lines:
        if "error:" in line or line.startswith(("TypeError", "ValueError")):
            return line
    # A diagnostic whose last lines are the source and a caret: take the text before.
    meaningful = [line for line in lines if not line.startswith(("|", "-->", "^"))
                  and not set(line) <= set("|^ ")]
    return meaningful[-1] if meaningful else (lines[-1] if lines else type(err).__name__)


def _parses_in_time(text: str, seconds: float) -> bool:
    """Whether TVM's parser finishes on ``text`` (it can loop forever on some inputs):
    tried in a forked child so a hang cannot stop the runner."""
    import os
    import time as _time

    pid = os.fork()
    if pid == 0:  # the child
        try:
            from tvm.script import from_source

            from_source(text)
        except BaseException:  # noqa: BLE001 - only termination matters here
            pass
        finally:
            os._exit(0)
    deadline = _time.monotonic() + seconds
    while _time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        _time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return False


def _flatten_tvm(v) -> list:
    if type(v).__name__ in ("ShapeTuple", "Shape"):  # a tuple subclass in TVM 0.27
        return [Shape(tuple(int(d) for d in v))]
    if isinstance(v, (list, tuple)) or type(v).__name__ in ("Array", "ADT"):
        out = []
        for x in v:
            out.extend(_flatten_tvm(x))
        return out
    if hasattr(v, "numpy"):
        return [v.numpy()]
    if isinstance(v, (int, float, bool)):
        return [Prim(v, "bool" if isinstance(v, bool) else ("float64" if isinstance(v, float)
                                                             else "int64"))]
    return [v]


IMPLEMENTATIONS = {"relax_ref": RelaxRefImpl, "tvm": TVMImpl,
                   "tvm-lowered": TVMLoweredImpl}


# -- checking one case ----------------------------------------------------------------------------

@dataclass
class Result:
    case: Case
    passed: bool
    detail: str = ""
    seconds: float = 0.0
    unsupported: bool = False


def compare(got, want, rtol: float, atol: float) -> str | None:
    """None when ``got`` matches ``want``; else why not (with the max errors)."""
    if isinstance(want, Prim):
        if not isinstance(got, Prim):
            return f"expected a scalar {want.value!r}, got {type(got).__name__}"
        if isinstance(want.value, float) or isinstance(got.value, float):
            if not np.isclose(float(got.value), float(want.value), rtol=rtol, atol=atol,
                              equal_nan=True):
                return f"expected {want.value!r}, got {got.value!r}"
            return None
        return None if got.value == want.value else f"expected {want.value!r}, got {got.value!r}"
    if isinstance(want, Shape):
        if not isinstance(got, Shape) or tuple(got.dims) != tuple(want.dims):
            return f"expected shape {list(want.dims)}, got {got!r}"
        return None
    want = np.asarray(want)
    if not isinstance(got, np.ndarray):
        return f"expected a tensor, got {type(got).__name__}"
    if got.shape != want.shape:
        return f"expected shape {want.shape}, got {got.shape}"
    if got.dtype != want.dtype:
        return f"expected dtype {want.dtype}, got {got.dtype}"
    if want.dtype.kind in "fcV":
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        if not np.array_equal(np.isnan(g), np.isnan(w)):
            return "NaN positions differ"
        mask = ~np.isnan(w)
        if not np.allclose(g[mask], w[mask], rtol=rtol, atol=atol):
            abs_err = np.max(np.abs(g[mask] - w[mask])) if mask.any() else 0.0
            rel_err = np.max(np.abs(g[mask] - w[mask]) / np.maximum(np.abs(w[mask]), 1e-30)) \
                if mask.any() else 0.0
            return f"values differ: max abs error {abs_err:.3g}, max rel error {rel_err:.3g}"
        return None
    if not np.array_equal(got, want):
        bad = int(np.sum(got != want))
        return f"{bad} of {want.size} values differ"
    return None


def check_case(case: Case, impl: Implementation) -> Result:
    t0 = time.perf_counter()
    try:
        passed, detail = _check(case, impl)
        return Result(case, passed, detail, time.perf_counter() - t0)
    except Unsupported as err:
        return Result(case, False, f"unsupported: {err}", time.perf_counter() - t0, True)
    except Exception as err:  # noqa: BLE001 - an implementation crash is a failure
        tb = traceback.format_exc(limit=-3)
        return Result(case, False, f"crashed: {type(err).__name__}: {err}\n{tb}",
                      time.perf_counter() - t0)


def _check(case: Case, impl: Implementation) -> tuple[bool, str]:
    source = str(case.path.with_suffix(".py"))
    try:
        handle = impl.load(case.text, source)
    except Malformed as err:
        if case.expect == "malformed":
            return True, ""
        return False, f"rejected as malformed: {err}"
    except Invalid as err:
        if case.expect == "invalid":
            if case.rule and err.rule and case.rule != err.rule and impl.name == "relax_ref":
                return False, f"rejected by rule {err.rule}, expected {case.rule}: {err}"
            return True, ""
        if case.expect == "malformed":
            return False, f"expected malformed, was rejected as invalid: {err}"
        return False, f"rejected as invalid: {err}"
    if case.expect in ("malformed", "invalid"):
        return False, f"expected {case.expect}, but it was accepted"
    for i, run in enumerate(case.runs):
        try:
            # A fresh copy of the arguments each time: an in-place call writes into its
            # input, and a case's runs are read again by later checks of the same case.
            outs = impl.run(handle, run.entry, copy.deepcopy(run.args))
        except Trap as err:
            if str(err).startswith("the TVM run died"):
                # A crash is not a trap: the implementation has no check there.
                return False, f"run {i}: {err}"
            if run.expect == "trap":
                from relax_ref.errors import same_check

                # After passes, one documented equivalence of kinds (CONF-pass-2).
                lowered = bool(getattr(impl, "passes", ()))
                if run.kind and err.kind and run.kind != err.kind and not (
                        lowered and same_check(run.kind, err.kind, err.rule)):
                    return False, f"run {i}: trapped with kind {err.kind}, expected {run.kind}: {err}"
                continue
            return False, f"run {i}: trapped: {err}"
        if run.expect == "trap":
            return False, f"run {i}: expected a trap of kind {run.kind}, but it returned"
        if run.outputs is not None:
            if len(outs) != len(run.outputs):
                return False, f"run {i}: expected {len(run.outputs)} outputs, got {len(outs)}"
            for j, (g, w) in enumerate(zip(outs, run.outputs)):
                problem = compare(g, w, run.rtol, run.atol)
                if problem:
                    return False, f"run {i} output {j}: {problem}"
    return True, ""


# -- the command --------------------------------------------------------------------------------

def _implementation(impl_name: str, max_steps: int | None,
                    passes: tuple[str, ...] = ()) -> Implementation:
    if impl_name == "relax_ref":
        return RelaxRefImpl(max_steps, passes)
    if impl_name == "tvm-lowered":
        return TVMLoweredImpl(max_steps)
    return IMPLEMENTATIONS[impl_name]()


def _check_worker(args):
    case, impl_name, max_steps, passes = args
    return check_case(case, _implementation(impl_name, max_steps, passes))


def run_suite(cases: list[Case], impl_name: str, jobs: int = 1, progress: bool = True,
              max_steps: int | None = None, passes: tuple[str, ...] = ()) -> list[Result]:
    """Every case's Result; ``progress`` shows a bar on stderr; ``max_steps`` is
    relax_ref's TIR step budget per PrimFunc call (default: the interpreter's);
    ``passes`` run on each module before it runs (relax_ref only)."""
    results: list[Result] = []
    if impl_name in ("tvm", "tvm-lowered"):
        try:
            IMPLEMENTATIONS[impl_name]()
        except Unsupported as err:
            return [Result(c, False, f"unsupported: {err}", 0.0, True) for c in cases]
    work = [(c, impl_name, max_steps, tuple(passes)) for c in cases]
    iterator: Iterable[Result]
    pool = None
    if jobs > 1:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(jobs)
        iterator = pool.imap(_check_worker, work, chunksize=4)
    else:
        impl = _implementation(impl_name, max_steps, tuple(passes))
        iterator = (check_case(c, impl) for c in cases)
    try:
        if progress:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task(f"conformance ({impl_name})", total=len(cases))
                for r in iterator:
                    results.append(r)
                    bar.advance(task)
        else:
            results.extend(iterator)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return results


def report(results: list[Result], impl_name: str, out=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out or sys.stdout, highlight=False, width=120)
    failures = [r for r in results if not r.passed]
    for r in failures:
        console.print(f"[bold red]FAIL[/] {r.case.id}: {r.detail}", markup=True,
                      soft_wrap=True)
    table = Table(title=f"conformance: {impl_name}")
    for col in ("area", "cases", "passed", "failed", "seconds"):
        table.add_column(col, justify="right" if col != "area" else "left")
    areas = sorted({r.case.area for r in results})
    for area in areas:
        rs = [r for r in results if r.case.area == area]
        table.add_row(area, str(len(rs)), str(sum(r.passed for r in rs)),
                      str(sum(not r.passed for r in rs)), f"{sum(r.seconds for r in rs):.1f}")
    console.print(table)
    passed = sum(r.passed for r in results)
    # The closing line CI systems read.
    print(f"{passed} passed, {len(results) - passed} failed", file=out or sys.stdout)


def write_junit(results: list[Result], path: str, impl_name: str) -> None:
    Path(path).write_text(junit_xml(results, impl_name))


def junit_xml(results: list[Result], impl_name: str) -> str:
    """The results as a JUnit XML report (one testcase per case)."""
    from xml.sax.saxutils import escape, quoteattr

    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuite name={quoteattr("conformance-" + impl_name)} tests="{len(results)}" '
             f'failures="{sum(not r.passed for r in results)}">']
    for r in results:
        lines.append(f'  <testcase classname={quoteattr(r.case.area)} name={quoteattr(r.case.name)} '
                     f'time="{r.seconds:.3f}">')
        if not r.passed:
            lines.append(f'    <failure message={quoteattr(r.detail.splitlines()[0] if r.detail else "")}>'
                         f'{escape(r.detail)}</failure>')
        lines.append("  </testcase>")
    lines.append("</testsuite>")
    return "\n".join(lines) + "\n"


def record_tvm(results: list[Result]) -> None:
    """Write each case's TVM outcome into its toml as ``tvm = "..."`` (top-level key).
    An existing explanation is kept when the outcome's class (agrees / differs /
    unsupported) has not changed: people write better reasons than the runner does."""
    for r in results:
        if r.passed:
            verdict = "agrees"
        elif r.unsupported or "rejected as malformed" in r.detail:
            verdict = "unsupported: " + r.detail.splitlines()[0][:160]
        else:
            verdict = "differs: " + r.detail.splitlines()[0][:160]
        previous = r.case.tvm or ""
        if previous.split(":", 1)[0] == verdict.split(":", 1)[0] and \
                previous != "unsupported: not recorded":
            continue
        _set_toml_key(r.case.path, "tvm", verdict)


def _set_toml_key(path: Path, key: str, value: str) -> None:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    lines = path.read_text().splitlines()
    new_line = f'{key} = "{escaped}"'
    for i, line in enumerate(lines):
        if line.startswith("["):
            lines.insert(i, new_line)
            break
        if line.split("=", 1)[0].strip() == key:
            lines[i] = new_line
            break
    else:
        lines.append(new_line)
    path.write_text("\n".join(lines) + "\n")
