
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(A: T.Buffer((T.int64(3), T.int64(4)), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i, k in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("sum"):
                vi = T.axis.spatial(T.int64(3), i)
                vk = T.axis.reduce(T.int64(4), k)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @R.function
    def main(x: R.Tensor((3, 4), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.row_sum, (x,), out_ty=R.Tensor((3,), "float32"))
        return y
