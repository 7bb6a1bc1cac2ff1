"""ToNonDataflow (TVM's name): every dataflow block becomes an ordinary binding block and
every DataflowVar an ordinary Var (spec/passes.md, PASS-to-non-df-*).

Contract:
- PASS-to-non-df-1: in every Relax function of the module (nested functions and ``if``
  branches included) each ``DataflowBlock`` becomes a ``BindingBlock`` holding the same
  bindings in the same order, and each ``DataflowVar`` a ``Var`` of the same name and
  struct info. The blocks of each SeqExpr, all ordinary now, become one block (TVM's
  block builder merges adjacent blocks of one kind, and the text cannot tell them
  apart), so the result is structurally what TVM produces.
- PASS-to-non-df-2: results are preserved exactly. An ordinary binding block may hold
  everything a dataflow block holds, and a Var may be used wherever its DataflowVar was,
  so the result is well formed whenever the input is.

``merge_adjacent_blocks`` (adjacent blocks of one kind become one) is the block
structure TVM's normalizer gives; tests compare modules after it.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.semantics.normalize import normalize

from .registry import register_pass
from .rewrite import Rewriter, finish


def merge_blocks(blocks) -> tuple[rx.BindingBlock, ...]:
    """``blocks`` with each run of adjacent blocks of one kind made one block."""
    out: list[rx.BindingBlock] = []
    for block in blocks:
        if not block.bindings:
            continue
        if out and type(out[-1]) is type(block):
            out[-1] = type(block)(out[-1].bindings + block.bindings, span=out[-1].span)
        else:
            out.append(block)
    return tuple(out)


class _MergeBlocks(Rewriter):
    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        new = super().seq(s)
        blocks = merge_blocks(new.blocks)
        if len(blocks) == len(new.blocks):
            return new
        return rx.SeqExpr(blocks, new.body, new.struct_info, span=new.span)


def merge_adjacent_blocks(mod: rx.IRModule) -> rx.IRModule:
    """``mod`` (normalized) with adjacent blocks of one kind merged everywhere."""
    return finish(_MergeBlocks().module(normalize(mod)))


class _ToNonDataflow(_MergeBlocks):
    def bind_var(self, var: rx.Var) -> rx.Var:
        if isinstance(var, rx.DataflowVar):
            new = rx.Var(var.name_hint, var.struct_info, span=var.span)
            self.var_map[id(var)] = new
            return new
        return super().bind_var(var)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        new = super().block(block)
        if isinstance(new, rx.DataflowBlock):
            return rx.BindingBlock(new.bindings, span=new.span)
        return new


@register_pass("ToNonDataflow", exact=True, produces=("no dataflow blocks",))
def to_non_dataflow(mod: rx.IRModule) -> rx.IRModule:
    """Turn dataflow blocks into binding blocks and DataflowVars into Vars."""
    return finish(_ToNonDataflow().module(normalize(mod)))
