# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "int32")):
        t = R.call_pure_packed("vm.builtin.make_tuple", x, y, ty_args=R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "int32")))
        a = R.call_pure_packed("vm.builtin.tuple_getitem", t, R.prim_value(1), ty_args=R.Tensor((3,), "int32"))
        return (a, t)
