# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((1, 4, 4), dtype="float32"), s: R.Tensor((1, 2, 3), dtype="float32"), it: R.Tensor((), dtype="float32"), st: R.Tensor((), dtype="float32")):
        y = R.vision.all_class_non_max_suppression(b, s, R.const(2, "int64"), it, st)
        return y
