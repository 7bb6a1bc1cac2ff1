n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n * 2,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        y = R.add(x, x)
        return y
