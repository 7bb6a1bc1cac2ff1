@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Object:
        if c:
            y = R.add(x, x)
        else:
            y = (x, x)
        z: R.Object = y
        return z
