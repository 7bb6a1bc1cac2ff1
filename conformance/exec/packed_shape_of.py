# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")):
        s = R.call_pure_packed("vm.builtin.shape_of", x, ty_args=R.Shape(ndim=2))
        return s
