# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv0 = R.exp(x)
            lv1 = R.add(lv0, x)
            gv = R.multiply(lv1, R.const(2.0, "float32"))
            R.output(gv)
        return gv
