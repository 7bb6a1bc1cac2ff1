# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float16")):
        y = R.sigmoid(x)
        z = R.exp(x)
        return (y, z)
