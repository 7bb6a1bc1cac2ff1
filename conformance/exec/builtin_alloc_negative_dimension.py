# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        a = R.builtin.alloc_tensor(R.shape([n - 5]), R.dtype("float32"), 0)
        return R.shape_of(a)
