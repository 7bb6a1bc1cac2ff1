# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        t = ((x, y), (y,), x)
        u = t[0]
        v = u[1]
        w = t[1]
        z = w[0]
        s = R.add(v, z)
        return (s, t)
