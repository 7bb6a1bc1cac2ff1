@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        y = R.permute_dims(x, axes=[1, 0])
        return y
