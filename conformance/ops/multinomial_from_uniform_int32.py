# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((1, 3), dtype="float32"), u: R.Tensor((2, 1), dtype="float32"), i: R.Tensor((2, 1), dtype="int32")):
        y = R.multinomial_from_uniform(p, u, i, dtype="int32")
        return y
