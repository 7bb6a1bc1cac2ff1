
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "bool")) -> R.Tensor((3,), "bool"):
        c = R.const([True, False, True], "bool")
        y = R.logical_and(x, c)
        return y
