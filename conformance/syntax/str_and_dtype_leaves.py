
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        s = R.str("tab\there \"quoted\" \u00e9")
        d = R.dtype("float32")
        t = (x, s, d)
        y = t[0]
        return y
