# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)):
        a = T.int64()
        b = T.int64()
        t = R.match_cast(s, R.Shape([a, b]))
        return (R.prim_value(a * b), R.shape([b, a, a + b]))
