n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def lower_bound(edges: T.Buffer((T.int64(5),), "float32"), x: T.Buffer((n,), "float32"), out: T.Buffer((n,), "int64")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("lower_bound"):
            T.reads()
            T.writes()
            for v in T.parallel(n):
                lo = T.alloc_local((T.int64(1),), "int64")
                hi = T.alloc_local((T.int64(1),), "int64")
                lo[T.int64(0)] = T.int64(0)
                hi[T.int64(0)] = T.int64(5)
                while lo[T.int64(0)] < hi[T.int64(0)]:
                    mid: T.int64 = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))
                    if edges[mid] < x[v]:
                        lo[T.int64(0)] = mid + T.int64(1)
                    else:
                        hi[T.int64(0)] = mid
                out[v] = lo[T.int64(0)]

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), edges: R.Tensor((5,), dtype="float32")) -> R.Tensor(("n",), dtype="int64"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.lower_bound, (edges, x), out_ty=R.Tensor((n,), dtype="int64"))
        return y
