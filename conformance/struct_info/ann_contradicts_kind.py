@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y: R.Shape = R.add(x, x)
        return x
