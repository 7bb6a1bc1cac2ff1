
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 16}, "my.list": [1, 2], "my.flag": True, "my.name": "abc"})
        y = R.multiply(x, x)
        return y
