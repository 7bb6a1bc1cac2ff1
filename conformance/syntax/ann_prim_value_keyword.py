
@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim(value="n")) -> R.Prim(value="n * 3"):
        n = T.int64()
        return R.prim_value(n * 3)
