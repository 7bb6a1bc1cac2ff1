# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((2, 2, 2, 2), dtype="float32"), x: R.Tensor((2, 2, 4, 3), dtype="float32")):
        y = R.grad.max_pool2d_backward(g, x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
        return y
