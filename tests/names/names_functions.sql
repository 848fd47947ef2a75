-- names: the SQL functions through the real sqlite3 shell (error texts: names_test.py).
-- demangle: mangled names, suffixes, non-mangled input, NULL. Checks of C++20 manglings apply to
-- the LLVM backend only (the __cxa_demangle fallback leaves them mangled).
CREATE TEMP VIEW llvm AS SELECT json_extract(rocpd_build_info(), '$.demangler') LIKE 'llvm-%' AS is_llvm;
SELECT 'FAIL: demangle anonymous namespace' WHERE demangle('_ZN12_GLOBAL__N_16kernelEPf') IS NOT '(anonymous namespace)::kernel(float*)';
SELECT 'FAIL: demangle C++20 Tn' WHERE (SELECT is_llvm FROM llvm) AND demangle('_ZN4vllm15rms_norm_kernelIfTniLi1024EEEvPT_PKT_PKT_fii')
  IS NOT 'void vllm::rms_norm_kernel<float, 1024>(float*, float const*, float const*, float, int, int)';
SELECT 'FAIL: demangle .kd' WHERE demangle('_Z3fooILi1EEvv.kd') IS NOT 'void foo<1>()';
SELECT 'FAIL: demangle [clone .kd]' WHERE demangle('void foo<1>() [clone .kd]') IS NOT 'void foo<1>()';
SELECT 'FAIL: demangle .cold' WHERE demangle('_Z3foov.cold') IS NOT 'foo() (.cold)';
SELECT 'FAIL: demangle .llvm.N' WHERE demangle('_Z3foov.llvm.4711') IS NOT 'foo() (.llvm.4711)';
SELECT 'FAIL: Tensile unchanged' WHERE demangle('Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_1LDSB0') IS NOT 'Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_1LDSB0';
SELECT 'FAIL: Triton unchanged' WHERE demangle('triton_poi_fused_add_0d1d2de') IS NOT 'triton_poi_fused_add_0d1d2de';
SELECT 'FAIL: broken mangling unchanged' WHERE demangle('_Z3fo') IS NOT '_Z3fo';
SELECT 'FAIL: garbage after _Z unchanged' WHERE demangle('_Z@@@') IS NOT '_Z@@@';
SELECT 'FAIL: empty string' WHERE demangle('') IS NOT '';
SELECT 'FAIL: NULL for NULL' WHERE demangle(NULL) IS NOT NULL;
SELECT 'FAIL: 100 kB unchanged' WHERE demangle('_Z1f' || printf('%.*c', 100000, 'P') || 'i')
  IS NOT '_Z1f' || printf('%.*c', 100000, 'P') || 'i';
SELECT 'FAIL: invalid UTF-8 unchanged' WHERE demangle(CAST(x'5f5a33ff' AS TEXT)) IS NOT CAST(x'5f5a33ff' AS TEXT);
SELECT 'FAIL: result is TEXT' WHERE typeof(demangle('_Z3foov')) IS NOT 'text';

-- kernel_short_name: mangled and demangled input alike.
SELECT 'FAIL: short of mangled' WHERE (SELECT is_llvm FROM llvm) AND kernel_short_name('_ZN4vllm25scaled_act_and_mul_kernelIN3c104HalfETnPFfRKfEXadL_ZN4vllm11silu_kernelIfEEfRKfEEEEvPN3c104HalfEPKT_if') IS NOT 'scaled_act_and_mul_kernel';
SELECT 'FAIL: short of demangled' WHERE kernel_short_name('void at::native::elementwise_kernel<128, 4, at::native::AddFunctor<float> >(int, at::native::AddFunctor<float>)') IS NOT 'elementwise_kernel';
SELECT 'FAIL: short lambda' WHERE kernel_short_name('hip_impl::launch_host_side(int)::''lambda0''(int)::operator()(int) const') IS NOT 'launch_host_side::{lambda#2}';
SELECT 'FAIL: short operator' WHERE kernel_short_name('linalg::Matrix::operator()(int, int) const') IS NOT 'Matrix::operator()';
SELECT 'FAIL: short Tensile' WHERE kernel_short_name('Cijk_Ailk_Bljk_SB_MT128x64x16') IS NOT 'Cijk_Ailk_Bljk_SB_MT128x64x16';
SELECT 'FAIL: short NULL' WHERE kernel_short_name(NULL) IS NOT NULL;

-- Pure functions: DETERMINISTIC (allowed in generated columns and index expressions) and
-- INNOCUOUS (allowed in views and triggers of an untrusted schema).
CREATE TABLE k(name TEXT, demangled TEXT GENERATED ALWAYS AS (demangle(name)), short TEXT GENERATED ALWAYS AS (kernel_short_name(name)));
CREATE INDEX k_short ON k(kernel_short_name(name));
INSERT INTO k(name) VALUES ('_Z3fooILi1EEvv.kd'), ('_ZN12_GLOBAL__N_16kernelEPf'), ('Cijk_Ailk_Bljk'), (NULL);
SELECT 'FAIL: generated column' WHERE (SELECT group_concat(short, ',') FROM k) IS NOT 'foo,kernel,Cijk_Ailk_Bljk';
PRAGMA trusted_schema = OFF;
CREATE VIEW v AS SELECT demangle(name) AS d, kernel_short_name(name) AS s, rocpd_build_info() AS b FROM k;
SELECT 'FAIL: usable in an untrusted view' WHERE (SELECT count(*) FROM v WHERE d IS NOT NULL) != 3;

-- A column of 200000 rows with 4 distinct names: the cache serves repeats.
CREATE TABLE many AS
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199999)
  SELECT CASE i % 4 WHEN 0 THEN '_ZN4vllm15rms_norm_kernelIfTniLi1024EEEvPT_PKT_PKT_fii'
                    WHEN 1 THEN '_Z3fooILi1EEvv.kd' WHEN 2 THEN 'Cijk_Ailk' ELSE '_Z3fo' END AS name FROM n;
SELECT 'FAIL: column demangle' WHERE (SELECT count(DISTINCT demangle(name)) FROM many) != 4;
SELECT 'FAIL: column short names' WHERE (SELECT is_llvm FROM llvm) AND (SELECT group_concat(s, ',') FROM (SELECT DISTINCT kernel_short_name(name) AS s FROM many ORDER BY s))
  IS NOT 'Cijk_Ailk,_Z3fo,foo,rms_norm_kernel';

-- Build description: version and backend.
SELECT 'FAIL: rocpd_version' WHERE rocpd_version() NOT GLOB '[0-9]*.[0-9]*.[0-9]*';
SELECT 'FAIL: build info is JSON' WHERE json_valid(rocpd_build_info()) IS NOT 1;
SELECT 'FAIL: build info version' WHERE json_extract(rocpd_build_info(), '$.version') IS NOT rocpd_version();
SELECT 'FAIL: build info demangler' WHERE json_extract(rocpd_build_info(), '$.demangler') NOT IN ('llvm-19', 'cxa');
SELECT 'FAIL: build info cache' WHERE json_extract(rocpd_build_info(), '$.name_cache_capacity') != 4096;
SELECT 'demangler in use: ' || json_extract(rocpd_build_info(), '$.demangler');
