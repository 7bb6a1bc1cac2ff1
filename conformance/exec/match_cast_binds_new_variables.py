# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((n, m), "float32"))
        z = R.add(y, y)
        return (z, R.shape([m, n]), R.prim_value(n * m + 1))
