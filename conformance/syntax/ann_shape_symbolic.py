
@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n", "m"])) -> R.Shape(["n", "m"]):
        return s
