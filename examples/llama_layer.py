# A Llama-style decoder layer with a dynamic sequence length n: RMSNorm, multi-head
# attention with rotary position embedding and a causal mask, and a SwiGLU MLP.
# hidden 512, 8 heads of 64, MLP width 1376. Written by hand in TVMScript (TVM 0.27).
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 512), dtype="float32"), cos: R.Tensor((n, 64), dtype="float32"), sin: R.Tensor((n, 64), dtype="float32"), g_attn: R.Tensor((512,), dtype="float32"), wq: R.Tensor((512, 512), dtype="float32"), wk: R.Tensor((512, 512), dtype="float32"), wv: R.Tensor((512, 512), dtype="float32"), wo: R.Tensor((512, 512), dtype="float32"), g_mlp: R.Tensor((512,), dtype="float32"), w_gate: R.Tensor((512, 1376), dtype="float32"), w_up: R.Tensor((512, 1376), dtype="float32"), w_down: R.Tensor((1376, 512), dtype="float32")) -> R.Tensor((n, 512), dtype="float32"):
        with R.dataflow():
            h = R.nn.rms_norm(x, g_attn, axes=[-1], epsilon=1.0000000000000001e-05)
            q0 = R.matmul(h, wq, out_dtype=None)
            k0 = R.matmul(h, wk, out_dtype=None)
            v0 = R.matmul(h, wv, out_dtype=None)
            q1 = R.permute_dims(R.reshape(q0, R.shape([n, 8, 64])), axes=[1, 0, 2])
            k1 = R.permute_dims(R.reshape(k0, R.shape([n, 8, 64])), axes=[1, 0, 2])
            v1 = R.permute_dims(R.reshape(v0, R.shape([n, 8, 64])), axes=[1, 0, 2])
            q_halves = R.split(q1, indices_or_sections=2, axis=-1)
            q_rot = R.concat((R.negative(q_halves[1]), q_halves[0]), axis=-1)
            q = R.add(R.multiply(q1, cos), R.multiply(q_rot, sin))
            k_halves = R.split(k1, indices_or_sections=2, axis=-1)
            k_rot = R.concat((R.negative(k_halves[1]), k_halves[0]), axis=-1)
            k = R.add(R.multiply(k1, cos), R.multiply(k_rot, sin))
            scores = R.multiply(R.matmul(q, R.permute_dims(k, axes=[0, 2, 1]), out_dtype=None), R.const(0.125, "float32"))
            mask = R.triu(R.full(R.shape([n, n]), R.const(-1000000000.0, "float32"), dtype="float32"), 1)
            probs = R.nn.softmax(R.add(scores, mask), axis=-1)
            attn = R.matmul(probs, v1, out_dtype=None)
            merged = R.reshape(R.permute_dims(attn, axes=[1, 0, 2]), R.shape([n, 512]))
            r1 = R.add(x, R.matmul(merged, wo, out_dtype=None))
            h2 = R.nn.rms_norm(r1, g_mlp, axes=[-1], epsilon=1.0000000000000001e-05)
            gate = R.nn.silu(R.matmul(h2, w_gate, out_dtype=None))
            up = R.matmul(h2, w_up, out_dtype=None)
            down = R.matmul(R.multiply(gate, up), w_down, out_dtype=None)
            out = R.add(r1, down)
            R.output(out)
        return out
