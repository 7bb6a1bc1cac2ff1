@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def top2(A: T.Buffer((T.int64(2), T.int64(4)), "float32"), V: T.Buffer((T.int64(2), T.int64(2)), "float32"), I: T.Buffer((T.int64(2), T.int64(2)), "int32")):
        T.func_attr({"tirx.noalias": True})
        for r in range(T.int64(2)):
            with T.sblock("topk_cpu"):
                vr = T.axis.spatial(T.int64(2), r)
                T.reads()
                T.writes()
                T.call_packed("tvm.contrib.sort.topk", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(T.int64(4)), 0, 1, T.float32(0.0), vr * T.int64(4)), T.tvm_stack_make_array(V.data, T.tvm_stack_make_shape(T.int64(2)), 0, 1, T.float32(0.0), vr * T.int64(2)), T.tvm_stack_make_array(I.data, T.tvm_stack_make_shape(T.int64(2)), 0, 1, 0, vr * T.int64(2)), 2, 0, "both", T.bool(False))

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")):
        cls = Module
        y = R.call_tir(cls.top2, (x,), out_ty=[R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int32")])
        return y
