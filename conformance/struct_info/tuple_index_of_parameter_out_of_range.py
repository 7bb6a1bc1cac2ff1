@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((4,), "float32"), R.Shape([2]))):
        y = t[5]
        return y
