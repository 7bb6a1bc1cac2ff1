# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        cls = Module
        out = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0)
        cls.scale(x, out)
        return out

    @T.prim_func(private=True, s_tir=True)
    def scale(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] * T.float32(3)
