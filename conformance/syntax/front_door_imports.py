import tvm
import numpy as np
from tvm.script import ir as I, relax as rx, tirx as T
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @rx.function
    def main(x: rx.Tensor((n, 4), dtype="float32")) -> rx.Tensor((n, 4), dtype="float32"):
        cls = Module
        with rx.dataflow():
            y = rx.call_tir(cls.add_one, (x,), out_ty=rx.Tensor((n, 4), dtype="float32"))
            z: rx.Tensor((n, 4), dtype="float32") = rx.add(y, x)
            rx.output(z)
        return z

if __name__ == "__main__":
    tvm.testing.main()
