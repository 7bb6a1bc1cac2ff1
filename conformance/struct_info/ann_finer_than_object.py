@I.ir_module
class Module:
    @R.function
    def main(x: R.Object):
        y: R.Tensor = x
        return y
