n = TypeVar("n")
@I.ir_module
class Module:
