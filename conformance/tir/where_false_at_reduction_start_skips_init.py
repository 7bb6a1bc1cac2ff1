# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
        for i, k in T.grid(3, 5):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.where(k > 0)
                with T.init():
                    B[vi] = T.float32(100)
                B[vi] = B[vi] + A[vi, vk]

    @R.function
    def main(x: R.Tensor((3, 5), "float32"), b: R.Tensor((3,), "float32")):
        cls = Module
        y = R.call_tir_inplace(cls.f, (x, b), inplace_indices=[1], out_ty=R.Tensor((3,), "float32"))
        return y
