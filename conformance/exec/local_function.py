# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        @R.function
        def twice(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            z = R.add(y, y)
            return z

        a = twice(x)
        b = twice(a)
        return b
