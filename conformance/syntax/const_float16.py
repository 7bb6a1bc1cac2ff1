
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float16")):
        c = R.const([0.5, -1.0, 2.0], "float16")
        y = R.add(x, c)
        return y
