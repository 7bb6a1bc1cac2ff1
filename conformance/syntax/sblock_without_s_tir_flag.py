# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        tmp = T.sblock_alloc_buffer((n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(tmp[vi, vj])
                tmp[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(tmp[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = tmp[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
            z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)
            R.output(z)
        return z
