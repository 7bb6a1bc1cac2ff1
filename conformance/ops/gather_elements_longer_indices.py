# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), dtype="float32"), i: R.Tensor((3, 5), dtype="int64")):
        y = R.gather_elements(x, i, axis=0)
        return y
