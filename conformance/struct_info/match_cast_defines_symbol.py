@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x, sorted=True)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        w: R.Tensor((m,), "int32") = R.add(v, v)
        s: R.Shape([m]) = R.shape_of(w)
        return (w, s, R.prim_value(m * 10))
