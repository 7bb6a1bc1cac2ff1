# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(w: R.Tensor((3,), dtype="float16")):
        y = R.wrap_param(w, dtype="float32")
        return y
