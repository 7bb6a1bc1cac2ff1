
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tuple(R.Tensor((2, 1), "float32"), R.Tensor((2, 1), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")):
        a = R.sum(x, axis=[1], keepdims=True)
        b = R.sum(x, [1], True)
        c = R.nn.softmax(x, axis=-1)
        d = R.nn.softmax(x, -1)
        return (a, b, c, d)
