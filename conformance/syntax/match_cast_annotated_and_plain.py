
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        m = T.int64()
        n = T.int64()
        y: R.Tensor((m, n), "float32") = R.match_cast(x, R.Tensor((m, n), "float32"))
        z = R.match_cast(y, R.Tensor(ndim=2, dtype="float32"))
        w = R.add(y, y)
        return (w, z)
