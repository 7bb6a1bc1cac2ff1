@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scratch(a: T.Buffer((8,), "float32")):
        for i in T.serial(8):
            with T.sblock("a"):
                vi = T.axis.spatial(8, i)
                t = T.sblock_alloc_buffer((1,), "float32")
                t[0] = T.float32(1)
                a[vi] = t[0]
        t[0] = T.float32(2)
