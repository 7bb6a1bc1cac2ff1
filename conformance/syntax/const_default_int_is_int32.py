
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "int32")):
        c = R.const(3)
        y = R.add(x, c)
        return y
