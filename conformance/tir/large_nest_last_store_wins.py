# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(O: T.Buffer((7,), "float32")):
        for i, j in T.grid(4096, 1100):
            O[(i * 1100 + j) % 7] = T.Cast("float32", i * 1100 + j)

    @R.function
    def main():
        cls = Module
        y = R.call_tir(cls.f, (), out_ty=R.Tensor((7,), "float32"))
        return y
