# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="int32")):
        y = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None)
        return y
