@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        t = (x, x)
        u = R.match_cast(t, R.Tuple(R.Tensor, R.Tensor, R.Tensor))
        return x
