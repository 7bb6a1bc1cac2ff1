# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim("int64")):
        y = R.hamming_window(k, 1, T.float64(0.54), T.float64(0.46), dtype="float32")
        return y
