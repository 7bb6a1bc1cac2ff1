"""``R.nn`` ops that only move elements: ``batch_flatten`` and ``pixel_shuffle``
(spec/ops/nn.md "Rearrangements", SI-nn-batch_flatten-*, SI-nn-pixel_shuffle-*). Each
op's struct-info rule, NumPy semantics and lowering sit side by side; the lowerings are
one gather stage each (``reshape_stage`` for batch_flatten, as TVM lowers it to
``topi.reshape``).
"""
from __future__ import annotations

import math

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64

from .common import (
    OpRuntimeError, expr_text, i64, provably_ne, same_as, shape_product, tensor_arg,
    unknown_tensor,
)
from .manipulate_lowering import reshape_stage
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_int

FAMILY = "nn"


# -- batch_flatten -----------------------------------------------------------------------------

def deduce_batch_flatten(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-batch_flatten-1..2.

    1. A known ndim is at least 2; a 2-d tensor is returned as it is.
    2. Otherwise the result is ``(d0, d1 * d2 * ...)`` (the product folded as TVM folds
       it); without the shape, a 2-d tensor of the dtype."""
    x = tensor_arg(ctx, 0, "data")
    if x.ndim < 0:
        return unknown_tensor(x, 2)
    if x.ndim < 2:
        raise ctx.error(f"needs a tensor of at least 2 dimensions, found ndim {x.ndim}",
                        rule="SI-nn-batch_flatten-1")
    if x.ndim == 2:
        return same_as(x)
    if x.shape is None:
        return unknown_tensor(x, 2)
    return si.TensorStructInfo((x.shape[0], shape_product(x.shape[1:])), x.dtype,
                               vdevice=x.vdevice)


def _batch_flatten(attrs, x):
    """EXEC-nn-batch_flatten-1: the row-major reshape to ``(d0, d1 * d2 * ...)``."""
    if x.ndim < 2:
        raise OpRuntimeError("shape_mismatch", f"batch_flatten needs at least 2 dimensions, "
                             f"found {x.ndim}", rule="EXEC-nn-batch_flatten-1")
    return x.reshape(x.shape[0], math.prod(x.shape[1:])).copy()


def _legalize_batch_flatten(ctx):
    """TE-leg-nn-9: one ``T_reshape`` stage to the result shape."""
    x = ctx.tensor(0, "data")
    return ctx.call_te(reshape_stage(ctx, x, ctx.result_shape()), "reshape")


# -- pixel_shuffle -----------------------------------------------------------------------------

def deduce_pixel_shuffle(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-pixel_shuffle-1..3 (``r`` the upscale factor).

    1. ``r >= 1``; a known ndim is at least 3 (the last three axes are C, H, W).
    2. A channel count provably not divisible by ``r * r`` is an error (TVM's rule
       reads a constant channel count only; an unprovable one is checked at run time,
       EXEC-nn-pixel_shuffle-1).
    3. The result is ``(..., C // (r*r), H * r, W * r)``; without the shape, only the
       dtype and ndim are known."""
    x = tensor_arg(ctx, 0, "data")
    r = ctx.attr("upscale_factor")
    if r < 1:
        raise ctx.error(f"upscale_factor must be >= 1, found {r}", rule="SI-nn-pixel_shuffle-1")
    if x.ndim >= 0 and x.ndim < 3:
        raise ctx.error(f"needs a tensor of at least 3 dimensions, found ndim {x.ndim}",
                        rule="SI-nn-pixel_shuffle-1")
    if x.shape is None:
        return unknown_tensor(x, x.ndim)
    c, h, w = x.shape[-3:]
    if provably_ne(ctx, P.FloorMod(c, i64(r * r), c.dtype), 0):
        raise ctx.error(f"{expr_text(c)} channels are not divisible by upscale_factor "
                        f"squared ({r * r})", rule="SI-nn-pixel_shuffle-2")
    simplify = ctx.analyzer.simplify
    dims = (*x.shape[:-3], simplify(P.FloorDiv(c, i64(r * r), c.dtype)),
            simplify(h * r), simplify(w * r))
    return si.TensorStructInfo(dims, x.dtype, vdevice=x.vdevice)


def _pixel_shuffle(attrs, x):
    """EXEC-nn-pixel_shuffle-1: ``out[..., c, h*r + i, w*r + j] =
    x[..., c*r*r + i*r + j, h, w]``; a channel count not divisible by ``r * r`` is an
    error."""
    r = attrs.get("upscale_factor")
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise OpRuntimeError("shape_mismatch", f"pixel_shuffle with upscale_factor {r} needs "
                             f"a channel axis (-3) divisible by {r * r}, found shape "
                             f"{x.shape}", rule="EXEC-nn-pixel_shuffle-1")
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    split = x.reshape(lead + (c // (r * r), r, r, h, w))
    order = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
    return np.ascontiguousarray(np.transpose(split, order)).reshape(
        lead + (c // (r * r), h * r, w * r))


def _legalize_pixel_shuffle(ctx):
    """TE-leg-nn-9: one gather stage reading topi's index map; the op's run-time check
    (the channel count divides by ``r * r``), where not proved, is the PrimFunc's guard
    (TE-leg-nn-1), after which every read is in bounds."""
    x = ctx.tensor(0, "data")
    r = ctx.attr("upscale_factor")
    ctx.require_divides(x.shape[-3], r * r, "the channel count, split by upscale_factor squared")
    rr = i64(r)

    def formula(*idx):
        *lead, c, h, w = idx
        if r == 1:
            return x[idx]
        ci = P.Mul(c, i64(r * r), INT64) + P.Mul(P.FloorMod(h, rr, INT64), rr, INT64) + \
            P.FloorMod(w, rr, INT64)
        return x[(*lead, ci, P.FloorDiv(h, rr, INT64), P.FloorDiv(w, rr, INT64))]
    out = te.compute(ctx.result_shape(), formula, name="PixelShuffle", axis_prefix="ax")
    return ctx.call_te(out, "pixel_shuffle")


def _register_all() -> None:
    register(OpDef("relax.nn.batch_flatten", (Operand("data"),), (),
                   deduce=deduce_batch_flatten, compute=_batch_flatten, family=FAMILY,
                   spec_rule="SI-nn-batch_flatten-1", legalize=_legalize_batch_flatten))
    register(OpDef("relax.nn.pixel_shuffle", (Operand("data"),),
                   (Attr("upscale_factor", convert=to_int),),
                   deduce=deduce_pixel_shuffle, compute=_pixel_shuffle, family=FAMILY,
                   spec_rule="SI-nn-pixel_shuffle-1", legalize=_legalize_pixel_shuffle))


_register_all()
