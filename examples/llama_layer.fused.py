# The decoder layer of llama_layer.py after TVM 0.27's LegalizeOps, AnnotateTIROpPattern, FuseOps
# and FuseTIR, as TVM printed it (bench/interp.py --regenerate writes it again).
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_matmul1_multiply1_full_triu_add1(q: T.Buffer((T.int64(8), n, T.int64(64)), "float32"), lv26: T.Buffer((T.int64(8), T.int64(64), n), "float32"), T_add_intermediate: T.Buffer((T.int64(8), n, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((T.int64(8), n, n))
        T_multiply_intermediate = T.sblock_alloc_buffer((T.int64(8), n, n))
        T_full_intermediate = T.sblock_alloc_buffer((n, n))
        trilu_intermediate = T.sblock_alloc_buffer((n, n))
        for i0, i1, i2, k in T.grid(T.int64(8), n, n, T.int64(64)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(q[v_i0, v_i1, v_k], lv26[v_i0, v_k, v_i2])
                T.writes(matmul_intermediate[v_i0, v_i1, v_i2])
                with T.init():
                    matmul_intermediate[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1, v_i2] = matmul_intermediate[v_i0, v_i1, v_i2] + q[v_i0, v_i1, v_k] * lv26[v_i0, v_k, v_i2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, n):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(matmul_intermediate[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate[v_ax0, v_ax1, v_ax2] = matmul_intermediate[v_ax0, v_ax1, v_ax2] * T.float32(0.125)
        for ax0, ax1 in T.grid(n, n):
            with T.sblock("T_full"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(T_full_intermediate[v_ax0, v_ax1])
                T_full_intermediate[v_ax0, v_ax1] = T.float32(-1000000000.0)
        for i0, i1 in T.grid(n, n):
            with T.sblock("trilu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_full_intermediate[v_i0, v_i1])
                T.writes(trilu_intermediate[v_i0, v_i1])
                trilu_intermediate[v_i0, v_i1] = T.Select(v_i0 < v_i1, T_full_intermediate[v_i0, v_i1], T.float32(0.0))
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, n):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1, v_ax2], trilu_intermediate[v_ax1, v_ax2])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2])
                T_add_intermediate[v_ax0, v_ax1, v_ax2] = T_multiply_intermediate[v_ax0, v_ax1, v_ax2] + trilu_intermediate[v_ax1, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul3_silu_multiply2(h2: T.Buffer((n, T.int64(512)), "float32"), w_gate: T.Buffer((T.int64(512), T.int64(1376)), "float32"), up: T.Buffer((n, T.int64(1376)), "float32"), T_multiply_intermediate_1: T.Buffer((n, T.int64(1376)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((n, T.int64(1376)))
        compute = T.sblock_alloc_buffer((n, T.int64(1376)))
        T_multiply_intermediate = T.sblock_alloc_buffer((n, T.int64(1376)))
        for i0, i1, k in T.grid(n, T.int64(1376), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(h2[v_i0, v_k], w_gate[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + h2[v_i0, v_k] * w_gate[v_k, v_i1]
        for i0, i1 in T.grid(n, T.int64(1376)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(matmul_intermediate[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.sigmoid(matmul_intermediate[v_i0, v_i1])
        for ax0, ax1 in T.grid(n, T.int64(1376)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate[v_ax0, v_ax1], compute[v_ax0, v_ax1])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1])
                T_multiply_intermediate[v_ax0, v_ax1] = matmul_intermediate[v_ax0, v_ax1] * compute[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(n, T.int64(1376)):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1], up[v_ax0, v_ax1])
                T.writes(T_multiply_intermediate_1[v_ax0, v_ax1])
                T_multiply_intermediate_1[v_ax0, v_ax1] = T_multiply_intermediate[v_ax0, v_ax1] * up[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul4_add2(lv42: T.Buffer((n, T.int64(1376)), "float32"), w_down: T.Buffer((T.int64(1376), T.int64(512)), "float32"), r1: T.Buffer((n, T.int64(512)), "float32"), T_add_intermediate: T.Buffer((n, T.int64(512)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((n, T.int64(512)))
        for i0, i1, k in T.grid(n, T.int64(512), T.int64(1376)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv42[v_i0, v_k], w_down[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + lv42[v_i0, v_k] * w_down[v_k, v_i1]
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(r1[v_ax0, v_ax1], matmul_intermediate[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = r1[v_ax0, v_ax1] + matmul_intermediate[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_add2(merged: T.Buffer((n, T.int64(512)), "float32"), wo: T.Buffer((T.int64(512), T.int64(512)), "float32"), x: T.Buffer((n, T.int64(512)), "float32"), T_add_intermediate: T.Buffer((n, T.int64(512)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((n, T.int64(512)))
        for i0, i1, k in T.grid(n, T.int64(512), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(merged[v_i0, v_k], wo[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + merged[v_i0, v_k] * wo[v_k, v_i1]
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], matmul_intermediate[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = x[v_ax0, v_ax1] + matmul_intermediate[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def fused_transpose_split_tir_negative_concatenate_multiply_multiply_add(lv4: T.Buffer((n, T.int64(8), T.int64(64)), "float32"), cos: T.Buffer((n, T.int64(64)), "float32"), sin: T.Buffer((n, T.int64(64)), "float32"), T_add_intermediate: T.Buffer((T.int64(8), n, T.int64(64)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_transpose_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_split_sections_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        T_split_sections_intermediate_1 = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        compute_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        T_concat_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_multiply_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_multiply_intermediate_1 = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv4[v_ax1, v_ax0, v_ax2])
                T.writes(T_transpose_intermediate[v_ax0, v_ax1, v_ax2])
                T_transpose_intermediate[v_ax0, v_ax1, v_ax2] = lv4[v_ax1, v_ax0, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2])
                T.writes(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2 + T.int64(32)])
                T.writes(T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2 + T.int64(32)]
        for i0, i1, i2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_split_sections_intermediate_1[v_i0, v_i1, v_i2])
                T.writes(compute_intermediate[v_i0, v_i1, v_i2])
                compute_intermediate[v_i0, v_i1, v_i2] = T_split_sections_intermediate_1[v_i0, v_i1, v_i2] * T.float32(-1.0)
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_concat"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2 - T.int64(32)], compute_intermediate[v_ax0, v_ax1, v_ax2])
                T.writes(T_concat_intermediate[v_ax0, v_ax1, v_ax2])
                T_concat_intermediate[v_ax0, v_ax1, v_ax2] = T.if_then_else(T.int64(32) <= v_ax2, T_split_sections_intermediate[v_ax0, v_ax1, v_ax2 - T.int64(32)], compute_intermediate[v_ax0, v_ax1, v_ax2])
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2], cos[v_ax1, v_ax2])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2] * cos[v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_concat_intermediate[v_ax0, v_ax1, v_ax2], sin[v_ax1, v_ax2])
                T.writes(T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2] = T_concat_intermediate[v_ax0, v_ax1, v_ax2] * sin[v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1, v_ax2], T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2])
                T_add_intermediate[v_ax0, v_ax1, v_ax2] = T_multiply_intermediate[v_ax0, v_ax1, v_ax2] + T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def fused_transpose_split_tir_negative_concatenate_multiply_multiply_add_transpose1(lv6: T.Buffer((n, T.int64(8), T.int64(64)), "float32"), cos: T.Buffer((n, T.int64(64)), "float32"), sin: T.Buffer((n, T.int64(64)), "float32"), T_transpose_intermediate_1: T.Buffer((T.int64(8), T.int64(64), n), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_transpose_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_split_sections_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        T_split_sections_intermediate_1 = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        compute_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(32)))
        T_concat_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_multiply_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_multiply_intermediate_1 = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(8), n, T.int64(64)))
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv6[v_ax1, v_ax0, v_ax2])
                T.writes(T_transpose_intermediate[v_ax0, v_ax1, v_ax2])
                T_transpose_intermediate[v_ax0, v_ax1, v_ax2] = lv6[v_ax1, v_ax0, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2])
                T.writes(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2 + T.int64(32)])
                T.writes(T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_split_sections_intermediate_1[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2 + T.int64(32)]
        for i0, i1, i2 in T.grid(T.int64(8), n, T.int64(32)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_split_sections_intermediate_1[v_i0, v_i1, v_i2])
                T.writes(compute_intermediate[v_i0, v_i1, v_i2])
                compute_intermediate[v_i0, v_i1, v_i2] = T_split_sections_intermediate_1[v_i0, v_i1, v_i2] * T.float32(-1.0)
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_concat"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_split_sections_intermediate[v_ax0, v_ax1, v_ax2 - T.int64(32)], compute_intermediate[v_ax0, v_ax1, v_ax2])
                T.writes(T_concat_intermediate[v_ax0, v_ax1, v_ax2])
                T_concat_intermediate[v_ax0, v_ax1, v_ax2] = T.if_then_else(T.int64(32) <= v_ax2, T_split_sections_intermediate[v_ax0, v_ax1, v_ax2 - T.int64(32)], compute_intermediate[v_ax0, v_ax1, v_ax2])
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_intermediate[v_ax0, v_ax1, v_ax2], cos[v_ax1, v_ax2])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate[v_ax0, v_ax1, v_ax2] = T_transpose_intermediate[v_ax0, v_ax1, v_ax2] * cos[v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_concat_intermediate[v_ax0, v_ax1, v_ax2], sin[v_ax1, v_ax2])
                T.writes(T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2] = T_concat_intermediate[v_ax0, v_ax1, v_ax2] * sin[v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1, v_ax2], T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2])
                T_add_intermediate[v_ax0, v_ax1, v_ax2] = T_multiply_intermediate[v_ax0, v_ax1, v_ax2] + T_multiply_intermediate_1[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(64), n):
            with T.sblock("T_transpose1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_add_intermediate[v_ax0, v_ax2, v_ax1])
                T.writes(T_transpose_intermediate_1[v_ax0, v_ax1, v_ax2])
                T_transpose_intermediate_1[v_ax0, v_ax1, v_ax2] = T_add_intermediate[v_ax0, v_ax2, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(h: T.Buffer((n, T.int64(512)), "float32"), wq: T.Buffer((T.int64(512), T.int64(512)), "float32"), matmul: T.Buffer((n, T.int64(512)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(n, T.int64(512), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(h[v_i0, v_k], wq[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + h[v_i0, v_k] * wq[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul2(probs: T.Buffer((T.int64(8), n, n), "float32"), v1: T.Buffer((T.int64(8), n, T.int64(64)), "float32"), matmul: T.Buffer((T.int64(8), n, T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(8), n, T.int64(64), n):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(probs[v_i0, v_i1, v_k], v1[v_i0, v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + probs[v_i0, v_i1, v_k] * v1[v_i0, v_k, v_i2]

    @T.prim_func(private=True, s_tir=True)
    def matmul3(h2: T.Buffer((n, T.int64(512)), "float32"), w_gate: T.Buffer((T.int64(512), T.int64(1376)), "float32"), matmul: T.Buffer((n, T.int64(1376)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(n, T.int64(1376), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(h2[v_i0, v_k], w_gate[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + h2[v_i0, v_k] * w_gate[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def reshape(q0: T.Buffer((n, T.int64(512)), "float32"), T_reshape: T.Buffer((n, T.int64(8), T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(n, T.int64(8), T.int64(64)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(q0[((v_ax1 * T.int64(64) + v_ax2) // T.int64(512) + v_ax0) % n, (v_ax1 * T.int64(64) + v_ax2) % T.int64(512)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
                T_reshape[v_ax0, v_ax1, v_ax2] = q0[((v_ax1 * T.int64(64) + v_ax2) // T.int64(512) + v_ax0) % n, (v_ax1 * T.int64(64) + v_ax2) % T.int64(512)]

    @T.prim_func(private=True, s_tir=True)
    def reshape1(lv34: T.Buffer((n, T.int64(8), T.int64(64)), "float32"), T_reshape: T.Buffer((n, T.int64(512)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv34[(v_ax1 // T.int64(512) + v_ax0) % n, v_ax1 % T.int64(512) // T.int64(64), v_ax1 % T.int64(64)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = lv34[(v_ax1 // T.int64(512) + v_ax0) % n, v_ax1 % T.int64(512) // T.int64(64), v_ax1 % T.int64(64)]

    @T.prim_func(private=True, s_tir=True)
    def rms_norm(x: T.Buffer((n, T.int64(512)), "float32"), g_attn: T.Buffer((T.int64(512),), "float32"), T_cast: T.Buffer((n, T.int64(512)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_cast_1 = T.sblock_alloc_buffer((n, T.int64(512)))
        T_multiply = T.sblock_alloc_buffer((n, T.int64(512)))
        T_multiply_red = T.sblock_alloc_buffer((n,))
        rsqrt = T.sblock_alloc_buffer((n,))
        T_cast_2 = T.sblock_alloc_buffer((T.int64(512),))
        T_rms_norm = T.sblock_alloc_buffer((n, T.int64(512)))
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_cast"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1])
                T.writes(T_cast_1[v_ax0, v_ax1])
                T_cast_1[v_ax0, v_ax1] = x[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_cast_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T_cast_1[v_ax0, v_ax1] * T_cast_1[v_ax0, v_ax1]
        for ax0, k1 in T.grid(n, T.int64(512)):
            with T.sblock("T_multiply_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(T_multiply[v_ax0, v_k1])
                T.writes(T_multiply_red[v_ax0])
                with T.init():
                    T_multiply_red[v_ax0] = T.float32(0.0)
                T_multiply_red[v_ax0] = T_multiply_red[v_ax0] + T_multiply[v_ax0, v_k1]
        for ax0 in range(n):
            with T.sblock("rsqrt"):
                v_ax0 = T.axis.spatial(n, ax0)
                T.reads(T_multiply_red[v_ax0])
                T.writes(rsqrt[v_ax0])
                rsqrt[v_ax0] = T.rsqrt(T_multiply_red[v_ax0] / T.float32(512.0) + T.float32(1.0000000000000001e-05))
        for ax0 in range(T.int64(512)):
            with T.sblock("T_cast_1"):
                v_ax0 = T.axis.spatial(T.int64(512), ax0)
                T.reads(g_attn[v_ax0])
                T.writes(T_cast_2[v_ax0])
                T_cast_2[v_ax0] = g_attn[v_ax0]
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_rms_norm"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rsqrt[v_ax0], T_cast_1[v_ax0, v_ax1], T_cast_2[v_ax1])
                T.writes(T_rms_norm[v_ax0, v_ax1])
                T_rms_norm[v_ax0, v_ax1] = rsqrt[v_ax0] * T_cast_1[v_ax0, v_ax1] * T_cast_2[v_ax1]
        for ax0, ax1 in T.grid(n, T.int64(512)):
            with T.sblock("T_cast_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_rms_norm[v_ax0, v_ax1])
                T.writes(T_cast[v_ax0, v_ax1])
                T_cast[v_ax0, v_ax1] = T_rms_norm[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def softmax(lv31: T.Buffer((T.int64(8), n, n), "float32"), T_softmax_norm: T.Buffer((T.int64(8), n, n), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(8), n))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(8), n, n))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(8), n))
        for i0, i1, k in T.grid(T.int64(8), n, n):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv31[v_i0, v_i1, v_k])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], lv31[v_i0, v_i1, v_k])
        for i0, i1, i2 in T.grid(T.int64(8), n, n):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(lv31[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i1])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(lv31[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i1])
        for i0, i1, k in T.grid(T.int64(8), n, n):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_i1, v_k])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0.0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_i1, v_k]
        for i0, i1, i2 in T.grid(T.int64(8), n, n):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i1])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.sblock_attr({"axis": 2})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(lv4: T.Buffer((n, T.int64(8), T.int64(64)), "float32"), T_transpose: T.Buffer((T.int64(8), n, T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(8), n, T.int64(64)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv4[v_ax1, v_ax0, v_ax2])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2])
                T_transpose[v_ax0, v_ax1, v_ax2] = lv4[v_ax1, v_ax0, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def transpose2(attn: T.Buffer((T.int64(8), n, T.int64(64)), "float32"), T_transpose: T.Buffer((n, T.int64(8), T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(n, T.int64(8), T.int64(64)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(attn[v_ax1, v_ax0, v_ax2])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2])
                T_transpose[v_ax0, v_ax1, v_ax2] = attn[v_ax1, v_ax0, v_ax2]

    @R.function
    def main(x: R.Tensor((n, 512), dtype="float32"), cos: R.Tensor((n, 64), dtype="float32"), sin: R.Tensor((n, 64), dtype="float32"), g_attn: R.Tensor((512,), dtype="float32"), wq: R.Tensor((512, 512), dtype="float32"), wk: R.Tensor((512, 512), dtype="float32"), wv: R.Tensor((512, 512), dtype="float32"), wo: R.Tensor((512, 512), dtype="float32"), g_mlp: R.Tensor((512,), dtype="float32"), w_gate: R.Tensor((512, 1376), dtype="float32"), w_up: R.Tensor((512, 1376), dtype="float32"), w_down: R.Tensor((1376, 512), dtype="float32")) -> R.Tensor((n, 512), dtype="float32"):
        cls = Module
        with R.dataflow():
            h = R.call_tir(cls.rms_norm, (x, g_attn), out_ty=R.Tensor((n, 512), dtype="float32"))
            q0 = R.call_tir(cls.matmul, (h, wq), out_ty=R.Tensor((n, 512), dtype="float32"))
            k0 = R.call_tir(cls.matmul, (h, wk), out_ty=R.Tensor((n, 512), dtype="float32"))
            v0 = R.call_tir(cls.matmul, (h, wv), out_ty=R.Tensor((n, 512), dtype="float32"))
            lv4 = R.call_tir(cls.reshape, (q0,), out_ty=R.Tensor((n, 8, 64), dtype="float32"))
            lv = R.call_tir(cls.fused_transpose_split_tir_negative_concatenate_multiply_multiply_add, (lv4, cos, sin), out_ty=R.Tensor((8, n, 64), dtype="float32"))
            lv6 = R.call_tir(cls.reshape, (k0,), out_ty=R.Tensor((n, 8, 64), dtype="float32"))
            lv1 = R.call_tir(cls.fused_transpose_split_tir_negative_concatenate_multiply_multiply_add_transpose1, (lv6, cos, sin), out_ty=R.Tensor((8, 64, n), dtype="float32"))
            lv8 = R.call_tir(cls.reshape, (v0,), out_ty=R.Tensor((n, 8, 64), dtype="float32"))
            v1 = R.call_tir(cls.transpose, (lv8,), out_ty=R.Tensor((8, n, 64), dtype="float32"))
            lv2 = R.call_tir(cls.fused_matmul1_multiply1_full_triu_add1, (lv, lv1), out_ty=R.Tensor((8, n, n), dtype="float32"))
            probs = R.call_tir(cls.softmax, (lv2,), out_ty=R.Tensor((8, n, n), dtype="float32"))
            attn = R.call_tir(cls.matmul2, (probs, v1), out_ty=R.Tensor((8, n, 64), dtype="float32"))
            lv34 = R.call_tir(cls.transpose2, (attn,), out_ty=R.Tensor((n, 8, 64), dtype="float32"))
            merged = R.call_tir(cls.reshape1, (lv34,), out_ty=R.Tensor((n, 512), dtype="float32"))
            lv3 = R.call_tir(cls.fused_matmul_add2, (merged, wo, x), out_ty=R.Tensor((n, 512), dtype="float32"))
            h2 = R.call_tir(cls.rms_norm, (lv3, g_mlp), out_ty=R.Tensor((n, 512), dtype="float32"))
            up = R.call_tir(cls.matmul3, (h2, w_up), out_ty=R.Tensor((n, 1376), dtype="float32"))
            lv4_1 = R.call_tir(cls.fused_matmul3_silu_multiply2, (h2, w_gate, up), out_ty=R.Tensor((n, 1376), dtype="float32"))
            gv = R.call_tir(cls.fused_matmul4_add2, (lv4_1, w_down, lv3), out_ty=R.Tensor((n, 512), dtype="float32"))
            R.output(gv)
        return gv