# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        m = T.int64()
        with R.dataflow():
            u = R.unique(x, sorted=True)
            v = R.match_cast(u, R.Tensor((m,), "int32"))
            w = R.add(v, v)
            R.output(w)
        return w
