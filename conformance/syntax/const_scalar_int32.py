
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "int32")):
        c = R.const(-7, "int32")
        y = R.add(x, c)
        return y
