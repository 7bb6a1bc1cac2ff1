"""The one bridge between our struct info and Apache TVM 0.27's, for the ops tests'
cross-checks (``@pytest.mark.tvm``): it builds TVM variables and calls from our struct
info, reads TVM's deduction back, compares the two, and runs TVM's legalized kernels.

Symbolic variables are shared by name: our ``n`` and TVM's ``n`` are one variable, so
that TVM's dimensions read back (``to_ours``) can be compared with ours. A test without
TVM importable is skipped."""
from __future__ import annotations

import itertools

import pytest

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, parse_dtype
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.evaluate import EvaluationError, evaluate_int
from relax_ref.solver.simplify import expr_text

SAMPLES = (0, 1, 2, 3, 4, 5, 7, 12)

_TO_TVM = {P.Add: "__add__", P.Sub: "__sub__", P.Mul: "__mul__", P.FloorDiv: "__floordiv__"}
_BINARY = {"Add": P.Add, "Sub": P.Sub, "Mul": P.Mul, "FloorDiv": P.FloorDiv,
           "FloorMod": P.FloorMod, "Min": P.Min, "Max": P.Max}
_COMPARE = {"LT": P.LT, "LE": P.LE, "GT": P.GT, "GE": P.GE, "EQ": P.EQ, "NE": P.NE}


class TvmBridge:
    """Our struct info <-> TVM's. Build TVM operands with ``var``/``tensor``/``shape``,
    deduce with ``deduce``/``their_sinfo``/``raises``, compare with ``assert_same``
    (every dimension proved equal) or ``assert_same_at`` (every dimension equal at
    sample values of the variables), run numbers with ``run_legalized``."""

    def __init__(self):
        try:
            import tvm
            from tvm import relax, sym, tirx
        except Exception as err:  # pragma: no cover - depends on the environment
            pytest.skip(f"apache-tvm is not importable: {err}")
        self.tvm, self.relax, self.tirx, self.sym = tvm, relax, tirx, sym
        self.ours: dict[str, P.Var] = {}
        self.theirs: dict[str, object] = {}

    # -- symbolic dimensions ---------------------------------------------------------------

    def _share(self, v: P.Var) -> object:
        """TVM's variable for ours (the first of a name is the one both sides use)."""
        if v.name not in self.theirs:
            self.ours[v.name] = v
            self.theirs[v.name] = self.tirx.Var(v.name, "int64")
        return self.theirs[v.name]

    def dim(self, d: int | str) -> tuple[P.PrimExpr, object]:
        """(ours, TVM's) for an int or the name of a symbolic variable."""
        if isinstance(d, int):
            return P.IntImm(d), d
        if d not in self.ours:
            self._share(P.Var(d))
        return self.ours[d], self.theirs[d]

    def expr(self, e: P.PrimExpr | int):
        """Our dimension (an int or a PrimExpr of + - * //) as TVM's."""
        if isinstance(e, int):
            return self.tirx.IntImm("int64", e)
        if isinstance(e, P.IntImm):
            return self.tirx.IntImm("int64", e.value)
        if isinstance(e, P.Var):
            return self._share(e)
        return getattr(self.expr(e.a), _TO_TVM[type(e)])(self.expr(e.b))

    def to_ours(self, e) -> P.PrimExpr:
        """TVM's dimension as ours (the operators deduction produces)."""
        kind = type(e).__name__
        if kind == "IntImm":
            return P.IntImm(int(e.value))
        if kind in ("Var", "SizeVar"):
            return self.ours[e.name]
        if kind in _BINARY:
            return _BINARY[kind](self.to_ours(e.a), self.to_ours(e.b), INT64)
        if kind in _COMPARE:
            return _COMPARE[kind](self.to_ours(e.a), self.to_ours(e.b), BOOL)
        if kind == "Select" or (kind == "Call" and e.op.name.endswith("if_then_else")):
            c, t, f = (e.condition, e.true_value, e.false_value) if kind == "Select" else e.args
            return P.Select(self.to_ours(c), self.to_ours(t), self.to_ours(f), INT64)
        raise NotImplementedError(kind)

    # -- operands --------------------------------------------------------------------------

    def var(self, s: si.StructInfo, name: str = "x"):
        """A TVM Relax variable with our struct info (a tensor or a shape)."""
        relax = self.relax
        if isinstance(s, si.ShapeStructInfo):
            return relax.Var(name, relax.ShapeType([self.expr(d) for d in s.values]))
        dtype = None if s.dtype.is_void else str(s.dtype)
        if s.shape is None:
            return relax.Var(name, relax.TensorType(None, dtype, ndim=s.ndim))
        return relax.Var(name, relax.TensorType([self.expr(d) for d in s.shape], dtype))

    def tensor(self, dims, dtype: str = "float32") -> tuple[si.TensorStructInfo, object]:
        """(our struct info, TVM variable) for a tensor of ``dims`` (ints and variable
        names); ``dims`` an int means the ndim only."""
        if isinstance(dims, int):
            ours = si.TensorStructInfo(None, parse_dtype(dtype), dims)
        else:
            ours = si.TensorStructInfo(tuple(self.dim(d)[0] for d in dims), parse_dtype(dtype))
        return ours, self.var(ours)

    def shape(self, dims) -> tuple[rx.ShapeExpr, list]:
        """(our literal ``R.shape``, TVM's list of dimensions) for ``dims``."""
        pairs = [self.dim(d) for d in dims]
        return rx.ShapeExpr(tuple(p[0] for p in pairs)), [p[1] for p in pairs]

    # -- TVM's deduction -------------------------------------------------------------------

    def their_sinfo(self, expr):
        """The struct info TVM's BlockBuilder deduces for ``expr``."""
        return self.relax.BlockBuilder().normalize(expr).ty

    def deduce(self, build, *sinfos):
        """TVM's struct info of ``build`` applied to variables of our ``sinfos``."""
        return self.their_sinfo(build(*(self.var(s, f"x{i}") for i, s in enumerate(sinfos))))

    def raises(self, build, *sinfos) -> bool:
        """Whether TVM rejects ``build`` on variables of our ``sinfos``."""
        try:
            self.deduce(build, *sinfos)
        except Exception:  # noqa: BLE001 - any TVM error is a rejection
            return True
        return False

    # -- comparisons -----------------------------------------------------------------------

    def _same_kind(self, ours, theirs) -> list | None:
        """Asserts what both comparisons share: the same kind (tuple, shape, tensor),
        dtype and ndim. Returns the pairs of fields to compare for a tuple, else None."""
        relax = self.relax
        if isinstance(theirs, relax.TupleType):
            assert isinstance(ours, si.TupleStructInfo), (ours, theirs)
            assert len(ours.fields) == len(theirs.fields), (ours, theirs)
            return list(zip(ours.fields, theirs.fields))
        if isinstance(theirs, relax.ShapeType):
            assert isinstance(ours, si.ShapeStructInfo), (ours, theirs)
            assert ours.ndim == theirs.ndim, (ours, theirs)
            return None
        assert isinstance(theirs, relax.TensorType), theirs
        assert isinstance(ours, si.TensorStructInfo), ours
        assert ours.ndim == theirs.ndim, (ours, theirs)
        their_dtype = "void" if theirs.dtype is None else str(theirs.dtype)
        assert str(ours.dtype) == their_dtype, (ours, theirs)
        return None

    @staticmethod
    def _dims(ours, theirs) -> tuple[tuple | None, tuple | None]:
        if isinstance(ours, si.ShapeStructInfo):
            return ours.values, theirs.values
        return ours.shape, None if theirs.shape is None else theirs.shape.values

    def assert_same(self, ours, theirs) -> None:
        """Same kind, dtype and ndim, both shapes known or both unknown, and every
        dimension of ours proved equal to TVM's (read back with ``to_ours``)."""
        fields = self._same_kind(ours, theirs)
        if fields is not None:
            for a, b in fields:
                self.assert_same(a, b)
            return
        mine, their = self._dims(ours, theirs)
        assert (mine is None) == (their is None), (ours, theirs)
        if mine is None:
            return
        analyzer = Analyzer()
        for a, b in zip(mine, their):
            b = self.to_ours(b)
            assert analyzer.prove_equal(a, b), f"ours {expr_text(a)} vs TVM {expr_text(b)}"

    def assert_same_at(self, ours, theirs, samples=SAMPLES) -> None:
        """Same kind, dtype and ndim, both shapes known or both unknown, and every
        dimension equal at each assignment of ``samples`` to the symbolic variables
        (ours evaluated, TVM's simplified by TVM's analyzer; a dimension ours cannot
        evaluate at a point, e.g. a division by zero, is skipped there)."""
        fields = self._same_kind(ours, theirs)
        if fields is not None:
            for a, b in fields:
                self.assert_same_at(a, b, samples)
            return
        mine, their = self._dims(ours, theirs)
        assert (mine is None) == (their is None), (ours, theirs)
        if mine is None:
            return
        names = sorted({v.name for d in mine for v in P.free_vars(d)})
        for values in itertools.product(samples, repeat=len(names)):
            env = dict(zip(names, values))
            ours_env = {self.ours[n]: v for n, v in env.items()}
            for a, b in zip(mine, their):
                try:
                    value = evaluate_int(a, ours_env)
                except EvaluationError:
                    continue
                assert value == self._their_value(b, env), (ours, theirs, env)

    def _their_value(self, e, env: dict[str, int]) -> int:
        analyzer = self.sym.Analyzer()
        for name, value in env.items():
            if name in self.theirs:
                analyzer.bind(self.theirs[name], self.tirx.IntImm("int64", value))
        return int(analyzer.simplify(e))

    # -- TVM's numbers ---------------------------------------------------------------------

    def run_legalized(self, build, *arrays):
        """``build`` on parameters of the arrays' shapes and dtypes, legalized, compiled
        for the host CPU and run on the arrays: the result as NumPy values."""
        return self.run_legalized_many([(build, arrays)])[0]

    def run_legalized_many(self, cases) -> list:
        """One module with a function per ``(build, arrays)`` case, legalized and compiled
        once for the host CPU; each function's result (a tuple for a tuple) as NumPy."""
        relax = self.relax
        bb = relax.BlockBuilder()
        for i, (build, arrays) in enumerate(cases):
            params = [relax.Var(f"x{j}", relax.TensorType(a.shape, str(a.dtype)))
                      for j, a in enumerate(arrays)]
            with bb.function(f"f{i}", params):
                with bb.dataflow():
                    out = bb.emit_output(build(*params))
                bb.emit_func_output(out)
        try:
            mod = relax.transform.LegalizeOps()(bb.get())
            vm = relax.VirtualMachine(self.tvm.compile(mod, target="llvm"), self.tvm.cpu())
        except Exception as err:  # pragma: no cover - depends on the TVM build
            pytest.skip(f"TVM cannot compile for llvm here: {err}")
        results = []
        for i, (_, arrays) in enumerate(cases):
            out = vm[f"f{i}"](*(self.tvm.runtime.tensor(a) for a in arrays))
            results.append(out.numpy() if hasattr(out, "numpy") else
                           tuple(o.numpy() for o in out))
        return results


def their_dims(ty) -> tuple:
    """The constant dimensions of a TVM tensor type as ints."""
    return tuple(int(d) for d in ty.shape.values)


__all__ = ["TvmBridge", "SAMPLES", "their_dims"]
