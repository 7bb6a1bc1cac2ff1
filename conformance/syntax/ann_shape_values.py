
@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape([2, 3])) -> R.Shape([2, 3]):
        return s
