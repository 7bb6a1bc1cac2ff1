
@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)) -> R.Shape(ndim=2):
        return s
