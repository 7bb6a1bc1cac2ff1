# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

# a comment between the imports and the module


@I.ir_module
class Module:
    """The class docstring."""

    # a comment in the class body
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        """A PrimFunc docstring."""
        # with T.sblock("root"):
        for i in T.serial(4):  # trailing comment
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                # a comment inside a block
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module  # the module alias
        # R.add(x, x) in a comment is not code
        y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), "float32"))
        return y  # the result
