# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y: R.Tensor((3, 7), dtype="float32") = R.nn.pad(x, pad_width=[1, 0, 2, 2], pad_mode="constant", pad_value=1.5)
        return y
