@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")):
        n = T.int64()
        z: R.Tensor((n,), "float32") = R.add(R.multiply(x, y), R.subtract(R.exp(x), y))
        t: R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")) = (R.negative(z), R.add(z, z))
        return t
