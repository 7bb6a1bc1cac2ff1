# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "int32")):
        c = R.const([[1, 2], [3, 4]], "int32")
        d = R.add(x, c)
        e = R.multiply(d, R.const(3, "int32"))
        return e
