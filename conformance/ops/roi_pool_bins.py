# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

r = TypeVar("r")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 6, 7), dtype="float32"), rois: R.Tensor((r, 5), dtype="float32")):
        y = R.vision.roi_pool(x, rois, pooled_size=(2, 3), spatial_scale=0.5)
        return y
