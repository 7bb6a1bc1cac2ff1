# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main():
        y = R.zeros(R.shape([3]), dtype="int64")
        return y
