# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float16"), y: R.Tensor((2, 2), dtype="float16")):
        r = (R.sum(x), R.prod(y, axis=[0, 1]))
        return r
