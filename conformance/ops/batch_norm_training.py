# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2, 2), dtype="float32"), g: R.Tensor((2,), dtype="float32"), b: R.Tensor((2,), dtype="float32"), mm: R.Tensor((2,), dtype="float32"), mv: R.Tensor((2,), dtype="float32")):
        y = R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.25, training=True)
        return y
