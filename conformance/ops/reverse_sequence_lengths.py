# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5, 2), dtype="float32"), l: R.Tensor((3,), dtype="int64")):
        y = R.reverse_sequence(x, l, seq_axis=1, batch_axis=0)
        return y
