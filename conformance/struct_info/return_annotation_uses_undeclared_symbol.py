n = TypeVar("n")
k = TypeVar("k")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n + k,), "float32"):
        y = R.add(x, x)
        return y
