# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), a: R.Tensor((2,), dtype="int64"), b: R.Tensor((2,), dtype="int64")):
        y = R.index_tensor(x, (a, b))
        return y
