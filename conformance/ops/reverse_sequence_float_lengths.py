# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32"), l: R.Tensor((3,), dtype="float32")):
        y = R.reverse_sequence(x, l)
        return y
