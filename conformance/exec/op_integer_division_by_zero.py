# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "int32")):
        z = R.floor_divide(x, y)
        return z
