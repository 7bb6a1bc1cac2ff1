# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")):
        y = R.nn.pad(x, pad_width=[2, 1, 0, 3], pad_mode="replicate")
        return y
