# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7,), dtype="bool")):
        y = R.cumsum(x, dtype="int32")
        return y
