# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="bfloat16"), a: R.Tensor((3,), dtype="bfloat16")):
        y = R.nn.prelu(x, a, axis=1)
        return y
