@I.ir_module
class Module:
    @T.prim_func(private=True)
    def first_is_positive(a: T.Buffer((3,), "float32")) -> T.bool:
        tmp = T.alloc_buffer((1,), "float32")
        tmp[0] = a[0]
        return tmp[0] > T.float32(0)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Prim("bool"):
        cls = Module
        with R.dataflow():
            p = cls.first_is_positive(x)
            R.output(p)
        return p
