@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((1,), "bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
