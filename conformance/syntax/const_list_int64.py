
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "int64")):
        c = R.const([1, -2, 3], "int64")
        y = R.add(x, c)
        return y
