# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape([2, 3])):
        y = R.inspect.tensor_dtype_code(s)
        return y
