@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        t = (x, x)
        y = t[2]
        return y
