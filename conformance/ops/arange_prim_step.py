# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(s: R.Prim("int64")):
        y = R.arange(0, 6, s, dtype="int64")
        return y
