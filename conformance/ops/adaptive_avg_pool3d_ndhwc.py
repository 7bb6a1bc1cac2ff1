# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 5, 4, 2), dtype="float32")):
        y = R.nn.adaptive_avg_pool3d(x, output_size=[2, 2, 3], layout="NDHWC", out_layout="NCDHW")
        return y
