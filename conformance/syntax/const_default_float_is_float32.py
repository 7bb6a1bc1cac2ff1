
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        c = R.const(0.25)
        y = R.add(x, c)
        return y
