# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 6, 7), dtype="float32"), rois: R.Tensor((3, 4), dtype="float32")):
        y = R.vision.roi_pool(x, rois, pooled_size=2, spatial_scale=1.0)
        return y
