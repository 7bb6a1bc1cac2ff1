# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.call_pure_packed("relax_ref.no.such.function", x, ty_args=R.Tensor((3,), "float32"))
        return y
