# from tvm.script import ir as I
# from tvm.script import relax as R

# from tvm.script import tirx as T
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(x_h: T.handle, y_h: T.handle, n: T.int64):
        X = T.match_buffer(x_h, (n,), "float32")
        Y = T.match_buffer(y_h, (n,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                Y[vi] = X[vi] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0)
        _ = R.vm.call_tir_dyn(cls.add_one, (x, y))
        return y
