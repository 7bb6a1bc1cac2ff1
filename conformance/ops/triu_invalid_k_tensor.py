# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32"), k: R.Tensor((), dtype="int64")):
        y = R.triu(x, k)
        return y
