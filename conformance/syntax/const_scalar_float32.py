
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = R.const(1.5, "float32")
        y = R.add(x, c)
        return y
