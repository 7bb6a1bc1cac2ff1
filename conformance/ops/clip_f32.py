# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y = R.clip(x, R.prim_value(T.float32(-1.5)), R.prim_value(T.float32(2)))
        return y
