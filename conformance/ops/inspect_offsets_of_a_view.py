# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")):
        s = R.memory.alloc_storage(R.shape([64]), 0, "global", "uint8")
        v = R.memory.alloc_tensor(s, 24, R.shape([2, 3]), "float32")
        a = R.inspect.tensor_byte_offset(v)
        b = R.inspect.tensor_elem_offset(v)
        c = R.inspect.tensor_byte_offset(x)
        y = (a, b, c)
        return y
