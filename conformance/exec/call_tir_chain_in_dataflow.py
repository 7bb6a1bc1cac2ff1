# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dense(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), w: T.Buffer((T.int64(3), T.int64(4)), "float32"), y: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        for i, j, k in T.grid(T.int64(2), T.int64(4), T.int64(3)):
            with T.sblock("dense"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    y[vi, vj] = T.float32(0)
                y[vi, vj] = y[vi, vj] + x[vi, vk] * w[vk, vj]

    @T.prim_func(private=True, s_tir=True)
    def bias_relu(y: T.Buffer((T.int64(2), T.int64(4)), "float32"), b: T.Buffer((T.int64(4),), "float32"), z: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("bias_relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                z[vi, vj] = T.max(y[vi, vj] + b[vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((2, 4), "float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.dense, (x, w), out_ty=R.Tensor((2, 4), "float32"))
            gv = R.call_tir(cls.bias_relu, (lv, b), out_ty=R.Tensor((2, 4), "float32"))
            R.output(gv)
        return gv
