
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> (R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        y = R.negative(x)
        return (x, y)
