# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="int32")):
        y: R.Tensor((6,), dtype="int32") = R.argsort(x)
        return y
