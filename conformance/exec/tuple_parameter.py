# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "int32"))):
        a = t[1]
        b = t[0]
        return (a, b)
