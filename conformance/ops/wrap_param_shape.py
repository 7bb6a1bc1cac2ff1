# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=1)):
        y = R.wrap_param(s, dtype="float32")
        return y
