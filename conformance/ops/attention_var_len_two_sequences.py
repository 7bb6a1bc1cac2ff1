# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

t = TypeVar("t")
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, t, 2, 4), dtype="float32"), k: R.Tensor((1, 7, 1, 4), dtype="float32"), v: R.Tensor((1, 7, 1, 3), dtype="float32"), sq: R.Tensor((3,), dtype="int32"), mq: R.Tensor((), dtype="int32"), sk: R.Tensor((3,), dtype="int32"), mk: R.Tensor((), dtype="int32")):
        y = R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="BottomRight")
        return y
