# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 4, 4, 4), dtype="int32")):
        y = R.nn.max_pool3d(x, pool_size=2, strides=2)
        return y
