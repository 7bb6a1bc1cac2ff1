@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in T.serial(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_ty=[R.Tensor((n,), "float32"), R.Tensor((n,), "float32")])
        return y
