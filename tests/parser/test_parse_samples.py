"""Every TVMScript sample parses, and the two dialects of the fused MLP agree."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.equal import assert_structural_equal, structural_equal
from relax_ref.parser.builder import parse
from tests.conftest import SAMPLES, sample_files


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_sample_parses(path):
    mod = parse(path.read_text(), str(path))
    assert "main" in mod.functions


def test_two_dialects_parse_to_equal_modules(samples_dir):
    new = parse((samples_dir / "mlp.fused.py").read_text())
    classic = parse((samples_dir / "mlp.fused.classic.py").read_text())
    assert_structural_equal(new, classic)


def test_fused_is_not_equal_to_legalized(samples_dir):
    fused = parse((samples_dir / "mlp.fused.py").read_text())
    legalized = parse((samples_dir / "mlp.legalized.py").read_text())
    assert not structural_equal(fused, legalized)


def test_type_vars_are_per_function(samples_dir):
    mod = parse((samples_dir / "call_tir_bias_add.py").read_text())
    main = mod["main"]
    x_shape = main.params[0].struct_info.shape
    prim = mod["bias_add"]
    _, a_buf = prim.buffer_map[0]
    assert x_shape[0].name == a_buf.shape[0].name == "n"
    assert x_shape[0] is not a_buf.shape[0]


def test_string_dims_and_declarations_share_one_variable(samples_dir):
    mod = parse((samples_dir / "flatten_dynamic.src.py").read_text())
    main = mod["main"]
    n_param = main.params[0].struct_info.shape[0]
    reshape = main.body.blocks[0].bindings[1].value
    assert isinstance(reshape.args[1], rx.ShapeExpr)
    assert reshape.args[1].values[0].a is n_param
    ret_dim = main.ret_struct_info.shape[0]
    assert ret_dim.a is n_param  # "n * 4" in a string is parsed as an expression


def test_dataflow_outputs_are_plain_vars(samples_dir):
    mod = parse((samples_dir / "mlp.py").read_text())
    block = mod["main"].body.blocks[0]
    assert isinstance(block, rx.DataflowBlock)
    kinds = {b.var.name_hint: type(b.var) for b in block.bindings}
    assert kinds == {"h": rx.DataflowVar, "h1": rx.DataflowVar, "h2": rx.DataflowVar,
                     "o": rx.DataflowVar, "p": rx.Var}


def test_prim_param_defines_a_symbolic_variable(samples_dir):
    printed = parse((samples_dir / "recursion.py").read_text())
    written = parse((samples_dir / "recursion.src.py").read_text())
    for mod in (printed, written):
        k = mod["main"].params[1]
        assert isinstance(k.struct_info, si.PrimStructInfo)
        assert k.struct_info.value is not None and k.struct_info.value.name == "k"


def test_root_block_and_inferred_regions(samples_dir):
    printed = parse((samples_dir / "call_tir_reduction.py").read_text())
    written = parse((samples_dir / "call_tir_reduction.src.py").read_text())
    body = written["row_sum"].body
    assert isinstance(body, tir.SBlockRealize) and body.block.name == "root"
    assert_structural_equal(printed["row_sum"], written["row_sum"])


def test_if_binds_the_branch_variable(samples_dir):
    mod = parse((samples_dir / "if_else_call.py").read_text())
    binding = mod["main"].body.blocks[0].bindings[0]
    assert binding.var.name_hint == "y"
    assert isinstance(binding.value, rx.If)
    assert binding.value.true_branch.body.name_hint == "y_then"


def test_expression_statements_bind_underscore(samples_dir):
    mod = parse((samples_dir / "mlp.planned.py").read_text())
    names = [b.var.name_hint for b in mod["main"].body.blocks[0].bindings]
    assert names.count("_") == 3
    call = [b for b in mod["main"].body.blocks[0].bindings if b.var.name_hint == "_"][0].value
    assert isinstance(call.op, rx.GlobalVar) and call.op.name_hint == "fused_matmul_add_gelu"
