@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def middle(A: T.Buffer((T.int64(3), T.int64(4)), "float32"), M: T.Buffer((T.int64(3),), "float32"), P: T.Buffer((T.int64(3),), "int64")):
        T.func_attr({"tirx.noalias": True})
        order = T.sblock_alloc_buffer((T.int64(3), T.int64(4)), "int64")
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(T.int64(3), T.int64(4)), 0, 2, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(order.data, T.tvm_stack_make_shape(T.int64(3), T.int64(4)), 0, 2, T.int64(0), T.int64(0)), 1, T.bool(True))
        for i in range(T.int64(3)):
            with T.sblock("pick"):
                vi = T.axis.spatial(T.int64(3), i)
                T.reads(A[vi, order[vi, T.int64(1)]], order[vi, T.int64(1)])
                T.writes(M[vi], P[vi])
                M[vi] = A[vi, order[vi, T.int64(1)]]
                P[vi] = order[vi, T.int64(1)]

    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64")):
        cls = Module
        y = R.call_tir(cls.middle, (x,), out_ty=[R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64")])
        return y
