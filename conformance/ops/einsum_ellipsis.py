# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3, 4), dtype="float32"), b: R.Tensor((4, 2), dtype="float32")):
        y: R.Tensor((2, 3, 2), dtype="float32") = R.einsum((a, b), subscripts="...ij,jk->...ik")
        return y
