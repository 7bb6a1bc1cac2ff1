# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((1, 2, 3), dtype="float32")):
        y = R.image.affine_grid(t, R.shape([1, 3]))
        return y
