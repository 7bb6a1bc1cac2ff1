# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 3, 2), dtype="int32")):
        y = R.nn.max_pool2d(x, pool_size=[2, 2], layout="NHWC")
        return y
