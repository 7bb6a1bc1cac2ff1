"""``R.hint_on_device`` (spec/ops/builtins.md, SI-builtin-device-1, family "builtins"):
a hint that a tensor should live on a device, which RealizeVDevice reads; TVM 0.27 has
no lowering for it (the VM build rejects a module that still holds one)."""
from __future__ import annotations

from relax_ref.ir import relax as rx

from .builtins import FAMILY, deduce_identity, _copy
from .registry import Attr, OpDef, Operand, register, to_str


def _device(value):
    """The device attribute: ``R.device(device_type=t, index=i)`` (or ``tvm.cpu(i)``,
    which the parser reads as the same call), kept as written."""
    if isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and \
            value.op.name == "relax.device":
        return value
    raise ValueError("dst_vdevice must be R.device(device_type=..., index=...) or "
                     "tvm.<kind>(index)")


register(OpDef("relax.hint_on_device", (Operand("data"),),
               (Attr("dst_vdevice", convert=_device), Attr("memory_scope", "global", to_str)),
               deduce=deduce_identity, compute=_copy, family=FAMILY,
               spec_rule="SI-builtin-device-1", doc="a device placement hint"))
