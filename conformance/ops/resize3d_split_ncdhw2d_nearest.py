# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 2, 2, 2, 2), dtype="float32")):
        y = R.image.resize3d(x, R.shape([8, 4, 2]), layout="NCDHW2d", method="nearest_neighbor", coordinate_transformation_mode="asymmetric")
        return y
