# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32")):
        a = T.int64()
        b = T.int64()
        y = R.match_cast(x, R.Tensor((a, b), "float32"))
        return R.shape([a, b])
