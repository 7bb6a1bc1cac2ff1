# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((1, 3, 2), dtype="float32"), l: R.Tensor((1, 8), dtype="float32"), a: R.Tensor((1, 2, 4), dtype="float32")):
        y = R.vision.multibox_transform_loc(c, l, a, clip=True, threshold=0.3, keep_background=False)
        return y
