@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), k: T.int64) -> R.Prim("int64"):
        if c:
            p = R.prim_value(k + 1)
        else:
            p = R.prim_value(1 + k)
        q: R.Prim(value=k + 1) = p
        return q
