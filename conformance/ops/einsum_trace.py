# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 4), dtype="float32")):
        y: R.Tensor((), dtype="float32") = R.einsum((a,), subscripts="ii")
        return y
