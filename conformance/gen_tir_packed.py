"""Conformance cases of the `tir` area for packed calls in TIR (spec/tir_semantics.md
EXEC-tir-packed-1 .. 5; spec/syntax.md SYN-tir-data-1, SYN-tir-packed-1): the forms
TVM's lowered sort-based kernels print, a buffer's ``A.data`` handed to
``T.call_packed("tvm.contrib.sort.*")`` through ``T.tvm_stack_make_array``. Expected
outputs come from Python's stable ``sorted`` (ties in original order, either direction)."""
from __future__ import annotations

import numpy as np

from generate import Case, ok, tensor, trap

AREA = "tir"


def _array(buf: str, dims: str, ndim: int, hint: str, offset: str = "T.int64(0)") -> str:
    return (f"T.tvm_stack_make_array({buf}.data, T.tvm_stack_make_shape({dims}), 0, {ndim}, "
            f"{hint}, {offset})")


def _order(row, ascend: bool) -> list[int]:
    """Stable order of ``row``: by value (either direction), then by position."""
    return sorted(range(len(row)), key=lambda i: (row[i] if ascend else -row[i], i))


# The middle element of each row (the lower one of an even row), as TVM lowers median:
# argsort into an allocated buffer, then a gather through it.
MIDDLE = '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def middle(A: T.Buffer((T.int64(3), T.int64(4)), "float32"), M: T.Buffer((T.int64(3),), "float32"), P: T.Buffer((T.int64(3),), "int64")):
        T.func_attr({"tirx.noalias": True})
        order = T.sblock_alloc_buffer((T.int64(3), T.int64(4)), "int64")
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", %s, %s, 1, T.bool(True))
        for i in range(T.int64(3)):
            with T.sblock("pick"):
                vi = T.axis.spatial(T.int64(3), i)
                T.reads(A[vi, order[vi, T.int64(1)]], order[vi, T.int64(1)])
                T.writes(M[vi], P[vi])
                M[vi] = A[vi, order[vi, T.int64(1)]]
                P[vi] = order[vi, T.int64(1)]

    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64")):
        cls = Module
        y = R.call_tir(cls.middle, (x,), out_ty=[R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64")])
        return y
''' % (_array("A", "T.int64(3), T.int64(4)", 2, "T.float32(0.0)"),
       _array("order", "T.int64(3), T.int64(4)", 2, "T.int64(0)"))

# argsort_nms: only the first valid_count scores of each row are sorted (descending).
NMS = '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rank(S: T.Buffer((T.int64(3), T.int64(5)), "float32"), C: T.Buffer((T.int64(3),), "int32"), O: T.Buffer((T.int64(3), T.int64(5)), "int32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("argsort_nms_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort_nms", %s, %s, %s, 1, T.bool(False))

    @R.function
    def main(s: R.Tensor((3, 5), dtype="float32"), c: R.Tensor((3,), dtype="int32")) -> R.Tensor((3, 5), dtype="int32"):
        cls = Module
        y = R.call_tir(cls.rank, (s, c), out_ty=R.Tensor((3, 5), dtype="int32"))
        return y
''' % (_array("S", "T.int64(3), T.int64(5)", 2, "T.float32(0.0)"),
       _array("C", "T.int64(3)", 1, "0"), _array("O", "T.int64(3), T.int64(5)", 2, "0"))

# topk, both outputs, the largest first, along the rows.
TOPK = '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def top2(A: T.Buffer((T.int64(2), T.int64(4)), "float32"), V: T.Buffer((T.int64(2), T.int64(2)), "float32"), I: T.Buffer((T.int64(2), T.int64(2)), "int32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("topk_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.topk", %s, %s, %s, 2, 1, "both", T.bool(False))

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")):
        cls = Module
        y = R.call_tir(cls.top2, (x,), out_ty=[R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")])
        return y
''' % (_array("A", "T.int64(2), T.int64(4)", 2, "T.float32(0.0)"),
       _array("V", "T.int64(2), T.int64(2)", 2, "T.float32(0.0)"),
       _array("I", "T.int64(2), T.int64(2)", 2, "0"))

# The same, one row per block through element-offset descriptors (row r starts at
# element 4 r): TVM's sorts ignore a descriptor's offset.
TOPK_ROWS = '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def top2(A: T.Buffer((T.int64(2), T.int64(4)), "float32"), V: T.Buffer((T.int64(2), T.int64(2)), "float32"), I: T.Buffer((T.int64(2), T.int64(2)), "int32")):
        T.func_attr({"tirx.noalias": True})
        for r in range(T.int64(2)):
            with T.sblock("topk_cpu"):
                vr = T.axis.spatial(T.int64(2), r)
                T.reads()
                T.writes()
                T.call_packed("tvm.contrib.sort.topk", %s, %s, %s, 2, 0, "both", T.bool(False))

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")):
        cls = Module
        y = R.call_tir(cls.top2, (x,), out_ty=[R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")])
        return y
''' % (_array("A", "T.int64(4)", 1, "T.float32(0.0)", "vr * T.int64(4)"),
       _array("V", "T.int64(2)", 1, "T.float32(0.0)", "vr * T.int64(2)"),
       _array("I", "T.int64(2)", 1, "0", "vr * T.int64(2)"))

# A descriptor that runs one element past its buffer (offset 1, four elements of four).
OVERRUN = '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def shifted(A: T.Buffer((T.int64(4),), "float32"), O: T.Buffer((T.int64(4),), "int64")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", %s, %s, 0, T.bool(True))

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="int64"):
        cls = Module
        y = R.call_tir(cls.shifted, (x,), out_ty=R.Tensor((4,), dtype="int64"))
        return y
''' % (_array("A", "T.int64(4)", 1, "T.float32(0.0)", "T.int64(1)"),
       _array("O", "T.int64(4)", 1, "T.int64(0)"))


def _middle_case() -> Case:
    x = np.array([[3, 1, 1, 2], [5, -1, 5, 0], [0, -0.0, 0, 7]], np.float32)
    second = [_order(list(row), True)[1] for row in x.tolist()]
    nan_row = x.copy()
    nan_row[1, 2] = np.nan
    return Case(AREA, "packed_argsort_middle", MIDDLE,
                runs=[ok([tensor(x)], [tensor(x[np.arange(3), second]),
                                       tensor(np.array(second, np.int64))]),
                      trap([tensor(nan_row)], "invalid_value")],
                covers=["SYN-tir-data-1", "SYN-tir-packed-1", "EXEC-tir-packed-1",
                        "EXEC-tir-packed-2", "EXEC-tir-packed-3", "EXEC-tir-packed-4"],
                description="argsort of each row into an allocated buffer's handle (ties "
                            "in original order, -0.0 equal to 0), then the second position "
                            "gathered through it, as TVM lowers median; a NaN traps (TVM's "
                            "comparison orders none)")


def _nms_case() -> Case:
    s = np.array([[0.5, 0.9, 0.5, 0.1, 0.7], [0.3, 0.2, 0.1, 0.9, 0.8],
                  [0.4, 0.4, 0.6, 0.4, 0.2]], np.float32)
    counts = np.array([4, 0, -1], np.int32)
    expected = np.empty((3, 5), np.int32)
    for r, (row, c) in enumerate(zip(s.tolist(), counts.tolist())):
        k = max(c, 0)
        expected[r] = _order(row[:k], False) + list(range(k, 5))
    return Case(AREA, "packed_argsort_nms_prefix", NMS,
                runs=[ok([tensor(s), tensor(counts)], [tensor(expected)]),
                      ok([tensor(s), tensor(np.array([5, 2, 3], np.int32))],
                         [tensor(np.array([_order(s[0].tolist(), False),
                                           _order(s[1, :2].tolist(), False) + [2, 3, 4],
                                           _order(s[2, :3].tolist(), False) + [3, 4]],
                                          np.int32))]),
                      trap([tensor(s), tensor(np.array([1, 6, 0], np.int32))],
                           "index_out_of_bounds")],
                covers=["EXEC-tir-packed-3", "EXEC-tir-packed-5"],
                description="argsort_nms sorts each row's first valid_count scores "
                            "(descending, stable) and leaves the rest in place; a count of "
                            "0 or below sorts nothing; a count past the row traps (TVM "
                            "reads into the next row)")


def _topk_case() -> Case:
    x = np.array([[1, 4, 4, 2], [-1, -3, -1, 0]], np.float32)
    idx = np.array([_order(row, False)[:2] for row in x.tolist()], np.int32)
    return Case(AREA, "packed_topk_both", TOPK,
                runs=[ok([tensor(x)], [tensor(np.take_along_axis(x, idx, 1)),
                                       tensor(idx)])],
                covers=["EXEC-tir-packed-3"],
                description="topk of each row, both outputs, the largest first and ties "
                            "by position")


def _offset_case() -> Case:
    x = np.array([[1, 4, 4, 2], [-1, -3, -1, 0]], np.float32)
    return Case(AREA, "packed_offset_refused", TOPK_ROWS,
                runs=[trap([tensor(x)], "invalid_value")],
                covers=["EXEC-tir-packed-3"],
                description="topk of one row per block through element-offset descriptors "
                            "traps: TVM's sorts ignore the offset (TVM sorts the first row "
                            "twice and leaves the second unwritten)")


def _overrun_case() -> Case:
    x = np.array([2, 0, 3, 1], np.float32)
    return Case(AREA, "packed_descriptor_overrun", OVERRUN,
                runs=[trap([tensor(x)], "index_out_of_bounds")],
                covers=["EXEC-tir-packed-2"],
                description="a descriptor of four elements from offset 1 of a 4-element "
                            "buffer runs past its end: a trap, not a read of other memory")


def cases() -> list[Case]:
    return [_middle_case(), _nms_case(), _topk_case(), _offset_case(), _overrun_case()]
