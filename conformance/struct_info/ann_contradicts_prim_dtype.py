@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        p: R.Prim("int32") = R.prim_value(1)
        return x
