# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), w: R.Tensor(("n",), "float32")):
        n = T.int64()

        @R.function
        def affine(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
            z = R.multiply(y, w)
            u = R.add(z, x)
            return u

        a = affine(x)
        b = affine(a)
        return b
