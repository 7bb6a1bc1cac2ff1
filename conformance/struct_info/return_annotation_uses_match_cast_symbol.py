m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor((m,), "float32"):
        m = T.int64()
        y = R.match_cast(x, R.Tensor((m,), "float32"))
        return y
