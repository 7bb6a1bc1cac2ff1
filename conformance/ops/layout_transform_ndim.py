# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32")):
        y = R.layout_transform(x, index_map=T.index_map(lambda i: (i,)), pad_value=None)
        return y
