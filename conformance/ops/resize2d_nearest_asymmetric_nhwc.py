# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 4, 2), dtype="int32")):
        y = R.image.resize2d(x, R.shape([6, 8]), layout="NHWC", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
        return y
