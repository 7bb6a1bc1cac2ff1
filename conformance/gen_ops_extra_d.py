"""Conformance cases (area ``ops``) for the ops of issue 20 part D: closures
(make_closure, invoke_closure, invoke_pure_closure), memory views, builtins, devices,
and the vision ops.

Every case name starts with its op's name (less ``relax.``, dots as underscores).
Expected values come from the NumPy formulas written here, never from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, trap  # noqa: F401
from gen_ops import AREA, T_, ann, fdata, idata, module  # noqa: F401

F32 = np.float32
T23 = ann((2, 3))
HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"

_CASES: list[Case] = []


def _add(name, params, body, runs, covers, desc, sym=(), ret="y"):
    _CASES.append(Case(AREA, name, module(params, body, ret, sym), list(runs), "ok", None,
                       desc, list(covers)))


def _add_text(name, text, runs, covers, desc, expect="ok", rule=None):
    _CASES.append(Case(AREA, name, HEAD + text, list(runs), expect, rule, desc,
                       list(covers) + ([rule] if rule else [])))


def _invalid(name, params, body, rule, covers, desc, sym=()):
    _CASES.append(Case(AREA, name, module(params, body, "y", sym), [], "invalid", rule, desc,
                       list(covers) + [rule]))


# -- closures ----------------------------------------------------------------------------------

_LIFTED = f'''@I.ir_module
class Module:
    @R.function(private=True)
    def add_c(x1: {T23}, c1: {T23}, c2: {T23}) -> {T23}:
        s = R.add(x1, c1)
        t = R.multiply(s, c2)
        return t

    @R.function
    def main(x: {T23}, y: {T23}, z: {T23}) -> {T23}:
        cls = Module
        f = R.make_closure(cls.add_c, (y, z))
        r = R.INVOKE(f, (x,), ty_args=({T23},))
        return r
'''


def _closures():
    x, y, z = (fdata((2, 3), 2701 + k) for k in range(3))
    want = ((x + y) * z).astype(F32)
    for op in ("invoke_closure", "invoke_pure_closure"):
        text = _LIFTED.replace("INVOKE", op)
        if op == "invoke_closure":  # impure: main says so
            text = text.replace("@R.function\n    def main", "@R.function(pure=False)\n    def main")
        _add_text(f"{op}_captured_after_args", text,
                  [ok([T_(x), T_(y), T_(z)], [T_(want)])],
                  [f"relax.{op}", "relax.make_closure", "SI-struct-closure-2",
                   "EXEC-closure-1", "EXEC-closure-2"],
                  f"{op} passes its own arguments first, then the two captured values: "
                  "(x + y) * z")
    nested = f'''@I.ir_module
class Module:
    @R.function(private=True)
    def inner(a: {T23}, c: {T23}) -> {T23}:
        s = R.subtract(a, c)
        return s

    @R.function(private=True)
    def outer(c: {T23}) -> R.Any:
        cls = Module
        g = R.make_closure(cls.inner, (c,))
        return g

    @R.function
    def main(x: {T23}, y: {T23}) -> {T23}:
        cls = Module
        g = cls.outer(y)
        r = R.invoke_pure_closure(g, (x,), ty_args=({T23},))
        return r
'''
    _add_text("make_closure_returned", nested, [ok([T_(x), T_(y)], [T_((x - y).astype(F32))])],
              ["relax.make_closure", "relax.invoke_pure_closure", "SI-struct-closure-1"],
              "a closure made in one function and invoked in another (LambdaLift's form "
              "for a returned local function): x - y")
    _add_text("make_closure_not_global", f'''@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, y: {T23}) -> R.Any:
        f = R.make_closure(x, (y,))
        return f
''', [], ["relax.make_closure"], "the closure's function must be a module function "
         "(TVM accepts a tensor here)", expect="invalid", rule="SI-struct-closure-1")
    _add_text("invoke_pure_closure_args_not_tuple",
              _LIFTED.replace("INVOKE", "invoke_pure_closure").replace("(x,), ty_args",
                                                                       "x, ty_args"),
              [], ["relax.invoke_pure_closure"], "the arguments of an invoke are a tuple",
              expect="invalid", rule="SI-struct-closure-2")
    _add_text("invoke_closure_arity",
              _LIFTED.replace("INVOKE", "invoke_closure").replace("(x,), ty_args",
                                                                  "(x, x), ty_args")
              .replace("@R.function\n    def main", "@R.function(pure=False)\n    def main"),
              [trap([T_(x), T_(y), T_(z)], "signature")],
              ["relax.invoke_closure", "EXEC-closure-2"],
              "two arguments and two captured values for a function of three parameters: "
              "a signature error when invoked")
    _add_text("invoke_pure_closure_result_checked", _LIFTED.replace(
        "INVOKE", "invoke_pure_closure").replace(f"(x,), ty_args=({T23},)",
                                                 f"(x,), ty_args=({ann((3, 2))},)")
              .replace(f"-> {T23}:\n        cls = Module\n        f",
                       f"-> {ann((3, 2))}:\n        cls = Module\n        f"),
              [trap([T_(x), T_(y), T_(z)], "struct_info")],
              ["relax.invoke_pure_closure", "EXEC-closure-2"],
              "ty_args says (3, 2) but the closure returns (2, 3): the result check traps")


# -- builtins, devices, views --------------------------------------------------------------------

def _builtins():
    x = fdata((2, 3), 2801)
    _add("size_sym", [("x", ann(("n", 3)))], "y = R.size(x)",
         [ok([T_(x)], [T_(np.array(6, np.int64))]),
          ok([T_(x[:0])], [T_(np.array(0, np.int64))])],
         ["relax.size", "SI-builtin-size-1", "EXEC-builtin-size-1"],
         "the number of elements, at n = 2 and 0", sym=("n",))
    _invalid("size_of_shape", [("s", "R.Shape(ndim=2)")], "y = R.size(s)", "SI-op-tensor-1",
             ["relax.size"], "size of a shape (not a tensor) is rejected")
    w = fdata((3,), 2802, dtype="float16")
    _add("wrap_param_f16", [("w", ann((3,), "float16"))], 'y = R.wrap_param(w, dtype="float32")',
         [ok([T_(w)], [T_(w.astype(F32))])], ["relax.wrap_param", "SI-builtin-wrap-1",
                                              "EXEC-builtin-wrap-1"],
         "float16 parameters widened to float32 (each value exact)")
    _invalid("wrap_param_shape", [("s", "R.Shape(ndim=1)")], 'y = R.wrap_param(s, dtype="float32")',
             "SI-op-tensor-1", ["relax.wrap_param"], "wrap_param of a shape is rejected")
    for op, extra, rules in (
            ("builtin.stop_lift_params", "", ["SI-builtin-identity-1", "EXEC-builtin-identity-1"]),
            ("memory.ensure_zero_offset", "", ["SI-builtin-identity-1", "EXEC-builtin-view-2"]),
            ("to_vdevice", ', dst_vdevice="llvm:0:global"',
             ["SI-builtin-vdevice-1", "EXEC-builtin-identity-1"])):
        stem = op.split(".")[-1]
        _add(f"{stem}_values", [("x", T23)], f"y = R.{op}(x{extra})",
             [ok([T_(x)], [T_(x)])], [f"relax.{op}"] + rules, f"{op} gives x's values")
        _invalid(f"{stem}_of_tuple", [("t", f"R.Tuple({T23})")], f"y = R.{op}(t{extra})",
                 "SI-op-tensor-1", [f"relax.{op}"], f"{op} of a tuple is rejected")
    v = np.arange(6, dtype=np.float32)
    _add("view_int32_bytes", [("x", ann((6,)))],
         'y = R.memory.view(x, R.shape([2, 2]), R.dtype("int32"), 8)',
         [ok([T_(v)], [T_(v[2:6].view(np.int32).reshape(2, 2))])],
         ["relax.memory.view", "SI-builtin-view-1", "EXEC-builtin-view-1"],
         "the bytes 8..24 of six float32 values read as a 2x2 int32 tensor")
    _invalid("view_out_of_bounds", [("x", ann((6,)))],
             'y = R.memory.view(x, R.shape([4]), R.dtype("float32"), 12)', "SI-builtin-view-2",
             ["relax.memory.view"], "16 bytes at offset 12 of a 24-byte tensor do not fit")
    _add("view_out_of_bounds_at_run_time", [("x", ann(("n",)))],
         'y = R.memory.view(x, R.shape([4]), R.dtype("float32"), 12)',
         [trap([T_(v)], "index_out_of_bounds")], ["relax.memory.view", "EXEC-builtin-view-1"],
         "the same view of a tensor whose size is known only at run time traps", sym=("n",))
    _add("call_py_func_not_run", [("x", T23)],
         f'y = R.call_py_func("my_fn", (x,), out_ty={T23})',
         [trap([T_(x)], "unsupported")], ["relax.call_py_func", "SI-builtin-pyfunc-1",
                                          "EXEC-builtin-pyfunc-1"],
         "a Python function named by the module is not run: an unsupported error")


_DYN = """@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(x_h: T.handle, y_h: T.handle, n: T.int64):
        X = T.match_buffer(x_h, (n,), "float32")
        Y = T.match_buffer(y_h, (n,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                Y[vi] = X[vi] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0)
        _ = R.vm.call_tir_dyn(cls.add_one, (x, y, R.shape([SYM])))
        return y
"""
_T_HEAD = "# from tvm.script import tirx as T\n"


def _devices_and_dyn():
    x = fdata((2, 3), 2901)
    _add("hint_on_device_values", [("x", T23)],
         "y = R.hint_on_device(x, R.device(device_type=1, index=0), \"global\")",
         [ok([T_(x)], [T_(x)])], ["relax.hint_on_device", "SI-builtin-device-1"],
         "a placement hint gives x's values")
    _invalid("hint_on_device_not_a_device", [("x", T23)],
             "y = R.hint_on_device(x, 1)", "SI-call-1", ["relax.hint_on_device"],
             "the device must be R.device(...), not an integer")
    v = fdata((4,), 2902)
    _add_text("vm_call_tir_dyn_add_one", _T_HEAD + _DYN.replace("SYM", "n"),
              [ok([T_(v)], [T_((v + F32(1)).astype(F32))]), ok([T_(v[:0])], [T_(v[:0])])],
              ["relax.vm.call_tir_dyn", "SI-struct-dyn-1", "EXEC-dyn-1"],
              "the lowered call with a symbolic argument: y = x + 1 written in place, at "
              "n = 4 and 0")
    _add_text("vm_call_tir_dyn_wrong_extent", _T_HEAD + _DYN.replace("SYM", "n + 1"),
              [trap([T_(v)], "shape_mismatch")], ["relax.vm.call_tir_dyn", "EXEC-dyn-1"],
              "a symbolic argument n + 1 that disagrees with the buffers' extent n traps "
              "in the PrimFunc's buffer check")
    _add_text("vm_call_tir_dyn_no_shape", _T_HEAD + _DYN.replace(", R.shape([SYM])", ""),
              [], ["relax.vm.call_tir_dyn"], "the tuple must end in the shape of symbolic "
              "arguments", expect="invalid", rule="SI-struct-dyn-1")


# -- vision: roi_pool, roi_align -----------------------------------------------------------------

def _roi_pool_ref(x, rois, ph, pw, scale):
    """Max over each bin: bounds from the corners rounded half up (exact inputs)."""
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw), x.dtype)
    for i, (b, x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        sx, sy = int(np.floor(x1 * scale + 0.5)), int(np.floor(y1 * scale + 0.5))
        ex, ey = int(np.floor(x2 * scale + 0.5)), int(np.floor(y2 * scale + 0.5))
        rh, rw = max(ey - sy + 1, 1), max(ex - sx + 1, 1)
        for p in range(ph):
            h0 = min(max(int(np.floor(p * rh / ph)) + sy, 0), h)
            h1 = min(max(int(np.ceil((p + 1) * rh / ph)) + sy, 0), h)
            for q in range(pw):
                w0 = min(max(int(np.floor(q * rw / pw)) + sx, 0), w)
                w1 = min(max(int(np.ceil((q + 1) * rw / pw)) + sx, 0), w)
                if h1 > h0 and w1 > w0:
                    out[i, :, p, q] = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _bilinear_ref(img, y, x):
    c, h, w = img.shape
    if y < -1 or x < -1 or y > h or x > w:
        return np.zeros(c)
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = np.zeros(c)
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[:, yy, xx]
    return total


def _roi_align_ref(x, rois, ph, pw, scale, ratio, avg=True):
    """Grid samples of each bin, in float64 (the cases' inputs make every step exact)."""
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw), np.float64)
    for i, (b, x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        rh, rw = max((y2 - y1) * scale, 1.0), max((x2 - x1) * scale, 1.0)
        bh, bw = rh / ph, rw / pw
        for p in range(ph):
            for q in range(pw):
                pts = [_bilinear_ref(x[int(b)].astype(np.float64),
                                     y1 * scale + p * bh + (a + 0.5) * bh / ratio,
                                     x1 * scale + q * bw + (d + 0.5) * bw / ratio)
                       for a in range(ratio) for d in range(ratio)]
                out[i, :, p, q] = np.mean(pts, axis=0) if avg else np.max(pts, axis=0)
    return out.astype(x.dtype)


def _vision_roi():
    x = fdata((2, 3, 6, 7), 3001)
    rois = np.array([[0, 1, 1, 9, 8], [1, 0, 2, 4, 4], [1, 5, 5, 30, 30], [0, 7, 3, 1, 0]],
                    F32)
    data_ann, rois_ann = ann((2, 3, 6, 7)), ann(("r", 5))
    _add("roi_pool_bins", [("x", data_ann), ("rois", rois_ann)],
         "y = R.vision.roi_pool(x, rois, pooled_size=(2, 3), spatial_scale=0.5)",
         [ok([T_(x), T_(rois)], [T_(_roi_pool_ref(x, rois, 2, 3, 0.5))]),
          ok([T_(x), T_(rois[:0])], [T_(np.zeros((0, 3, 2, 3), F32))])],
         ["relax.vision.roi_pool", "SI-vision-roi-1", "EXEC-vision-roi-2"],
         "max over each bin; a roi partly outside the image is clamped, an inverted one "
         "is 1x1; at 4 rois and 0", sym=("r",))
    bad = rois.copy()
    bad[1, 0] = 2
    _add("roi_pool_batch_index_out_of_range", [("x", data_ann), ("rois", rois_ann)],
         "y = R.vision.roi_pool(x, rois, pooled_size=2, spatial_scale=0.5)",
         [trap([T_(x), T_(bad)], "index_out_of_bounds")],
         ["relax.vision.roi_pool", "EXEC-vision-roi-1"],
         "a roi naming image 2 of a batch of 2 traps (TVM's kernel reads out of bounds)",
         sym=("r",))
    _invalid("roi_pool_rois_last_dim", [("x", data_ann), ("rois", ann((3, 4)))],
             "y = R.vision.roi_pool(x, rois, pooled_size=2, spatial_scale=1.0)",
             "SI-vision-roi-1", ["relax.vision.roi_pool"], "rois of 4 columns are rejected")
    ra = np.array([[0, 0, 0, 4, 4], [1, 2, 0, 6, 4], [0, 4, 2, 8, 6]], F32)
    _add("roi_align_grid2", [("x", data_ann), ("rois", ann((3, 5)))],
         "y = R.vision.roi_align(x, rois, pooled_size=2, spatial_scale=1.0, sample_ratio=2)",
         [ok([T_(x), T_(ra)], [T_(_roi_align_ref(x, ra, 2, 2, 1.0, 2))])],
         ["relax.vision.roi_align", "SI-vision-roi-2", "EXEC-vision-roi-3"],
         "2x2 bins of 2x2 pixels, 2x2 samples each at pixel centres (every weight 1/2): the "
         "mean of the bilinear samples; the third roi reaches past the image's last column")
    _add("roi_align_max", [("x", data_ann), ("rois", ann((3, 5)))],
         "y = R.vision.roi_align(x, rois, pooled_size=2, spatial_scale=1.0, sample_ratio=2, "
         "mode=\"max\")",
         [ok([T_(x), T_(ra)], [T_(_roi_align_ref(x, ra, 2, 2, 1.0, 2, avg=False))])],
         ["relax.vision.roi_align", "EXEC-vision-roi-3"], "the maximum of the same samples")
    inv = np.array([[0, 6.5, 3.0, 1.0, 0.5]], F32)
    _add("roi_align_aligned_empty_grid", [("x", data_ann), ("rois", ann((1, 5)))],
         "y = R.vision.roi_align(x, rois, pooled_size=(2, 3), spatial_scale=0.5, "
         "aligned=True)",
         [ok([T_(x), T_(inv)], [T_(np.zeros((1, 3, 2, 3), F32))])],
         ["relax.vision.roi_align", "EXEC-vision-roi-3"],
         "aligned with an inverted roi: no sample in any bin, so 0 (TVM leaves the output "
         "unwritten)")
    _invalid("roi_align_layout", [("x", data_ann), ("rois", ann((3, 5)))],
             "y = R.vision.roi_align(x, rois, pooled_size=2, spatial_scale=1.0, "
             "layout=\"NCDHW\")", "SI-call-1", ["relax.vision.roi_align"],
             "an unknown layout is rejected")


# -- vision: get_valid_counts, non_max_suppression ----------------------------------------------------

def _vision_boxes():
    rows = np.array([[[0, 0.9, 1, 1, 3, 3], [-1, 0.8, 0, 0, 1, 1],
                      [2, 0.2, 0, 0, 2, 2], [1, 0.05, 4, 4, 5, 5]]], F32)
    keep = (rows[0, :, 1] > F32(0.1)) & (rows[0, :, 0] >= 0)
    want_out = np.full_like(rows, -1)
    want_out[0, :keep.sum()] = rows[0, keep]
    want_idx = np.full((1, 4), -1, np.int32)
    want_idx[0, :keep.sum()] = np.nonzero(keep)[0]
    _add("get_valid_counts_threshold", [("d", ann((1, 4, 6)))],
         "y = R.vision.get_valid_counts(d, score_threshold=0.1)",
         [ok([T_(rows)], [T_(np.array([keep.sum()], np.int32)), T_(want_out), T_(want_idx)])],
         ["relax.vision.get_valid_counts", "SI-vision-box-1", "EXEC-vision-box-1"],
         "scores above 0.1 with a class id >= 0 move up (rows 0 and 2); the rest are -1")
    _invalid("get_valid_counts_score_index", [("d", ann((1, 4, 6)))],
             "y = R.vision.get_valid_counts(d, score_index=6)", "SI-vision-box-1",
             ["relax.vision.get_valid_counts"], "score_index 6 of 6-element rows is rejected")
    # D, B, A, C: the sort puts A (0.9), B (0.8), C (0.7), D (0.6) in order
    a = [0, 0.9, 0, 0, 2, 2]
    b_ = [0, 0.8, 0, 0, 2, 1.9]   # IoU with A: 3.8 / 4 = 0.95
    c = [1, 0.7, 0, 0, 2, 2]      # another class
    d = [0, 0.6, 5, 5, 6, 6]      # far away
    boxes = np.array([[d, b_, a, c]], F32)
    count = np.array([4], np.int32)
    ids = np.array([[13, 11, 10, 12]], np.int32)
    params = [("d", ann((1, 4, 6))), ("v", ann((1,), "int32")), ("i", ann((1, 4), "int32"))]
    _add("non_max_suppression_per_class", params,
         "y = R.vision.non_max_suppression(d, v, i)",
         [ok([T_(boxes), T_(count), T_(ids)],
             [T_(np.array([[10, 12, 13, -1]], np.int32)), T_(np.array([[3]], np.int32))])],
         ["relax.vision.non_max_suppression", "SI-vision-box-2", "EXEC-vision-box-2"],
         "A kept, B (same class, IoU 0.95) suppressed, C (another class) and D kept: "
         "their indices in score order")
    _add("non_max_suppression_force", params,
         "y = R.vision.non_max_suppression(d, v, i, force_suppress=True, top_k=3)",
         [ok([T_(boxes), T_(count), T_(ids)],
             [T_(np.array([[10, -1, -1, -1]], np.int32)), T_(np.array([[1]], np.int32))])],
         ["relax.vision.non_max_suppression", "EXEC-vision-box-2"],
         "top_k 3 drops D; force_suppress lets A suppress B and C across classes")
    _add("non_max_suppression_valid_count_too_large", params,
         "y = R.vision.non_max_suppression(d, v, i)",
         [trap([T_(boxes), T_(np.array([5], np.int32)), T_(ids)], "index_out_of_bounds")],
         ["relax.vision.non_max_suppression", "EXEC-vision-box-2"],
         "valid_count 5 of 4 anchors traps (TVM's sort reads past the row)")
    # soft NMS: A first; B (IoU 0.95 < 0.99) decays by exp(-0.5 / 0.5 * 0.95^2) below C, D
    iou = F32(3.8) / F32(4.0)
    decayed = F32(0.8) * F32(np.exp(np.float64(F32(-1.0) * iou * iou)))
    soft = np.array([[a, c, d, b_]], F32)
    soft[0, 3, 1] = decayed
    _add("non_max_suppression_soft", params,
         "y = R.vision.non_max_suppression(d, v, i, iou_threshold=0.99, soft_nms_sigma=0.5, "
         "score_threshold=0.1)",
         [ok([T_(boxes), T_(count), T_(ids)],
             [T_(soft), T_(np.array([[10, 12, 13, 11]], np.int32)),
              T_(np.array([[4]], np.int32))], rtol=1e-6)],
         ["relax.vision.non_max_suppression", "EXEC-vision-box-3"],
         "soft NMS returns the decayed rows in the order chosen, their indices and count")
    _invalid("non_max_suppression_indices_int64",
             [("d", ann((1, 4, 6))), ("v", ann((1,), "int32")), ("i", ann((1, 4), "int64"))],
             "y = R.vision.non_max_suppression(d, v, i)", "SI-vision-box-2",
             ["relax.vision.non_max_suppression"], "indices must be int32")


# -- vision: all_class_non_max_suppression, multibox_transform_loc ---------------------------------------

def _vision_all_class():
    # two classes, three boxes: box 0 and 1 overlap (IoU 0.8), box 2 is apart
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.8], [2, 2, 3, 3]]], F32)
    scores = np.array([[[0.9, 0.8, 0.3], [0.1, 0.6, 0.7]]], F32)
    params = [("b", ann((1, 3, 4))), ("s", ann((1, 2, 3))), ("it", ann(())),
              ("st", ann(()))]
    call = ('y = R.vision.all_class_non_max_suppression(b, s, R.const(2, "int64"), it, st%s)')
    args = [T_(boxes), T_(scores), T_(np.array(0.5, F32)), T_(np.array(0.2, F32))]
    # class 0: 0 (0.9) chosen, 1 suppressed, 2 (0.3) chosen; class 1: 2 (0.7), 1 (0.6)
    rows = np.zeros((6, 3), np.int64)
    rows[:4] = [[0, 0, 0], [0, 0, 2], [0, 1, 2], [0, 1, 1]]
    _add("all_class_non_max_suppression_onnx", params, call % "",
         [ok(args, [T_(rows), T_(np.array([4], np.int64))])],
         ["relax.vision.all_class_non_max_suppression", "SI-vision-box-3",
          "EXEC-vision-box-4"],
         "per class: sorted, box 1 suppressed by box 0 in class 0 only; rows after the "
         "4 chosen are 0 (TVM trims them)")
    idx = np.zeros((1, 6, 2), np.int64)
    idx[0, :4] = [[0, 0], [0, 2], [1, 2], [1, 1]]
    sc = np.zeros((1, 6), F32)
    sc[0, :4] = [0.9, 0.3, 0.7, 0.6]
    _add("all_class_non_max_suppression_tensorflow", params,
         call % ', output_format="tensorflow"',
         [ok(args, [T_(idx), T_(sc), T_(np.array([4], np.int64))])],
         ["relax.vision.all_class_non_max_suppression", "EXEC-vision-box-4"],
         "the same choice as (class, box) pairs with their scores per batch")
    _invalid("all_class_non_max_suppression_box_count",
             [("b", ann((1, 4, 4))), ("s", ann((1, 2, 3))), ("it", ann(())),
              ("st", ann(()))], call % "", "SI-vision-box-3",
             ["relax.vision.all_class_non_max_suppression"],
             "4 boxes but scores for 3 are rejected")


def _softmax_ref(x, axis):
    e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _vision_multibox():
    cls = np.array([[[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]], F32)   # B=1, C=3, N=2
    loc = np.zeros((1, 8), F32)                                     # no offset: the anchors
    anchor = np.array([[[0.1, 0.2, 0.5, 0.6], [-0.25, 0.5, 0.75, 1.5]]], F32)
    # (ymin, xmin, ymax, xmax) = (top, left, bottom, right); clipped to [0, 1]
    want_boxes = np.array([[[0.2, 0.1, 0.6, 0.5], [0.5, 0.0, 1.0, 0.75]]], F32)
    sm = _softmax_ref(cls, 1)
    want_scores = np.where(sm >= 0.3, sm, 0).astype(F32)
    want_scores[:, 0, :] = 0
    params = [("c", ann((1, 3, 2))), ("l", ann((1, 8))), ("a", ann((1, 2, 4)))]
    _add("multibox_transform_loc_anchors", params,
         "y = R.vision.multibox_transform_loc(c, l, a, clip=True, threshold=0.3, "
         "keep_background=False)",
         [ok([T_(cls), T_(loc), T_(anchor)], [T_(want_boxes), T_(want_scores)],
             rtol=1e-6, atol=1e-7)],
         ["relax.vision.multibox_transform_loc", "SI-vision-multibox-1",
          "EXEC-vision-multibox-1"],
         "zero encodings give the anchors back as (ymin, xmin, ymax, xmax), clipped; "
         "softmax scores below 0.3 and class 0 zeroed")
    _invalid("multibox_transform_loc_loc_size",
             [("c", ann((1, 3, 2))), ("l", ann((1, 6))), ("a", ann((1, 2, 4)))],
             "y = R.vision.multibox_transform_loc(c, l, a)", "SI-vision-multibox-1",
             ["relax.vision.multibox_transform_loc"], "loc_pred of 6 for 2 anchors (needs 8)")


def cases() -> list[Case]:
    _CASES.clear()
    _closures()
    _builtins()
    _devices_and_dyn()
    _vision_roi()
    _vision_boxes()
    _vision_all_class()
    _vision_multibox()
    return list(_CASES)
