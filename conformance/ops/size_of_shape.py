# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)):
        y = R.size(s)
        return y
