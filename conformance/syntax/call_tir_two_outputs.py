
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def split2(A: T.Buffer((4,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
        for i in T.serial(2):
            with T.sblock("BC"):
                vi = T.axis.spatial(2, i)
                B[vi] = A[vi]
                C[vi] = A[vi + 2] * T.float32(10)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.split2, (x,), out_ty=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
            a = t[0]
            b = t[1]
            R.output(a, b)
        return (a, b)
