"""Apache TVM 0.27's Relax operators, as data: every non-distributed ``relax.*`` op that
TVM registers, with how TVM's default pipeline lowers it (spec/api.md CLI-ops-1).

This is a record of TVM, kept so that ``relax-ref ops`` works without TVM installed. It
was written by running this module with TVM 0.27 importable::

    python -m relax_ref.ops.tvm_catalog > relax_ref/ops/tvm_catalog_new.py

(the output is this file with ``TVM_OPS`` regenerated; compare, then replace). The
lowering of an op is one of:

- ``"legalize"``: the op has an ``FLegalize`` attribute (TVM's LegalizeOps lowers it);
- ``"dispatch"``: TVM's DispatchSortScan or DispatchSampling lowers it before LegalizeOps
  (sort, argsort, topk, cumsum, cumprod, multinomial_from_uniform), read from
  ``python/tvm/relax/backend/dispatch_*.py``, since no op attribute says so;
- ``"packed"``: the op has an ``FCallPacked`` attribute (the VM calls a runtime
  function for it);
- ``""``: none of these (structural ops, inspection builtins the VM handles, ...).
"""
from __future__ import annotations

TVM_VERSION = "0.27"

# The ops lowered by TVM's dispatch passes (no op attribute records them).
_DISPATCHED = ("relax.argsort", "relax.cumprod", "relax.cumsum",
               "relax.multinomial_from_uniform", "relax.sort", "relax.topk")

# name -> lowering; generated (see the module docstring).
TVM_OPS: dict[str, str] = {
# BEGIN GENERATED
    'relax.abs': 'legalize',
    'relax.acos': 'legalize',
    'relax.acosh': 'legalize',
    'relax.add': 'legalize',
    'relax.arange': 'legalize',
    'relax.argmax': 'legalize',
    'relax.argmin': 'legalize',
    'relax.argsort': 'dispatch',
    'relax.asin': 'legalize',
    'relax.asinh': 'legalize',
    'relax.assert_op': 'packed',
    'relax.astype': 'legalize',
    'relax.atan': 'legalize',
    'relax.atan2': 'legalize',
    'relax.atanh': 'legalize',
    'relax.bitwise_and': 'legalize',
    'relax.bitwise_not': 'legalize',
    'relax.bitwise_or': 'legalize',
    'relax.bitwise_xor': 'legalize',
    'relax.broadcast_to': 'legalize',
    'relax.bucketize': 'legalize',
    'relax.builtin.alloc_tensor': '',
    'relax.builtin.stop_lift_params': '',
    'relax.call_builtin_with_ctx': '',
    'relax.call_dps_packed': '',
    'relax.call_inplace_packed': '',
    'relax.call_pure_packed': '',
    'relax.call_py_func': '',
    'relax.call_tir': '',
    'relax.call_tir_inplace': '',
    'relax.call_tir_with_grad': '',
    'relax.ccl.allgather': 'legalize',
    'relax.ccl.allreduce': 'legalize',
    'relax.ccl.broadcast_from_worker0': 'legalize',
    'relax.ccl.scatter_from_worker0': 'legalize',
    'relax.ceil': 'legalize',
    'relax.clip': 'legalize',
    'relax.collapse_sum_like': 'legalize',
    'relax.collapse_sum_to': 'legalize',
    'relax.concat': 'legalize',
    'relax.cos': 'legalize',
    'relax.cosh': 'legalize',
    'relax.cumprod': 'dispatch',
    'relax.cumsum': 'dispatch',
    'relax.dequantize': 'legalize',
    'relax.divide': 'legalize',
    'relax.dynamic_strided_slice': 'legalize',
    'relax.einsum': 'legalize',
    'relax.equal': 'legalize',
    'relax.erf': 'legalize',
    'relax.ewise_fma': '',
    'relax.exp': 'legalize',
    'relax.expand_dims': 'legalize',
    'relax.eye': 'legalize',
    'relax.eye_like': 'legalize',
    'relax.flatten': 'legalize',
    'relax.flip': 'legalize',
    'relax.floor': 'legalize',
    'relax.floor_divide': 'legalize',
    'relax.floor_mod': 'legalize',
    'relax.full': 'legalize',
    'relax.full_like': 'legalize',
    'relax.gather_elements': 'legalize',
    'relax.gather_nd': 'legalize',
    'relax.grad.avg_pool2d_backward': 'legalize',
    'relax.grad.end_checkpoint': 'legalize',
    'relax.grad.max_pool2d_backward': 'legalize',
    'relax.grad.nll_loss_backward': 'legalize',
    'relax.grad.no_grad': 'legalize',
    'relax.grad.start_checkpoint': 'legalize',
    'relax.grad.take_backward': 'legalize',
    'relax.greater': 'legalize',
    'relax.greater_equal': 'legalize',
    'relax.hamming_window': 'legalize',
    'relax.hint_on_device': '',
    'relax.image.affine_grid': 'legalize',
    'relax.image.grid_sample': 'legalize',
    'relax.image.resize2d': 'legalize',
    'relax.image.resize3d': 'legalize',
    'relax.index_put': 'legalize',
    'relax.index_tensor': 'legalize',
    'relax.inspect.tensor_byte_offset': 'legalize',
    'relax.inspect.tensor_dtype_bits': 'legalize',
    'relax.inspect.tensor_dtype_code': 'legalize',
    'relax.inspect.tensor_dtype_lanes': 'legalize',
    'relax.inspect.tensor_elem_offset': 'legalize',
    'relax.inspect.tensor_ndim': 'legalize',
    'relax.inspect.tensor_shape_i': 'legalize',
    'relax.inspect.tensor_stride_i': 'legalize',
    'relax.invoke_closure': '',
    'relax.invoke_pure_closure': '',
    'relax.isfinite': 'legalize',
    'relax.isinf': 'legalize',
    'relax.isnan': 'legalize',
    'relax.layout_transform': 'legalize',
    'relax.left_shift': 'legalize',
    'relax.less': 'legalize',
    'relax.less_equal': 'legalize',
    'relax.log': 'legalize',
    'relax.log_add_exp': 'legalize',
    'relax.logical_and': 'legalize',
    'relax.logical_not': 'legalize',
    'relax.logical_or': 'legalize',
    'relax.logical_xor': 'legalize',
    'relax.make_closure': '',
    'relax.matmul': 'legalize',
    'relax.max': 'legalize',
    'relax.maximum': 'legalize',
    'relax.mean': 'legalize',
    'relax.median': 'legalize',
    'relax.memory.alloc_storage': '',
    'relax.memory.alloc_tensor': '',
    'relax.memory.ensure_zero_offset': '',
    'relax.memory.kill_storage': '',
    'relax.memory.kill_tensor': '',
    'relax.memory.view': '',
    'relax.meshgrid': 'legalize',
    'relax.min': 'legalize',
    'relax.minimum': 'legalize',
    'relax.mod': 'legalize',
    'relax.multinomial_from_uniform': 'dispatch',
    'relax.multiply': 'legalize',
    'relax.negative': 'legalize',
    'relax.nn.adaptive_avg_pool1d': 'legalize',
    'relax.nn.adaptive_avg_pool2d': 'legalize',
    'relax.nn.adaptive_avg_pool3d': 'legalize',
    'relax.nn.attention': 'legalize',
    'relax.nn.attention_bias': 'legalize',
    'relax.nn.attention_var_len': 'legalize',
    'relax.nn.avg_pool1d': 'legalize',
    'relax.nn.avg_pool2d': 'legalize',
    'relax.nn.avg_pool3d': 'legalize',
    'relax.nn.batch_flatten': 'legalize',
    'relax.nn.batch_norm': 'legalize',
    'relax.nn.conv1d': 'legalize',
    'relax.nn.conv1d_transpose': 'legalize',
    'relax.nn.conv2d': 'legalize',
    'relax.nn.conv2d_transpose': 'legalize',
    'relax.nn.conv3d': 'legalize',
    'relax.nn.conv3d_transpose': 'legalize',
    'relax.nn.cross_entropy_with_logits': 'legalize',
    'relax.nn.dropout': 'legalize',
    'relax.nn.gelu': 'legalize',
    'relax.nn.gelu_tanh': 'legalize',
    'relax.nn.group_norm': 'legalize',
    'relax.nn.instance_norm': 'legalize',
    'relax.nn.layer_norm': 'legalize',
    'relax.nn.leakyrelu': 'legalize',
    'relax.nn.log_softmax': 'legalize',
    'relax.nn.max_pool1d': 'legalize',
    'relax.nn.max_pool2d': 'legalize',
    'relax.nn.max_pool3d': 'legalize',
    'relax.nn.nll_loss': 'legalize',
    'relax.nn.pad': 'legalize',
    'relax.nn.pixel_shuffle': 'legalize',
    'relax.nn.prelu': 'legalize',
    'relax.nn.relu': 'legalize',
    'relax.nn.rms_norm': 'legalize',
    'relax.nn.selu': 'legalize',
    'relax.nn.silu': 'legalize',
    'relax.nn.softmax': 'legalize',
    'relax.nn.softplus': 'legalize',
    'relax.nonzero': 'packed',
    'relax.not_equal': 'legalize',
    'relax.null_value': '',
    'relax.one_hot': 'legalize',
    'relax.ones': 'legalize',
    'relax.ones_like': 'legalize',
    'relax.outer': 'legalize',
    'relax.permute_dims': 'legalize',
    'relax.power': 'legalize',
    'relax.print': 'packed',
    'relax.prod': 'legalize',
    'relax.quantize': 'legalize',
    'relax.repeat': 'legalize',
    'relax.reshape': 'legalize',
    'relax.reverse_sequence': 'legalize',
    'relax.right_shift': 'legalize',
    'relax.round': 'legalize',
    'relax.rsqrt': 'legalize',
    'relax.scatter_elements': 'legalize',
    'relax.scatter_nd': 'legalize',
    'relax.shape_of': '',
    'relax.shape_to_tensor': 'legalize',
    'relax.sigmoid': 'legalize',
    'relax.sign': 'legalize',
    'relax.sin': 'legalize',
    'relax.sinh': 'legalize',
    'relax.size': 'legalize',
    'relax.slice_scatter': 'legalize',
    'relax.sort': 'dispatch',
    'relax.split': 'legalize',
    'relax.sqrt': 'legalize',
    'relax.square': 'legalize',
    'relax.squeeze': 'legalize',
    'relax.stack': 'legalize',
    'relax.std': 'legalize',
    'relax.strided_slice': 'legalize',
    'relax.subtract': 'legalize',
    'relax.sum': 'legalize',
    'relax.take': 'legalize',
    'relax.tan': 'legalize',
    'relax.tanh': 'legalize',
    'relax.tensor_to_shape': '',
    'relax.tile': 'legalize',
    'relax.to_vdevice': '',
    'relax.topk': 'dispatch',
    'relax.tril': 'legalize',
    'relax.triu': 'legalize',
    'relax.trunc': 'legalize',
    'relax.unique': 'packed',
    'relax.variance': 'legalize',
    'relax.vision.all_class_non_max_suppression': 'legalize',
    'relax.vision.get_valid_counts': 'legalize',
    'relax.vision.multibox_transform_loc': 'legalize',
    'relax.vision.non_max_suppression': 'legalize',
    'relax.vision.roi_align': 'legalize',
    'relax.vision.roi_pool': 'legalize',
    'relax.vm.alloc_storage': '',
    'relax.vm.alloc_tensor': '',
    'relax.vm.call_tir_dyn': '',
    'relax.vm.kill_object': '',
    'relax.where': 'legalize',
    'relax.wrap_param': '',
    'relax.zeros': 'legalize',
    'relax.zeros_like': 'legalize',
# END GENERATED
}


def tvm_lowering(name: str) -> str | None:
    """How TVM 0.27 lowers ``name`` (see the module docstring), or None when TVM 0.27
    has no op of that name."""
    return TVM_OPS.get(name)


def tvm_legalizes(name: str) -> bool:
    """Whether TVM 0.27's LegalizeOps lowers ``name`` (an ``FLegalize`` attribute)."""
    return TVM_OPS.get(name) == "legalize"


def _generate() -> str:
    """This file's text with ``TVM_OPS`` read from the installed TVM."""
    from pathlib import Path

    import tvm
    import tvm.relax.transform.legalize_ops  # noqa: F401 - registers the FLegalize attrs

    def has(op, attr: str) -> bool:
        try:
            return op.get_attr(attr) is not None
        except Exception:  # noqa: BLE001 - an attribute no op registered at all
            return False

    rows = []
    for name in sorted(tvm.ir.Op.list_op_names()):
        if not name.startswith("relax.") or name.startswith("relax.dist."):
            continue
        op = tvm.ir.Op.get(name)
        lowering = ("legalize" if has(op, "FLegalize") else
                    "dispatch" if name in _DISPATCHED else
                    "packed" if has(op, "FCallPacked") else "")
        rows.append(f"    {name!r}: {lowering!r},")
    text = Path(__file__).read_text()
    head, rest = text.split("# BEGIN GENERATED\n", 1)
    _, tail = rest.split("# END GENERATED\n", 1)
    return head + "# BEGIN GENERATED\n" + "\n".join(rows) + "\n# END GENERATED\n" + tail


if __name__ == "__main__":
    print(_generate(), end="")
