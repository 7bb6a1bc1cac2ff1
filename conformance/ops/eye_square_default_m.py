# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main():
        y: R.Tensor((3, 3), dtype="float32") = R.eye(3, k=1)
        return y
