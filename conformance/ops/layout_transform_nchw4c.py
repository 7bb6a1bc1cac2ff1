# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 2, 2), dtype="float32")):
        y = R.layout_transform(x, index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c % 4)), pad_value=None)
        return y
