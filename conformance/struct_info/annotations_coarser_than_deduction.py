@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        a: R.Tensor(ndim=2, dtype="float32") = R.add(x, x)
        b: R.Tensor(ndim=2) = R.multiply(a, x)
        c: R.Tensor = R.subtract(x, x)
        d: R.Object = R.negative(x)
        e: R.Tuple(R.Tensor(ndim=2), R.Object) = (b, c)
        return (a, b, c, d, e)
