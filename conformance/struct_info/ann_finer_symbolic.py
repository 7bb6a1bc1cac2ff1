@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), w: R.Tensor(ndim=1, dtype="float32")):
        m = T.int64()
        v = R.match_cast(w, R.Tensor((m,), "float32"))
        y: R.Tensor((m,), "float32") = R.add(x, x)
        return y
