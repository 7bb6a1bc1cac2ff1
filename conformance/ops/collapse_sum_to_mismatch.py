# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 3), dtype="float32")):
        y = R.collapse_sum_to(x, R.shape([2, 3]))
        return y
