# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 4, 8), dtype="float32"), g: R.Tensor((1, 2, 2, 3), dtype="float32")):
        y = R.image.grid_sample(x, g, layout="NHWC", align_corners=True)
        return y
