
@I.ir_module
class Module:
    @R.function
    def main() -> R.Tuple(R.Prim("int64"), R.Prim("float32"), R.Prim("bool")):
        a = R.prim_value(7)
        b = R.prim_value(T.float32(0.5))
        c = R.prim_value(T.bool(True))
        return (a, b, c)
