# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        b = R.multiply(a, a)
        with R.dataflow():
            c = R.subtract(b, x)
            d = R.negative(c)
            R.output(d)
        return d
