# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(t: R.Tensor((2,), dtype="int64")) -> R.Shape(ndim=2):
        gv: R.Shape(ndim=2) = R.call_packed("vm.builtin.tensor_to_shape", t, ty_args=(R.Shape(ndim=2),))
        return gv
