
@I.ir_module
class Module:
    @R.function
    def main() -> R.Shape([2, 3]):
        s = R.shape([2, 3])
        return s
