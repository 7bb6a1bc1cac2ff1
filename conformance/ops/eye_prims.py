# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(n: R.Prim("int64"), m: R.Prim("int64"), k: R.Prim("int64")):
        y = R.eye(n, m, k, dtype="int32")
        return y
