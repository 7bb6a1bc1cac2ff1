# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main():
        y = R.arange(T.float32(0.5), T.float32(3), T.float32(0.5), dtype="float32")
        return y
