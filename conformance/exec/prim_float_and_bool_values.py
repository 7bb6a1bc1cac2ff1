# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(p: R.Prim("float32"), b: R.Prim("bool"), k: T.int64):
        c = R.prim_value(k > 3)
        return (p, b, c)
