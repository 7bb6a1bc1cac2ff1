# Ünïcödé comment: ∑ λ → 日本語
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        s = R.str("héllo wörld ✓")  # ✓ in a comment too
        y = R.add(x, x)
        z = R.multiply(y, x)
        return z
