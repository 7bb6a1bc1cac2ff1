@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        t: R.Tuple(R.Tensor, R.Tensor, R.Tensor) = R.split(x, 2)
        return x
