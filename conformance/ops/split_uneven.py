# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7,), dtype="int32")):
        s = R.split(x, indices_or_sections=3)
        return s
