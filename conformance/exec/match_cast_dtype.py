# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,))):
        y = R.match_cast(x, R.Tensor((4,), "float32"))
        z = R.add(y, R.const(1.0, "float32"))
        return z
