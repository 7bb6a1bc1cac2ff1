@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.match_cast(x, R.Tensor((4,), "int32"))
        return x
