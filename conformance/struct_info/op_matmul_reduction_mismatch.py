@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32")):
        y = R.matmul(x, y)
        return y
