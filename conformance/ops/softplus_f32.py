# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7,), dtype="float32")):
        y = R.nn.softplus(x, beta=2.0, threshold=3.0)
        return y
