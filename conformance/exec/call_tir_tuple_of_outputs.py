# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def split_parts(a: T.handle, f: T.handle, i: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        F = T.match_buffer(f, (n,), "float32")
        I = T.match_buffer(i, (n,), "int32")
        for j in range(n):
            I[j] = T.Cast("int32", T.floor(A[j]))
            F[j] = A[j] - T.floor(A[j])

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        t = R.call_tir(cls.split_parts, (x,), out_ty=[R.Tensor((n,), "float32"), R.Tensor((n,), "int32")])
        frac = t[0]
        whole = t[1]
        return (whole, frac)
