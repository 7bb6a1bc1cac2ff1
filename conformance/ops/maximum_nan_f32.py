# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), z: R.Tensor((4,), dtype="float32")):
        a = R.maximum(x, z)
        b = R.minimum(x, z)
        c = R.clip(x, R.prim_value(T.float32(0)), R.prim_value(T.float32(1)))
        d = R.not_equal(x, z)
        return (a, b, c, d)
