# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")):
        y: R.Tensor((1, 1), dtype="int64") = R.argmax(x, keepdims=True)
        return y
