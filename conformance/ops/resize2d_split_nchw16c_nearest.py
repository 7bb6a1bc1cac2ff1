# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
c = TypeVar("c")
h = TypeVar("h")
w = TypeVar("w")
oh = TypeVar("oh")
ow = TypeVar("ow")
@I.ir_module
class Module:
    @R.function
    def main(dumb_param: R.Tensor((oh, ow), dtype="float32"), x: R.Tensor((n, c, h, w, 16), dtype="float32")):
        y = R.image.resize2d(x, R.shape([oh, ow]), layout="NCHW16c", method="nearest_neighbor", coordinate_transformation_mode="asymmetric")
        return y
