@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            R.print(x, format="{}")
            y = R.add(x, x)
        else:
            y = x
        return y
