
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float64")):
        c = R.const([0x10, 1e2, -2.5e-1], "float64")
        y = R.add(x, c)
        return y
