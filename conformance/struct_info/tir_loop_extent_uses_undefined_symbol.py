@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fill(a: T.Buffer((8,), "float32")):
        m = T.int32()
        for i in T.serial(m):
            a[i] = T.float32(0)
