
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), 'float32')) -> R.Tensor((2,), """float32"""):
        a = R.str('single')
        b = R.str(r"raw\n")
        c = R.str(u"unicode")
        y = R.astype(x, dtype='float32')
        return y
