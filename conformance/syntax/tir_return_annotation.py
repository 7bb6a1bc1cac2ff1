
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def affine(k: T.int32) -> T.int32:
        return k * 2 + 1

    @R.function(pure=False)
    def main(k: R.Prim("int32")) -> R.Prim("int32"):
        cls = Module
        r = cls.affine(k)
        return r
