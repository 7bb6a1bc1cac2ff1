# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 32), dtype="float16")):
        y = R.nn.softmax(x)
        return y
