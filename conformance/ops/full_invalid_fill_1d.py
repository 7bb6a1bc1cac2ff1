# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(v: R.Tensor((2,), dtype="float32")):
        y = R.full(R.shape([2]), v)
        return y
