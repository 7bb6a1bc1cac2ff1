# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        R.func_attr({"relax.force_pure": True})
        a = R.builtin.alloc_tensor(R.shape([1099511627776]), R.dtype("float32"), 0)
        return x
