@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rank(S: T.Buffer((T.int64(3), T.int64(5)), "float32"), C: T.Buffer((T.int64(3),), "int32"), O: T.Buffer((T.int64(3), T.int64(5)), "int32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("argsort_nms_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort_nms", T.tvm_stack_make_array(S.data, T.tvm_stack_make_shape(T.int64(3), T.int64(5)), 0, 2, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(C.data, T.tvm_stack_make_shape(T.int64(3)), 0, 1, 0, T.int64(0)), T.tvm_stack_make_array(O.data, T.tvm_stack_make_shape(T.int64(3), T.int64(5)), 0, 2, 0, T.int64(0)), 1, T.bool(False))

    @R.function
    def main(s: R.Tensor((3, 5), dtype="float32"), c: R.Tensor((3,), dtype="int32")) -> R.Tensor((3, 5), dtype="int32"):
        cls = Module
        y = R.call_tir(cls.rank, (s, c), out_ty=R.Tensor((3, 5), dtype="int32"))
        return y
