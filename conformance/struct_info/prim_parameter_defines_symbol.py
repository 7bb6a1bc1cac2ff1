@I.ir_module
class Module:
    @R.function
    def main(k: T.int64) -> R.Tensor(("k",), "float32"):
        z: R.Tensor((k,), "float32") = R.zeros(R.shape([k]), "float32")
        o: R.Tensor((k,), "float32") = R.ones(R.shape([k]), "float32")
        y: R.Tensor((k,), "float32") = R.add(z, o)
        return y
