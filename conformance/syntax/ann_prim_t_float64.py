
@I.ir_module
class Module:
    @R.function
    def main(k: T.float64) -> T.float64:
        return k
