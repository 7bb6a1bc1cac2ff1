# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((1,), "float32"), I: T.Buffer((2,), "int32"), J: T.Buffer((2,), "int8"), U: T.Buffer((2,), "uint8"), F: T.Buffer((2,), "float32"), H: T.Buffer((2,), "int64")):
        I[0] = T.max_value("int32")
        I[1] = T.min_value("int32")
        J[0] = T.max_value("int8")
        J[1] = T.min_value("int8")
        U[0] = T.max_value("uint8")
        U[1] = T.min_value("uint8")
        F[0] = T.max_value("float32") + A[0] * T.float32(0)
        F[1] = T.min_value("float32")
        H[0] = T.max_value("int64")
        H[1] = T.min_value("int64")

    @R.function
    def main(x: R.Tensor((1,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=[R.Tensor((2,), "int32"), R.Tensor((2,), "int8"), R.Tensor((2,), "uint8"), R.Tensor((2,), "float32"), R.Tensor((2,), "int64")])
        return y
