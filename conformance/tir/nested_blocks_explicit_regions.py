# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32")):
        for i in range(3):
            with T.sblock("row"):
                vi = T.axis.spatial(3, i)
                T.reads(A[vi, 0:4])
                T.writes(B[vi, 0:4])
                S = T.sblock_alloc_buffer((4,))
                for j in range(4):
                    with T.sblock("square"):
                        vi2 = T.axis.spatial(3, vi)
                        vj = T.axis.spatial(4, j)
                        T.reads(A[vi2, vj])
                        T.writes(S[vj])
                        S[vj] = A[vi2, vj] * A[vi2, vj]
                for j in range(4):
                    with T.sblock("reverse"):
                        vi2 = T.axis.spatial(3, vi)
                        vj = T.axis.spatial(4, j)
                        T.reads(S[3 - vj])
                        T.writes(B[vi2, vj])
                        B[vi2, vj] = S[3 - vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((3, 4), "float32"))
        return y
