# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        a = R.memory.view(x, dtype="int32")
        b = R.memory.view(x, shape=R.shape([2]), relative_byte_offset=8)
        c = R.memory.view(x, relative_byte_offset=R.prim_value(0))
        y = (a, b, c)
        return y
