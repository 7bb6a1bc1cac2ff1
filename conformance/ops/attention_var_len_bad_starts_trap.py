# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 3, 1, 2), dtype="float32"), s: R.Tensor((2,), dtype="int32"), m: R.Tensor((), dtype="int32")):
        y = R.nn.attention_var_len(q, q, q, s, m)
        return y
