"""A module docstring at the top of the file."""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        """A Relax function docstring
        over two lines."""
        y = R.add(x, x)
        return y
