@I.ir_module
class Module:
    @R.function
    def main(c: R.Prim("int64"), x: R.Tensor((4,), "float32")):
        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
