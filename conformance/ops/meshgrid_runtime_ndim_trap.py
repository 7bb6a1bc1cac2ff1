# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), dtype="float32"), b: R.Tensor(dtype="float32")):
        y = R.meshgrid((a, b))
        return y
