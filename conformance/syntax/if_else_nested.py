
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((), "bool"), b: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if a:
            if b:
                y1 = R.add(x, x)
            else:
                y1 = R.subtract(x, x)
            y = y1
        else:
            y = R.negative(x)
        return y
