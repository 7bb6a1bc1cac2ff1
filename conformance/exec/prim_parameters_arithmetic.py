# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(k: T.int64, m: T.int64):
        return (R.prim_value(k * m + 1), R.prim_value(k // m), R.prim_value(k % m), R.prim_value(k - m))
