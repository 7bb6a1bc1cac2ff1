# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
        C = T.sblock_alloc_buffer((4,))
        for i in T.serial(2):
            with T.sblock("c"):
                vi = T.axis.spatial(2, i)
                C[vi] = A[vi] * T.float32(10)
        for i in T.serial(4):
            with T.sblock("o"):
                vi = T.axis.spatial(4, i)
                O[vi] = C[vi] + A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
