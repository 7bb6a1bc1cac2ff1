# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(Q: T.Buffer((2, 5, 16), "float32"), K: T.Buffer((2, 6, 16), "float32"), O: T.Buffer((2, 5, 6), "float32")):
        for b, i, j, k in T.grid(2, 5, 6, 16):
            with T.sblock("scores"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    O[vb, vi, vj] = T.float32(0.5)
                O[vb, vi, vj] = O[vb, vi, vj] + Q[vb, vi, vk] * K[vb, vj, vk]

    @R.function
    def main(q: R.Tensor((2, 5, 16), "float32"), k: R.Tensor((2, 6, 16), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (q, k), out_ty=R.Tensor((2, 5, 6), "float32"))
        return y
