# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3, 2, 4), dtype="float32"), k: R.Tensor((2, 5, 2, 4), dtype="float32"), v: R.Tensor((2, 5, 2, 3), dtype="float32")):
        y = R.nn.attention(q, k, v, scale=T.float32(0.5), causal_mask="TopLeft")
        return y
