# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

a = TypeVar("a")
b = TypeVar("b")
@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape([a, b])):
        return R.shape([a * b, a + b, b, a // 2])
