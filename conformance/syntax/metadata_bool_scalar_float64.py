metadata = tvm.ir.load_json("""{
  \"root\": 1,
  \"nodes\": [
    {
      \"type_key\": \"\"
    },
    {
      \"type_key\": \"Map\",
      \"keys\": [
        \"relax.expr.Constant\"
      ],
      \"data\": [
        2
      ]
    },
    {
      \"type_key\": \"Array\",
      \"data\": [
        3,
        11,
        18
      ]
    },
    {
      \"type_key\": \"relax.expr.Constant\",
      \"attrs\": {
        \"_checked_type_\": \"10\",
        \"data\": \"0\",
        \"span\": \"0\",
        \"struct_info_\": \"4\"
      }
    },
    {
      \"type_key\": \"relax.TensorStructInfo\",
      \"attrs\": {
        \"dtype\": \"bool\",
        \"ndim\": \"1\",
        \"shape\": \"5\",
        \"span\": \"0\",
        \"vdevice\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.expr.ShapeExpr\",
      \"attrs\": {
        \"_checked_type_\": \"9\",
        \"span\": \"0\",
        \"struct_info_\": \"8\",
        \"values\": \"6\"
      }
    },
    {
      \"type_key\": \"Array\",
      \"data\": [
        7
      ]
    },
    {
      \"type_key\": \"IntImm\",
      \"attrs\": {
        \"dtype\": \"int64\",
        \"span\": \"0\",
        \"value\": \"3\"
      }
    },
    {
      \"type_key\": \"relax.ShapeStructInfo\",
      \"attrs\": {
        \"ndim\": \"1\",
        \"span\": \"0\",
        \"values\": \"6\"
      }
    },
    {
      \"type_key\": \"relax.ShapeType\",
      \"attrs\": {
        \"ndim\": \"1\",
        \"span\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.DynTensorType\",
      \"attrs\": {
        \"dtype\": \"bool\",
        \"ndim\": \"1\",
        \"span\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.expr.Constant\",
      \"attrs\": {
        \"_checked_type_\": \"17\",
        \"data\": \"1\",
        \"span\": \"0\",
        \"struct_info_\": \"12\"
      }
    },
    {
      \"type_key\": \"relax.TensorStructInfo\",
      \"attrs\": {
        \"dtype\": \"int64\",
        \"ndim\": \"0\",
        \"shape\": \"13\",
        \"span\": \"0\",
        \"vdevice\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.expr.ShapeExpr\",
      \"attrs\": {
        \"_checked_type_\": \"16\",
        \"span\": \"0\",
        \"struct_info_\": \"15\",
        \"values\": \"14\"
      }
    },
    {
      \"type_key\": \"Array\",
      \"data\": []
    },
    {
      \"type_key\": \"relax.ShapeStructInfo\",
      \"attrs\": {
        \"ndim\": \"0\",
        \"span\": \"0\",
        \"values\": \"14\"
      }
    },
    {
      \"type_key\": \"relax.ShapeType\",
      \"attrs\": {
        \"ndim\": \"0\",
        \"span\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.DynTensorType\",
      \"attrs\": {
        \"dtype\": \"int64\",
        \"ndim\": \"0\",
        \"span\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.expr.Constant\",
      \"attrs\": {
        \"_checked_type_\": \"25\",
        \"data\": \"2\",
        \"span\": \"0\",
        \"struct_info_\": \"19\"
      }
    },
    {
      \"type_key\": \"relax.TensorStructInfo\",
      \"attrs\": {
        \"dtype\": \"float64\",
        \"ndim\": \"1\",
        \"shape\": \"20\",
        \"span\": \"0\",
        \"vdevice\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.expr.ShapeExpr\",
      \"attrs\": {
        \"_checked_type_\": \"24\",
        \"span\": \"0\",
        \"struct_info_\": \"23\",
        \"values\": \"21\"
      }
    },
    {
      \"type_key\": \"Array\",
      \"data\": [
        22
      ]
    },
    {
      \"type_key\": \"IntImm\",
      \"attrs\": {
        \"dtype\": \"int64\",
        \"span\": \"0\",
        \"value\": \"2\"
      }
    },
    {
      \"type_key\": \"relax.ShapeStructInfo\",
      \"attrs\": {
        \"ndim\": \"1\",
        \"span\": \"0\",
        \"values\": \"21\"
      }
    },
    {
      \"type_key\": \"relax.ShapeType\",
      \"attrs\": {
        \"ndim\": \"1\",
        \"span\": \"0\"
      }
    },
    {
      \"type_key\": \"relax.DynTensorType\",
      \"attrs\": {
        \"dtype\": \"float64\",
        \"ndim\": \"1\",
        \"span\": \"0\"
      }
    }
  ],
  \"b64ndarrays\": [
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAEBAQADAAAAAAAAAAMAAAAAAAAAAQAA\",
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAABAAQAIAAAAAAAAAPn/////////\",
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAJAAQACAAAAAAAAABAAAAAAAAAAAAAAAAAA+D8AAAAAAADQvw==\"
  ],
  \"attrs\": {
    \"tvm_version\": \"0.17.dev0\"
  }
}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((3,), dtype="bool"), k: R.Tensor((), dtype="int64")) -> R.Tuple(R.Tensor((3,), dtype="bool"), R.Tensor((), dtype="int64"), R.Tensor((2,), dtype="float64")):
        a = R.logical_or(b, metadata["relax.expr.Constant"][0])
        c = R.subtract(k, metadata["relax.expr.Constant"][1])
        d = R.multiply(metadata["relax.expr.Constant"][2], R.const(2.0, "float64"))
        return (a, c, d)
