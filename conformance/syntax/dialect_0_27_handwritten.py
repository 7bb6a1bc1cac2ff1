# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class AddOne:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.handle, b: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)), "float32")
        B = T.match_buffer(b, (n, T.int64(4)), "float32")
        tmp = T.sblock_alloc_buffer((n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                tmp[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = tmp[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = AddOne
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), "float32"))
            z = R.add(y, x)
            R.output(z)
        return z
