@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def shifted(A: T.Buffer((T.int64(4),), "float32"), O: T.Buffer((T.int64(4),), "int64")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(T.int64(4)), 0, 1, T.float32(0.0), T.int64(1)), T.tvm_stack_make_array(O.data, T.tvm_stack_make_shape(T.int64(4)), 0, 1, T.int64(0), T.int64(0)), 0, T.bool(True))

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="int64"):
        cls = Module
        y = R.call_tir(cls.shifted, (x,), out_ty=R.Tensor((4,), dtype="int64"))
        return y
