# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((3, 4), "float32"):
        with R.dataflow():
            y = R.match_cast(x, R.Tensor((3, 4), "float32"))
            z = R.multiply(y, y)
            R.output(z)
        return z
