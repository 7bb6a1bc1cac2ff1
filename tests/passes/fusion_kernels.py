"""Shared by the fusion tests (FuseOps, FuseTIR): the module header, the elementwise
PrimFuncs on a 1-d buffer of any length (op_pattern 0) their modules call, and the
samples and examples lowered and annotated, ready for FuseOps."""
from __future__ import annotations

from relax_ref.errors import RelaxError
from relax_ref.parser.builder import parse
from relax_ref.passes.annotate_tir_op_pattern import annotate_tir_op_pattern
from relax_ref.passes.dispatch_sort_scan import dispatch_sort_scan
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.semantics.well_formed import check_well_formed
from tests.conftest import model_files

HEADER = """\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
"""

EXP = """
    @T.prim_func(private=True, s_tir=True)
    def exp(a: T.handle, b: T.handle):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(a, (k,))
        B = T.match_buffer(b, (k,))
        for i in range(k):
            with T.sblock("B"):
                vi = T.axis.spatial(k, i)
                B[vi] = T.exp(A[vi])
"""

DOUBLE = """
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(a, (k,))
        B = T.match_buffer(b, (k,))
        for i in range(k):
            with T.sblock("B"):
                vi = T.axis.spatial(k, i)
                B[vi] = A[vi] * T.float32(2)
"""

# adds a scalar argument
SHIFT = """
    @T.prim_func(private=True, s_tir=True)
    def shift(a: T.handle, s: T.int64, b: T.handle):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(a, (k,))
        B = T.match_buffer(b, (k,))
        for i in range(k):
            with T.sblock("B"):
                vi = T.axis.spatial(k, i)
                B[vi] = A[vi] + T.Cast("float32", s)
"""


def lowered_models() -> list[tuple[str, object]]:
    """Each well-formed sample and example, through DispatchSortScan, LegalizeOps and
    AnnotateTIROpPattern: (file name, module)."""
    out = []
    for p in model_files():
        try:
            mod = parse(p.read_text(), p.name)
            if check_well_formed(mod):
                continue
            out.append((p.name, annotate_tir_op_pattern(legalize_ops(dispatch_sort_scan(mod)))))
        except RelaxError:
            continue
    return out
