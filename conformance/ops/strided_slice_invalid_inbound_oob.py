# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        y = R.strided_slice(x, (0,), (1,), (6,), assume_inbound=True)
        return y
