"""Every sample, at every stage, reproduces TVM's recorded outputs; the runs TVM rejected
raise our error of the right kind; tuples_shapes gives the NumPy outputs."""
from __future__ import annotations


import numpy as np
import pytest

from relax_ref.parser.builder import parse
from relax_ref.errors import RuntimeCheckError
from relax_ref.semantics.inputs import arguments_from_arrays
from relax_ref.semantics.interpreter import Interpreter, flatten_values
from relax_ref.values import PrimScalar, ShapeValue
from tests.conftest import SAMPLES, sample_manifest


def _runs():
    out = []
    for entry in sample_manifest():
        for suffix in (".py", ".src.py"):
            path = SAMPLES / f"{entry['name']}{suffix}"
            if not path.exists():
                continue
            for run in entry["runs"]:
                out.append(pytest.param(path, entry["entry"], run,
                                        id=f"{path.name}-{run['file'].split('.')[-2]}"))
    return out


def _arrays(npz, prefix):
    keys = sorted((k for k in npz.files if k.startswith(prefix)), key=lambda k: int(k[len(prefix):]))
    return [npz[k] for k in keys]


def _as_array(v):
    if isinstance(v, PrimScalar):
        return np.asarray(v.value)
    if isinstance(v, ShapeValue):
        return np.asarray(v.dims, dtype=np.int64)
    return v


@pytest.mark.parametrize("path,entry,run", _runs())
def test_sample_reproduces_tvm(path, entry, run):
    npz = np.load(SAMPLES / run["file"])
    mod = parse(path.read_text(), str(path))
    interp = Interpreter(mod)
    args = arguments_from_arrays(interp.mod[entry], _arrays(npz, "in_"))
    if run["expect"] != "ok" and not run["expect"].startswith("ok"):
        with pytest.raises(RuntimeCheckError) as info:
            interp.run(entry, args)
        assert info.value.check == "match_cast"
        return
    outs = flatten_values(interp.run(entry, args))
    expected = _arrays(npz, "out_")
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        got = _as_array(got)
        if np.issubdtype(np.asarray(want).dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)
