@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fill(x: T.Buffer((3,), "float32"), c: T.float32, out: T.Buffer((3,), "float32")):
        for i in range(3):
            out[i] = x[i] + c

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        with R.dataflow():
            a: R.Tensor((3,), "float32") = R.builtin.alloc_tensor(R.shape([3]), dtype="float32", runtime_device_index=0)
            b: R.Tensor((3,), "float32") = R.builtin.alloc_tensor(R.shape([3]), "float32", 0)
            R.output(a, b)
        cls.fill(x, R.prim_value(T.float32(1)), a)
        cls.fill(x, R.prim_value(T.float32(2)), b)
        return (a, b)
