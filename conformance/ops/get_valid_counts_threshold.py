# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 4, 6), dtype="float32")):
        y = R.vision.get_valid_counts(d, score_threshold=0.1)
        return y
