# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((2,), dtype="int32")):
        y = R.tensor_to_shape(t)
        return y
