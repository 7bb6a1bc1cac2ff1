@I.ir_module
class Module:
    @R.function(private=True)
    def uniq(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x, sorted=True)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        w = R.add(v, v)
        return w

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        cls = Module
        y: R.Tensor(ndim=1, dtype="int32") = cls.uniq(x)
        return y
