@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scratch(a: T.Buffer((8,), "float32")):
        n = T.int64()
        t = T.alloc_buffer((n,), "float32")
        for i in T.serial(8):
            with T.sblock("a"):
                vi = T.axis.spatial(8, i)
                a[vi] = T.float32(0)
