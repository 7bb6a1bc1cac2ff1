# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((1, 1, 3, 3), dtype="float32"), x: R.Tensor((1, 1, 4, 4), dtype="float32")):
        y = R.grad.avg_pool2d_backward(g, x, pool_size=(2, 2), strides=(2, 2))
        return y
