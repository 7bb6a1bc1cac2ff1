# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32"), s: R.Tensor((2,), dtype="float32"), b: R.Prim("int64"), e: R.Prim("int64")):
        y = R.slice_scatter(x, s, b, e, 2)
        return y
