# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 4, 6), dtype="float32"), v: R.Tensor((1,), dtype="int32"), i: R.Tensor((1, 4), dtype="int32")):
        y = R.vision.non_max_suppression(d, v, i, iou_threshold=0.99, soft_nms_sigma=0.5, score_threshold=0.1)
        return y
