# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main():
        y = R.eye(-2, 3, 0, dtype="float32")
        return y
