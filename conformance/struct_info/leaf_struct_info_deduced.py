@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        c: R.Tensor((2,), "float32") = R.const([1.0, 2.0], "float32")
        d: R.Tensor((), "int32") = R.const(3)
        s: R.Shape([2, 3]) = R.shape([2, 3])
        p: R.Prim("int64") = R.prim_value(5)
        o: R.Object = R.str("text")
        t: R.Tuple(R.Tensor((2,), "float32"), R.Shape([2, 3])) = (c, s)
        y: R.Tensor((2,), "float32") = R.add(x, c)
        return (y, d, t, p)
