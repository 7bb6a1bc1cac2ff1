# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main():
        y: R.Tensor((3,), dtype="int64") = R.shape_to_tensor(R.shape([4, 0, 2]))
        return y
