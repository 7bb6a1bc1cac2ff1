# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 3), dtype="float32")):
        y: R.Tensor((2, 3), dtype="float32") = R.topk(x, k=2, axis=0, ret_type="values", largest=False)
        return y
