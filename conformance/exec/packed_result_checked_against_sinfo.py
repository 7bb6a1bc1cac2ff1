# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        y = R.call_pure_packed("vm.builtin.reshape", x, R.shape([2, 6]), ty_args=R.Tensor((3, 4), "float32"))
        return y
