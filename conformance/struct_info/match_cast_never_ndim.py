@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.match_cast(x, R.Tensor(ndim=2, dtype="float32"))
        return x
