# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float16"), w: R.Tensor((4,), dtype="float16")):
        y = R.nn.rms_norm(x, w, axes=[-1])
        return y
