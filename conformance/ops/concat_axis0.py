# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), z: R.Tensor((1, 3), dtype="float32"), w: R.Tensor((3, 3), dtype="float32")):
        y: R.Tensor((6, 3), dtype="float32") = R.concat((x, z, w), axis=0)
        return y
