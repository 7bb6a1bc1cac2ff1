# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def twice(a: T.int64) -> T.int64:
        return a * T.int64(2) + T.int64(1)

    @R.function(pure=False)
    def main(k: T.int64):
        cls = Module
        r = cls.twice(R.prim_value(k))
        return r
