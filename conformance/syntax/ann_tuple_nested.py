
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tuple(R.Tensor((), "int32"), R.Shape([3])))) -> R.Tuple(R.Tuple(R.Shape([3]), R.Tensor((), "int32")), R.Tensor((2,), "float32")):
        inner = t[1]
        a = inner[1]
        b = inner[0]
        c = t[0]
        return ((a, b), c)
