
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        c = R.const([[1.0, 2.0, 3.0], [-4.0, 0.5, 6.0]], "float32")
        y = R.add(x, c)
        return y
