# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y = R.call_py_func("my_fn", (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
        return y
