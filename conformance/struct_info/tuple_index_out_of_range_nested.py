@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        t = (x, (x,))
        u = t[1]
        y = u[1]
        return y
