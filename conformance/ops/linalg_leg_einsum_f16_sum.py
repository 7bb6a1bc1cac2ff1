# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float16"), v: R.Tensor((3,), dtype="float16")):
        y = R.einsum((x, v), subscripts="i,i->")
        return y
