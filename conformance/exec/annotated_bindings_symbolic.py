# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        a: R.Tensor((n, 4), "float32") = R.add(x, x)
        b: R.Tensor((n, 4), "float32") = R.multiply(a, x)
        c: R.Tensor((n, 4), "float32") = R.subtract(b, x)
        d: R.Tensor(ndim=2, dtype="float32") = c
        return d
