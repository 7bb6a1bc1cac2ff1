# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 3), dtype="float32")):
        y = R.nn.avg_pool3d(x, pool_size=[2, 3, 2], padding=[1, 1, 0, 0, 1, 1], count_include_pad=True)
        return y
