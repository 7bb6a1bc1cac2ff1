# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((3,), dtype="int32"), x: R.Tensor((3,), dtype="float32"), z: R.Tensor((3,), dtype="float32")):
        y = R.where(c, x, z)
        return y
