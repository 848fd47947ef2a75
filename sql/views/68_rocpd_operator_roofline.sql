-- rocpd_operator_roofline: analytic FLOPs and bytes of PyTorch operators from the shapes the profiler
-- recorded (record_shapes: Kineto `Input Dims`, `Input type`, `Concrete Inputs`), as TraceLens's
-- perf model estimates them (docs/roofline.md), with the kernels each operator launched and the roof
-- of their device. One row per operator call that launched kernels:
--   source 'shapes: 2MNK'        aten::mm, addmm, bmm, baddbmm: 2 x B x M x N x K FLOPs,
--                                B x (MK + KN + MN) x element size bytes (as rocpd_gemm_roofline)
--   source 'shapes: conv'        aten::convolution, _convolution, conv1d/2d/3d, cudnn_convolution,
--                                miopen_convolution: 2 x N x Cout x prod(out spatial) x Cin/groups x
--                                prod(kernel spatial) FLOPs (weight [Cout, Cin/groups, k...]); bytes
--                                (input + weight + output elements) x element size; the output's
--                                spatial sizes from stride, padding and dilation (`Concrete Inputs`)
--   source 'shapes: elementwise' unary and binary elementwise operators: one FLOP per output element;
--                                bytes: the tensor inputs' elements x their sizes + the output's (the
--                                inputs broadcast); a Scalar argument moves nothing
-- Kernels: those whose launch call the operator encloses innermost (rocpd_kernel_stacks'
-- bottom_level_id), so an operator nested in another (aten::conv2d > aten::convolution > ... >
-- aten::cudnn_convolution) is counted once, at the call that launched.
CREATE TEMP VIEW IF NOT EXISTS rocpd_operator_roofline AS
WITH types(dtype, elem, vector_peak, matrix_peak) AS (  -- `Input type` names of tensors; others are not tensors
  VALUES ('float', 4, 'fp32_vector', 'fp32_matrix'), ('double', 8, 'fp64_vector', 'fp64_matrix'),
         ('c10::Half', 2, 'fp16_vector', 'fp16_matrix'), ('c10::BFloat16', 2, 'bf16_vector', 'bf16_matrix'),
         ('signed char', 1, NULL, 'int8_matrix'), ('unsigned char', 1, NULL, NULL), ('bool', 1, NULL, NULL),
         ('short int', 2, NULL, NULL), ('short', 2, NULL, NULL), ('int', 4, NULL, NULL),
         ('long int', 8, NULL, NULL), ('long', 8, NULL, NULL),
         ('c10::Float8_e4m3fn', 1, NULL, NULL), ('c10::Float8_e5m2', 1, NULL, NULL),
         ('c10::Float8_e4m3fnuz', 1, NULL, NULL), ('c10::Float8_e5m2fnuz', 1, NULL, NULL),
         ('c10::complex<float>', 8, NULL, NULL), ('c10::complex<double>', 16, NULL, NULL)
), not_tensors(dtype) AS (VALUES ('Scalar'), (''), ('ScalarList'), ('TensorList'), ('GenericList')),
-- Argument positions per convolution schema (ATen's native_functions.yaml).
conv_ops(name, stride_at, padding_at, dilation_at, transposed_at) AS (
  VALUES ('aten::convolution', 3, 4, 5, 6), ('aten::_convolution', 3, 4, 5, 6),
         ('aten::conv1d', 3, 4, 5, NULL), ('aten::conv2d', 3, 4, 5, NULL), ('aten::conv3d', 3, 4, 5, NULL),
         ('aten::cudnn_convolution', 3, 2, 4, NULL), ('aten::miopen_convolution', 4, 3, 5, NULL)
), elementwise_ops(name, arity) AS (  -- TraceLens's unary and binary lists, and the common activations
  VALUES ('aten::copy_', 1), ('aten::relu', 1), ('aten::relu_', 1), ('aten::gelu', 1), ('aten::gelu_', 1),
         ('aten::silu', 1), ('aten::silu_', 1), ('aten::sigmoid', 1), ('aten::sigmoid_', 1), ('aten::tanh', 1),
         ('aten::tanh_', 1), ('aten::neg', 1), ('aten::exp', 1), ('aten::sqrt', 1), ('aten::rsqrt', 1),
         ('aten::clamp_min', 1), ('aten::clamp_min_', 1), ('aten::clamp_max', 1), ('aten::clamp_max_', 1),
         ('aten::add', 2), ('aten::add_', 2), ('aten::sub', 2), ('aten::sub_', 2), ('aten::rsub', 2),
         ('aten::mul', 2), ('aten::mul_', 2), ('aten::div', 2), ('aten::div_', 2), ('aten::maximum', 2),
         ('aten::minimum', 2), ('aten::sigmoid_backward', 2), ('aten::tanh_backward', 2),
         ('aten::threshold_backward', 2), ('aten::gelu_backward', 2), ('aten::silu_backward', 2)
), ops AS MATERIALIZED (
  SELECT db, api_id, name, json_extract(args, '$."Input Dims"') AS dims, json_extract(args, '$."Input type"') AS types,
         json_extract(args, '$."Concrete Inputs"') AS concrete
  FROM rocpd_apis
  WHERE domain = 'marker' AND json_valid(args) AND json_type(args, '$."Input Dims"') = 'array'
    AND (name IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm')
         OR name IN (SELECT name FROM conv_ops) OR name IN (SELECT name FROM elementwise_ops))
),
-- GEMM: the shapes of rocpd_gemm_roofline.
gemm AS (
  SELECT db, api_id, name, dims, json_extract(dims, '$[' || a || ']') AS am, json_extract(dims, '$[' || (a + 1) || ']') AS bm,
         json_extract(types, '$[' || a || ']') AS dtype
  FROM (SELECT *, CASE WHEN name IN ('aten::addmm', 'aten::baddbmm') THEN 1 ELSE 0 END AS a FROM ops
        WHERE name IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm'))
), gemm_est AS (
  SELECT g.db, g.api_id, g.name, g.dims, g.dtype, 'matrix' AS unit, 'shapes: 2MNK' AS source,
         2.0 * g.b * g.m * g.n * g.k AS flops, 1.0 * g.b * (g.m * g.k + g.k * g.n + g.m * g.n) * t.elem AS bytes,
         CASE WHEN t.elem IS NULL THEN 'element type ''' || coalesce(g.dtype, 'NULL') || ''' unknown: no bytes' END AS note
  FROM (SELECT *, CASE json_array_length(am) WHEN 3 THEN json_extract(am, '$[0]') ELSE 1 END AS b,
               json_extract(am, '$[#-2]') AS m, json_extract(am, '$[#-1]') AS k, json_extract(bm, '$[#-1]') AS n
        FROM gemm WHERE json_array_length(am) IN (2, 3) AND json_array_length(bm) = json_array_length(am)) AS g
  LEFT JOIN types AS t ON t.dtype = g.dtype
),
-- Convolutions: input [N, Cin, spatial...], weight [Cout, Cin/groups, kernel spatial...], 1 to 3
-- spatial dimensions. A list argument of one value applies to every dimension (as PyTorch expands
-- it); an empty `Concrete Inputs` entry is the schema's default (stride 1, padding 0, dilation 1).
conv AS (
  SELECT o.db, o.api_id, o.name, o.dims, json_extract(o.dims, '$[0]') AS x, json_extract(o.dims, '$[1]') AS w,
         json_extract(o.types, '$[0]') AS dtype, json_array_length(o.dims, '$[0]') - 2 AS nd,
         json_extract(o.concrete, '$[' || c.stride_at || ']') AS sa, json_extract(o.concrete, '$[' || c.padding_at || ']') AS pa,
         json_extract(o.concrete, '$[' || c.dilation_at || ']') AS da,
         CASE WHEN c.transposed_at IS NOT NULL THEN json_extract(o.concrete, '$[' || c.transposed_at || ']') END AS transposed,
         coalesce(json_type(o.concrete) = 'array', 0) AS has_concrete
  FROM ops AS o JOIN conv_ops AS c ON c.name = o.name
  WHERE json_array_length(o.dims, '$[0]') BETWEEN 3 AND 5 AND json_array_length(o.dims, '$[1]') = json_array_length(o.dims, '$[0]')
), conv_arg AS (  -- one row per convolution and spatial dimension: the argument's value for it, NULL if unreadable
  SELECT c.*, i.i, json_extract(c.x, '$[' || (2 + i.i) || ']') AS xi, json_extract(c.w, '$[' || (2 + i.i) || ']') AS ki,
         CASE WHEN c.sa = '' THEN 1 WHEN json_valid(c.sa) AND json_type(c.sa) = 'integer' THEN CAST(c.sa AS INTEGER)
              WHEN json_valid(c.sa) AND json_type(c.sa) = 'array'
                THEN json_extract(c.sa, '$[' || CASE json_array_length(c.sa) WHEN 1 THEN 0 ELSE i.i END || ']') END AS s,
         CASE WHEN c.pa = '' OR c.pa LIKE '%valid%' THEN 0 WHEN c.pa LIKE '%same%' THEN -1
              WHEN json_valid(c.pa) AND json_type(c.pa) = 'integer' THEN CAST(c.pa AS INTEGER)
              WHEN json_valid(c.pa) AND json_type(c.pa) = 'array'
                THEN json_extract(c.pa, '$[' || CASE json_array_length(c.pa) WHEN 1 THEN 0 ELSE i.i END || ']') END AS p,
         CASE WHEN c.da = '' THEN 1 WHEN json_valid(c.da) AND json_type(c.da) = 'integer' THEN CAST(c.da AS INTEGER)
              WHEN json_valid(c.da) AND json_type(c.da) = 'array'
                THEN json_extract(c.da, '$[' || CASE json_array_length(c.da) WHEN 1 THEN 0 ELSE i.i END || ']') END AS d
  FROM conv AS c JOIN (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2) AS i ON i.i < c.nd
), conv_out AS (  -- output size per dimension: (in + 2 padding - dilation (kernel - 1) - 1) / stride + 1; 'same' keeps in
  SELECT *, CASE WHEN p = -1 THEN xi WHEN s > 0 THEN (xi + 2 * p - d * (ki - 1) - 1) / s + 1 END AS oi FROM conv_arg
), conv_est AS (
  SELECT c.db, c.api_id, c.name, c.dims, c.dtype, 'matrix' AS unit, 'shapes: conv' AS source,
         CASE WHEN ok THEN 2.0 * n * cout * o_spatial * cin_g * k_spatial END AS flops,
         CASE WHEN ok THEN (1.0 * x_n + w_n + n * cout * o_spatial) * t.elem END AS bytes,
         CASE WHEN NOT has_concrete THEN 'no `Concrete Inputs` (stride, padding, dilation; PyTorch 2.1 and later record them): no estimate'
              WHEN transposed IN ('True', 'true', '1') THEN 'transposed convolution: not estimated'
              WHEN NOT ok THEN 'stride, padding or dilation unreadable in `Concrete Inputs` ' || json_quote(json_array(sa, pa, da)) || ': no estimate'
              WHEN t.elem IS NULL THEN 'element type ''' || coalesce(c.dtype, 'NULL') || ''' unknown: no bytes' END AS note
  FROM (
    SELECT db, api_id, name, dims, dtype, has_concrete, transposed, sa, pa, da,
           has_concrete AND coalesce(transposed NOT IN ('True', 'true', '1'), 1) AND count(oi) = max(nd) AND min(oi) > 0 AS ok,
           json_extract(x, '$[0]') AS n, json_extract(w, '$[0]') AS cout, json_extract(w, '$[1]') AS cin_g,
           coalesce(max(CASE i WHEN 0 THEN oi END), 1) * coalesce(max(CASE i WHEN 1 THEN oi END), 1)
             * coalesce(max(CASE i WHEN 2 THEN oi END), 1) AS o_spatial,
           coalesce(max(CASE i WHEN 0 THEN ki END), 1) * coalesce(max(CASE i WHEN 1 THEN ki END), 1)
             * coalesce(max(CASE i WHEN 2 THEN ki END), 1) AS k_spatial,
           json_extract(x, '$[0]') * json_extract(x, '$[1]') * coalesce(max(CASE i WHEN 0 THEN xi END), 1)
             * coalesce(max(CASE i WHEN 1 THEN xi END), 1) * coalesce(max(CASE i WHEN 2 THEN xi END), 1) AS x_n,
           json_extract(w, '$[0]') * json_extract(w, '$[1]') * coalesce(max(CASE i WHEN 0 THEN ki END), 1)
             * coalesce(max(CASE i WHEN 1 THEN ki END), 1) * coalesce(max(CASE i WHEN 2 THEN ki END), 1) AS w_n
    FROM conv_out GROUP BY db, api_id) AS c
  LEFT JOIN types AS t ON t.dtype = c.dtype
),
-- Elementwise: operand a is the first input (copy_: the source, the second; its destination, the
-- first, is the output); operand b the second input of a binary operator. A non-tensor argument
-- (`Input type` Scalar) reads nothing and broadcasts as a 0-dim tensor. The output: the last input
-- after the operands when it is a tensor of rank >= 1 (an `out=` argument); else the first input for
-- an in-place operator (name ending in `_`); else the broadcast of the operands, its element the larger
-- of two operands of rank >= 1 (else a's), as TraceLens takes it.
ew AS (
  SELECT o.db, o.api_id, o.name, o.dims, json_extract(o.types, '$[0]') AS dtype, e.arity,
         CASE WHEN o.name = 'aten::copy_' THEN 1 ELSE 0 END AS ai,
         CASE WHEN e.arity = 2 THEN 1 END AS bi,
         CASE WHEN json_array_length(o.dims) > e.arity AND o.name <> 'aten::copy_'
                   AND json_type(o.dims, '$[#-1]') = 'array' AND json_array_length(o.dims, '$[#-1]') > 0
                   AND json_extract(o.types, '$[#-1]') IN (SELECT dtype FROM types)
              THEN json_array_length(o.dims) - 1 END AS out_at,
         o.name GLOB '*_' AS in_place, o.types
  FROM ops AS o JOIN elementwise_ops AS e ON e.name = o.name
  WHERE json_array_length(o.dims) >= e.arity
), ew_operands AS (
  SELECT e.*, json_extract(e.dims, '$[' || e.ai || ']') AS a, json_extract(e.types, '$[' || e.ai || ']') AS a_type,
         CASE WHEN e.bi IS NOT NULL THEN json_extract(e.dims, '$[1]') ELSE '[]' END AS b,
         CASE WHEN e.bi IS NOT NULL THEN json_extract(e.types, '$[1]') END AS b_type
  FROM ew AS e
), ew_typed AS (
  SELECT e.*, ta.elem AS a_elem, tb.elem AS b_elem,
         (e.a_type IS NOT NULL AND ta.elem IS NULL AND e.a_type NOT IN (SELECT dtype FROM not_tensors))
           OR (e.b_type IS NOT NULL AND tb.elem IS NULL AND e.b_type NOT IN (SELECT dtype FROM not_tensors)) AS unknown_type
  FROM ew_operands AS e LEFT JOIN types AS ta ON ta.dtype = e.a_type LEFT JOIN types AS tb ON tb.dtype = e.b_type
),
-- Element counts over the positions from the right (shapes of rank up to 8): each operand's and the
-- broadcast's, and whether the two broadcast.
ew_pos AS (
  SELECT e.db, e.api_id, j.j,
         CASE WHEN j.j <= json_array_length(e.a) THEN json_extract(e.a, '$[#-' || j.j || ']') ELSE 1 END AS da,
         CASE WHEN j.j <= json_array_length(e.b) THEN json_extract(e.b, '$[#-' || j.j || ']') ELSE 1 END AS dbb
  FROM ew_typed AS e
  JOIN (SELECT value AS j FROM json_each('[1, 2, 3, 4, 5, 6, 7, 8]')) AS j
    ON j.j <= max(json_array_length(e.a), json_array_length(e.b))
), ew_counts AS (
  SELECT e.db, e.api_id,
         max(json_array_length(e.a), json_array_length(e.b)) <= 8 AS ranked,
         coalesce(min(p.da = p.dbb OR p.da = 1 OR p.dbb = 1), 1) AS broadcasts,
         coalesce(max(CASE p.j WHEN 1 THEN p.da END), 1) * coalesce(max(CASE p.j WHEN 2 THEN p.da END), 1)
           * coalesce(max(CASE p.j WHEN 3 THEN p.da END), 1) * coalesce(max(CASE p.j WHEN 4 THEN p.da END), 1)
           * coalesce(max(CASE p.j WHEN 5 THEN p.da END), 1) * coalesce(max(CASE p.j WHEN 6 THEN p.da END), 1)
           * coalesce(max(CASE p.j WHEN 7 THEN p.da END), 1) * coalesce(max(CASE p.j WHEN 8 THEN p.da END), 1) AS na,
         coalesce(max(CASE p.j WHEN 1 THEN p.dbb END), 1) * coalesce(max(CASE p.j WHEN 2 THEN p.dbb END), 1)
           * coalesce(max(CASE p.j WHEN 3 THEN p.dbb END), 1) * coalesce(max(CASE p.j WHEN 4 THEN p.dbb END), 1)
           * coalesce(max(CASE p.j WHEN 5 THEN p.dbb END), 1) * coalesce(max(CASE p.j WHEN 6 THEN p.dbb END), 1)
           * coalesce(max(CASE p.j WHEN 7 THEN p.dbb END), 1) * coalesce(max(CASE p.j WHEN 8 THEN p.dbb END), 1) AS nb,
         coalesce(max(CASE p.j WHEN 1 THEN max(p.da, p.dbb) END), 1) * coalesce(max(CASE p.j WHEN 2 THEN max(p.da, p.dbb) END), 1)
           * coalesce(max(CASE p.j WHEN 3 THEN max(p.da, p.dbb) END), 1) * coalesce(max(CASE p.j WHEN 4 THEN max(p.da, p.dbb) END), 1)
           * coalesce(max(CASE p.j WHEN 5 THEN max(p.da, p.dbb) END), 1) * coalesce(max(CASE p.j WHEN 6 THEN max(p.da, p.dbb) END), 1)
           * coalesce(max(CASE p.j WHEN 7 THEN max(p.da, p.dbb) END), 1) * coalesce(max(CASE p.j WHEN 8 THEN max(p.da, p.dbb) END), 1) AS nout
  FROM ew_typed AS e LEFT JOIN ew_pos AS p ON p.db = e.db AND p.api_id = e.api_id
  GROUP BY e.db, e.api_id
), ew_est AS (
  SELECT e.db, e.api_id, e.name, e.dims, e.dtype, 'vector' AS unit, 'shapes: elementwise' AS source,
         CASE WHEN c.ranked AND c.broadcasts THEN 1.0 * c.nout END AS flops,
         CASE WHEN c.ranked AND c.broadcasts AND NOT e.unknown_type THEN
           coalesce(c.na * e.a_elem, 0) + coalesce(c.nb * e.b_elem, 0)
           + c.nout * CASE WHEN e.out_at IS NOT NULL THEN (SELECT elem FROM types WHERE dtype = json_extract(e.types, '$[' || e.out_at || ']'))
                           WHEN e.in_place OR e.name = 'aten::copy_' THEN (SELECT elem FROM types WHERE dtype = json_extract(e.types, '$[0]'))
                           WHEN json_array_length(e.a) > 0 AND json_array_length(e.b) > 0 AND e.b_elem IS NOT NULL
                             THEN max(e.a_elem, e.b_elem)
                           ELSE coalesce(e.a_elem, e.b_elem) END END AS bytes,
         CASE WHEN NOT c.ranked THEN 'a shape of rank above 8: no estimate'
              WHEN NOT c.broadcasts THEN 'shapes ' || json_quote(json_array(json(e.a), json(e.b))) || ' do not broadcast: no estimate'
              WHEN e.unknown_type THEN 'element type ''' || coalesce(e.a_type, 'NULL') || ''' or ''' || coalesce(e.b_type, 'NULL')
                                       || ''' unknown: no bytes' END AS note
  FROM ew_typed AS e JOIN ew_counts AS c ON c.db = e.db AND c.api_id = e.api_id
), est AS MATERIALIZED (
  SELECT * FROM gemm_est UNION ALL SELECT * FROM conv_est UNION ALL SELECT * FROM ew_est
), kernels AS MATERIALIZED (
  SELECT k.db, k.bottom_level_id AS api_id, count(*) AS kernels, sum(k."end" - k.start) AS duration, min(k.gpu) AS gpu
  FROM rocpd_kernel_stacks AS k
  WHERE k.kind = 'kernel' AND k.bottom_level_id IS NOT NULL
  GROUP BY k.db, k.bottom_level_id
), rated AS (
  SELECT e.db, e.api_id, e.name AS operator, e.source, e.dtype, e.dims AS shapes, k.kernels, k.duration, k.gpu,
         e.flops, e.bytes, e.note, d.name AS device_name, d.device, d.source AS device_source, d.warning AS device_warning,
         CASE e.unit WHEN 'vector' THEN t.vector_peak
                     ELSE CASE WHEN t.matrix_peak = 'fp32_matrix' AND d.fp32_matrix IS NULL THEN 'fp32_vector'
                               WHEN t.matrix_peak = 'fp64_matrix' AND d.fp64_matrix IS NULL THEN 'fp64_vector'
                               ELSE t.matrix_peak END END AS peak,
         d.mem_tb_s * 1e12 AS mem_bytes_s, d.fp64_vector, d.fp64_matrix, d.fp32_vector, d.fp32_matrix, d.tf32_matrix,
         d.fp16_vector, d.fp16_matrix, d.bf16_vector, d.bf16_matrix, d.int8_matrix
  FROM est AS e JOIN kernels AS k ON k.db = e.db AND k.api_id = e.api_id
  LEFT JOIN types AS t ON t.dtype = e.dtype
  LEFT JOIN temp.rocpd_gpu_devices AS d ON d.db = e.db AND d.gpu = k.gpu
), peaked AS (
  SELECT *, CASE peak WHEN 'fp64_vector' THEN fp64_vector WHEN 'fp64_matrix' THEN fp64_matrix
                      WHEN 'fp32_vector' THEN fp32_vector WHEN 'fp32_matrix' THEN fp32_matrix
                      WHEN 'fp16_vector' THEN fp16_vector WHEN 'fp16_matrix' THEN fp16_matrix
                      WHEN 'bf16_vector' THEN bf16_vector WHEN 'bf16_matrix' THEN bf16_matrix
                      WHEN 'int8_matrix' THEN int8_matrix END * 1e12 AS peak_flop_s,
         flops / nullif(bytes, 0) AS intensity, flops * 1e9 / nullif(duration, 0) AS flop_s,
         bytes * 1e9 / nullif(duration, 0) AS bytes_s
  FROM rated
), r AS (
  SELECT *, min(peak_flop_s, intensity * mem_bytes_s) AS roof_flop_s FROM peaked
)
SELECT db, api_id, operator, source, dtype, shapes, kernels, duration, gpu, device_name, device, flops, bytes,
       intensity, flop_s, bytes_s, peak, peak_flop_s, mem_bytes_s, roof_flop_s,
       100.0 * flop_s / nullif(roof_flop_s, 0) AS pct_of_roof,
       CASE WHEN roof_flop_s IS NULL THEN NULL
            WHEN intensity * mem_bytes_s < peak_flop_s THEN 'memory' ELSE 'compute' END AS bound,
       max(flops / peak_flop_s, bytes / mem_bytes_s) * 1e9 AS roofline_ns, device_source,
       coalesce(note, device_warning,
                CASE WHEN device_name IS NULL THEN 'the trace names no device for gpu ' || coalesce(gpu, 'NULL') || ': no roof' END,
                CASE WHEN peak IS NULL THEN 'no peak column for element type ''' || coalesce(dtype, 'NULL') || ''': no roof'
                     WHEN peak_flop_s IS NULL OR mem_bytes_s IS NULL THEN
                       'device ''' || device || ''' has no figure for ' ||
                       CASE WHEN peak_flop_s IS NULL THEN peak ELSE 'memory bandwidth' END END) AS warning
FROM r
WHERE rocpd_require_members('rocpd_operator_roofline');
