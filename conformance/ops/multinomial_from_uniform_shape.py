# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((2, 3), dtype="float32"), u: R.Tensor((4, 2), dtype="float32"), i: R.Tensor((4, 2), dtype="int64")):
        y = R.multinomial_from_uniform(p, u, i)
        return y
