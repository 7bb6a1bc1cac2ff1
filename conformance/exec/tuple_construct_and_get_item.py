# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
        t = (x, y)
        a = t[0]
        b = t[1]
        c = R.add(a, b)
        return (c, t)
