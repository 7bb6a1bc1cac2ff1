@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        return v

    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        n = T.int64()
        cls = Module
        y: R.Tensor((n,), "int32") = cls.f(x)
        return y
