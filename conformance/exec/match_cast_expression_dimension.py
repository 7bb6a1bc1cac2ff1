# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")):
        n = T.int64()
        z = R.match_cast(y, R.Tensor((n * 2,), "float32"))
        return z
