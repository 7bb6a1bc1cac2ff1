@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((2, 2), "float32")):
        y = R.concat((x, y), axis=0)
        return y
