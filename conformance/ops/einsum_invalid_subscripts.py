# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3, 4), dtype="float32")):
        y = R.einsum((a,), subscripts="ijk->i")
        return y
