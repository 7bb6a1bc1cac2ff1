@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,)):
        if c:
            y = R.add(x, x)
        else:
            y = R.astype(x, "int32")
        z: R.Tensor((4,)) = y
        return z
