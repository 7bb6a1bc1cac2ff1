@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, c: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m,), "int32")
        C = T.match_buffer(c, (m,), "int32")
        for i in T.serial(m):
            with T.sblock("c"):
                vi = T.axis.spatial(m, i)
                C[vi] = A[vi] * 2

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        m = T.int64()
        cls = Module
        with R.dataflow():
            u = R.unique(x, sorted=True)
            d = R.call_tir(cls.double, (u,), out_ty=R.Tensor((m,), "int32"))
            v = R.match_cast(d, R.Tensor((m,), "int32"))
            R.output(v)
        return v
