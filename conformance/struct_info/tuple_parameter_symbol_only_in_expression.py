n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((n - 1,), "float32"), R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
        y = t[1]
        return y
