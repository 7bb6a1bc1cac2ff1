@I.ir_module
class Module:
    @T.prim_func(private=True)
    def two(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in T.serial(8):
            a[i] = T.float32(0)
        b[i] = a[0]
