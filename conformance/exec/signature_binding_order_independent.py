# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(y: R.Tensor(("n * 2",), "float32"), x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        return (R.prim_value(n), R.add(y, y))
