"""Writes the conformance cases from their generators (spec/conformance.md).

    python conformance/generate.py [AREA ...]

Each area has a generator module ``conformance/gen_<area>.py`` defining
``cases() -> list[Case]``. Expected values come from an independent source: a NumPy
formula written in the generator, or a value computed by hand. Never from relax_ref.
Regenerating keeps each case's recorded ``tvm = ...`` verdict.
"""
from __future__ import annotations

import importlib
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
INLINE_LIMIT = 64  # arrays with more elements go to the case's .npz

# numpy dtype name -> TVM dtype name
_DTYPES = {"float16": "float16", "float32": "float32", "float64": "float64",
           "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
           "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
           "bool": "bool", "bfloat16": "bfloat16"}


@dataclass
class Value:
    """An argument or expected output, with its TVM dtype."""

    kind: str  # tensor, prim, shape, tuple, string
    data: Any
    dtype: str | None = None


def tensor(data, dtype: str | None = None) -> Value:
    arr = np.asarray(data)
    if dtype is not None:
        if dtype == "bfloat16":
            import ml_dtypes

            arr = arr.astype(ml_dtypes.bfloat16)
        else:
            arr = arr.astype(dtype)
    name = str(arr.dtype)
    if name not in _DTYPES:
        raise ValueError(f"unsupported dtype {name}")
    return Value("tensor", arr, _DTYPES[name])


def prim(value, dtype: str = "int64") -> Value:
    return Value("prim", value, dtype)


def shape(dims) -> Value:
    return Value("shape", [int(d) for d in dims])


def tuple_(*values: Value) -> Value:
    return Value("tuple", list(values))


@dataclass
class Run:
    args: list[Value]
    outputs: list[Value] | None = None
    expect: str = "ok"
    kind: str | None = None
    entry: str = "main"
    rtol: float | None = None
    atol: float | None = None


def ok(args, outputs, **kw) -> Run:
    return Run(list(args), list(outputs), "ok", **kw)


def trap(args, kind: str, **kw) -> Run:
    return Run(list(args), None, "trap", kind, **kw)


@dataclass
class Case:
    area: str
    name: str
    text: str
    runs: list[Run] = field(default_factory=list)
    expect: str = "ok"  # or "malformed" / "invalid"
    rule: str | None = None
    description: str = ""
    covers: list[str] = field(default_factory=list)  # spec rule IDs and op names


# -- writing -------------------------------------------------------------------------------

def _toml_str(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def _toml_scalar(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        text = repr(f)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_scalar(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def _encode(value: Value, arrays: dict, prefix: str) -> dict:
    if value.kind == "tensor":
        arr = value.data
        if arr.size > INLINE_LIMIT:
            key = f"{prefix}{len(arrays)}"
            arrays[key] = arr
            return {"npz": key}
        data = arr.astype(np.float64).tolist() if value.dtype in ("bfloat16", "float16") \
            else arr.tolist()
        entry = {"tensor": data, "dtype": value.dtype}
        if arr.size == 0 or arr.ndim == 0:
            entry = {"tensor": np.asarray(data).reshape(-1).tolist(), "dtype": value.dtype,
                     "shape": list(arr.shape)}
        return entry
    if value.kind == "prim":
        return {"prim": value.data, "dtype": value.dtype}
    if value.kind == "shape":
        return {"shape": value.data}
    if value.kind == "tuple":
        return {"tuple": [_encode(v, arrays, prefix) for v in value.data]}
    if value.kind == "string":
        return {"string": value.data}
    raise ValueError(value.kind)


def write_case(case: Case, root: Path = HERE) -> None:
    folder = root / case.area
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / case.name
    toml_path = base.with_suffix(".toml")
    previous_tvm = None
    if toml_path.exists():
        for line in toml_path.read_text().splitlines():
            if line.startswith("tvm = "):
                previous_tvm = line
    base.with_suffix(".py").write_text(case.text if case.text.endswith("\n") else case.text + "\n")
    lines = []
    if case.description:
        lines.append(f"description = {_toml_str(case.description)}")
    if case.covers:
        lines.append(f"covers = {_toml_scalar(case.covers)}")
    if case.expect != "ok":
        lines.append(f"expect = {_toml_str(case.expect)}")
    if case.rule:
        lines.append(f"rule = {_toml_str(case.rule)}")
    lines.append(previous_tvm or 'tvm = "unsupported: not recorded"')
    arrays: dict[str, np.ndarray] = {}
    for i, r in enumerate(case.runs):
        lines.append("")
        lines.append("[[run]]")
        if r.entry != "main":
            lines.append(f"entry = {_toml_str(r.entry)}")
        lines.append("args = [" + ", ".join(_toml_scalar(_encode(a, arrays, f"in{i}_"))
                                            for a in r.args) + "]")
        lines.append(f"expect = {_toml_str(r.expect)}")
        if r.kind:
            lines.append(f"kind = {_toml_str(r.kind)}")
        if r.outputs is not None:
            lines.append("outputs = [" + ", ".join(_toml_scalar(_encode(o, arrays, f"out{i}_"))
                                                   for o in r.outputs) + "]")
        if r.rtol is not None:
            lines.append(f"rtol = {_toml_scalar(r.rtol)}")
        if r.atol is not None:
            lines.append(f"atol = {_toml_scalar(r.atol)}")
    toml_path.write_text("\n".join(lines) + "\n")
    npz_path = base.with_suffix(".npz")
    if arrays:
        np.savez(npz_path, **arrays)
    elif npz_path.exists():
        npz_path.unlink()


def generator_modules() -> list[str]:
    return sorted(p.stem[len("gen_"):] for p in HERE.glob("gen_*.py"))


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    areas = argv or generator_modules()
    total = 0
    for area in areas:
        module = importlib.import_module(f"gen_{area}")
        cases = module.cases()
        names = set()
        for c in cases:
            if (c.area, c.name) in names:
                raise SystemExit(f"duplicate case {c.area}/{c.name}")
            names.add((c.area, c.name))
            write_case(c)
        total += len(cases)
        print(f"{area}: {len(cases)} cases")
    print(f"{total} cases written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
