# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32")):
        E = T.sblock_alloc_buffer((3, 4))
        M = T.sblock_alloc_buffer((3,))
        S = T.sblock_alloc_buffer((3,))
        for i, k in T.grid(3, 4):
            with T.sblock("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.min_value("float32")
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, j in T.grid(3, 4):
            with T.sblock("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = T.exp(A[vi, vj] - M[vi])
        for i, k in T.grid(3, 4):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + E[vi, vk]
        for i, j in T.grid(3, 4):
            with T.sblock("norm"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = E[vi, vj] / S[vi]

    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((3, 4), "float32"))
        return y
