# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), z: R.Tensor((4,), dtype="float32")):
        y = R.add(x, z)
        return y
