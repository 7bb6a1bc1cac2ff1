# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 2, 3, 2, 4), dtype="float32")):
        y = R.image.resize3d(x, R.shape([3, 4, 3]), layout="NCDHW4c")
        return y
