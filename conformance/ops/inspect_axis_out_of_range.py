# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), k: R.Prim("int64")):
        y = R.inspect.tensor_shape_i(x, k)
        return y
