# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main():
        y = R.hamming_window(8, 1, T.float64(0.54), T.float64(0.46), dtype="float32")
        return y
