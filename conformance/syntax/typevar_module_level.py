
m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tensor((m, n), dtype="float32"):
        y: R.Tensor((m, n), dtype="float32") = R.permute_dims(x, axes=[1, 0])
        return y
