# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(k: T.int32) -> R.Prim("int32"):
        return R.prim_value(k * k + 1)
