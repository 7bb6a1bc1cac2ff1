# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32"), w: R.Tensor(dtype="int32")):
        y = R.matmul(x, w, out_dtype="float32")
        return y
