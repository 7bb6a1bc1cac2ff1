
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "int32")) -> R.Tuple(R.Tensor((3,), "int32"), R.Tuple(R.Tensor((2,), "float32"), R.Shape([2]))):
        t = (x, (y, R.shape([2])))
        u = t[1]
        v = u[0]
        w = (v, (t[0], u[1]))
        return w
