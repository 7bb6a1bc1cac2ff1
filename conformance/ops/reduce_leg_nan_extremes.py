# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32")):
        y = (R.max(x, axis=[1]), R.min(x, axis=[1]), R.argmax(x, axis=1), R.argmin(x, axis=0))
        return y
