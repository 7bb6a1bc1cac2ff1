# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), dtype="int32")):
        y = R.stack((a,), axis=-1)
        return y
