#!/usr/bin/python3
"""Regenerates tests/names/corpus.tsv: kernel-like mangled names and their demangling by LLVM 19.

Every name is made here, nothing is taken from other projects:
  1. C++20 source written below (kernel-like templates, lambdas, ABI tags, anonymous
     namespaces, packs, CK/Tensile-like long names, operators, odd types) is compiled with g++
     and the mangled names of its functions are read back with nm: valid manglings by
     construction.
  2. clang's C++20 manglings that GCC 12 does not emit (template parameter declarations
     `Tn`/`Ty`/`Tt`/`Tp`, constraints `Tk`) are composed as strings.
  3. Suffixes tracers and compilers append (.kd, .cold, .llvm.<n>, .isra.0, .part.0) are
     appended to a sample of the names above.
Expected output: /usr/lib/llvm-19/bin/llvm-cxxfilt (names it cannot demangle are dropped, so
every row is a mangling LLVM 19 accepts). A third column says whether GNU c++filt (GCC 12's
demangler) demangles the name too: 0 marks the names only LLVM handles.

Usage: /usr/bin/python3 tests/names/make_corpus.py [output.tsv]
"""
import itertools
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus.tsv")
CXXFILT = "/usr/lib/llvm-19/bin/llvm-cxxfilt"
GNU_CXXFILT = "c++filt"
CXX = os.environ.get("CXX", "g++")

PREAMBLE = r"""
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#define KERNEL __attribute__((noinline, used))
void sink(const void*);
namespace c10 {
struct Half { unsigned short x; };
struct BFloat16 { unsigned short x; };
template <class T> struct complex { T re, im; };
}  // namespace c10
namespace at { struct TensorIteratorBase { int n; }; }
"""

def types():
    return ["float", "double", "c10::Half", "c10::BFloat16", "signed char", "long"]

def family_reduce(src, calls):
    src.append("""
namespace at::native::reduce {
template <typename T, int BLOCK, int VEC> KERNEL void reduce_kernel(const T* in, T* out, int n) { sink(in); sink(out); }
template <typename T, typename Acc, int BLOCK> KERNEL void welford_kernel(const T* in, Acc* mean, Acc* m2, std::int64_t n) { sink(in); }
}""")
    for t, b, v in itertools.product(types(), [128, 256, 512], [1, 4]):
        src.append(f"template void at::native::reduce::reduce_kernel<{t}, {b}, {v}>(const {t}*, {t}*, int);")
    for t, b in itertools.product(["float", "c10::Half", "c10::BFloat16"], [256, 1024]):
        src.append(f"template void at::native::reduce::welford_kernel<{t}, float, {b}>(const {t}*, float*, float*, std::int64_t);")

def family_vllm(src, calls):
    src.append("""
namespace vllm {
template <typename scalar_t, typename cache_t, int HEAD_SIZE, int BLOCK_SIZE, int NUM_THREADS, bool IS_BLOCK_SPARSE, int PARTITION_SIZE = 0>
KERNEL void paged_attention_v1_kernel(float* out, const scalar_t* q, const cache_t* k_cache, const cache_t* v_cache,
    int num_kv_heads, float scale, const int* block_tables, const int* seq_lens, int max_num_blocks, const float* alibi) { sink(q); }
template <typename T> __attribute__((always_inline)) inline T silu_kernel(const T& x) { return x; }
template <typename T> __attribute__((always_inline)) inline T gelu_kernel(const T& x) { return x; }
template <typename T> __attribute__((always_inline)) inline T gelu_tanh_kernel(const T& x) { return x; }
template <typename scalar_t, scalar_t (*ACT_FN)(const scalar_t&)>
KERNEL void act_and_mul_kernel(scalar_t* out, const scalar_t* input, const int d) { sink(out); }
template <typename scalar_t, float (*ACT_FN)(const float&)>
KERNEL void scaled_act_and_mul_kernel(c10::Half* out, const scalar_t* input, const int d, const float scale) { sink(out); }
template <typename scalar_t> KERNEL void rms_norm_kernel(scalar_t* out, const scalar_t* input, const scalar_t* weight, const float epsilon, const int num_tokens, const int hidden_size) { sink(out); }
template <typename scalar_t, bool IS_NEOX> KERNEL void rotary_embedding_kernel(const std::int64_t* positions, scalar_t* query, scalar_t* key, const scalar_t* cos_sin_cache, const int rot_dim) { sink(query); }
}""")
    for s, c, h, b, sp in itertools.product(["float", "c10::Half", "c10::BFloat16"], ["same", "std::uint8_t"], [64, 128, 256], [16, 32], ["false", "true"]):
        cache = s if c == "same" else c
        src.append(f"template void vllm::paged_attention_v1_kernel<{s}, {cache}, {h}, {b}, 128, {sp}, 0>(float*, const {s}*, const {cache}*, const {cache}*, int, float, const int*, const int*, int, const float*);")
    for s, fn in itertools.product(["float", "c10::Half", "c10::BFloat16"], ["silu_kernel", "gelu_kernel", "gelu_tanh_kernel"]):
        src.append(f"template void vllm::act_and_mul_kernel<{s}, &vllm::{fn}<{s}>>({s}*, const {s}*, const int);")
        src.append(f"template void vllm::scaled_act_and_mul_kernel<{s}, &vllm::{fn}<float>>(c10::Half*, const {s}*, const int, const float);")
    for s in ["float", "c10::Half", "c10::BFloat16"]:
        src.append(f"template void vllm::rms_norm_kernel<{s}>({s}*, const {s}*, const {s}*, const float, const int, const int);")
        for neox in ["true", "false"]:
            src.append(f"template void vllm::rotary_embedding_kernel<{s}, {neox}>(const std::int64_t*, {s}*, {s}*, const {s}*, const int);")

def family_lambdas(src, calls):
    src.append("""
namespace at::native {
template <int vt, int vec, class F> KERNEL void elementwise_kernel(int N, F f) { sink(&f); }
template <class T> struct AddFunctor { T alpha; T operator()(T a, T b) const { return a; } };
template <class T> struct MulFunctor { T operator()(T a, T b) const { return a; } };
template <class T> struct SigmoidFunctor { T operator()(T a) const { return a; } };
template <class T> struct AbsFunctor { T operator()(T a) const { return a; } };
template <class T> struct CompareEqFunctor { bool operator()(T a, T b) const { return true; } };
template <class Op> KERNEL void gpu_kernel_impl(at::TensorIteratorBase& it, const Op& op) {
  elementwise_kernel<128, 4>(it.n, [op] (int idx) __attribute__((noinline)) { sink(&op); });
  elementwise_kernel<512, 1>(it.n, [&it] (int idx) mutable __attribute__((noinline)) { sink(&it); });
}
template <class T> KERNEL void launch_legacy_kernel(std::int64_t N, const T& f) {
  auto generic = [f] (auto i, auto j) __attribute__((noinline)) { sink(&f); };
  generic(1, 2L);
  generic(1.0f, 'c');
}
}
namespace hip_impl {
KERNEL void launch_host_side(int n) {
  auto fn = [](int i) __attribute__((noinline)) { sink(&i); };
  fn(n);
  void (*fp)(int) = fn;
  fp(n);
  at::native::elementwise_kernel<64, 2>(n, [n](int i) __attribute__((noinline)) { sink(&n); });
}
}""")
    for fn, t in itertools.product(["AddFunctor", "MulFunctor", "SigmoidFunctor", "AbsFunctor", "CompareEqFunctor"], ["float", "double", "c10::Half", "c10::BFloat16"]):
        calls.append(f"{{ at::TensorIteratorBase it{{1}}; at::native::gpu_kernel_impl(it, at::native::{fn}<{t}>{{}}); at::native::launch_legacy_kernel(1, at::native::{fn}<{t}>{{}}); }}")
    calls.append("hip_impl::launch_host_side(3);")

def family_anon_abi(src, calls):
    src.append("""
namespace {
template <class T> KERNEL void fill_kernel(T* p, T v, std::size_t n) { sink(p); }
KERNEL void copy_kernel(const void* src, void* dst, std::size_t bytes) { sink(src); }
struct LocalFunctor { int k; KERNEL void operator()(int i) const { sink(this); } };
}
namespace rocm_runtime {
inline namespace __abi_v6 {
template <class T> [[gnu::abi_tag("rocm6")]] KERNEL void tagged_kernel(T* p) { sink(p); }
}
template <class T> KERNEL std::string kernel_label(T v) { return std::string(); }
template <class T> KERNEL std::vector<std::string> kernel_labels(const std::vector<T>& v) { return {}; }
}""")
    for t in types():
        calls.append(f"{{ {t} v{{}}; fill_kernel<{t}>(&v, v, 1); rocm_runtime::tagged_kernel<{t}>(&v); rocm_runtime::kernel_label<{t}>(v); rocm_runtime::kernel_labels<{t}>(std::vector<{t}>()); }}")
    calls.append("copy_kernel(nullptr, nullptr, 0); LocalFunctor{1}(2);")

def family_packs(src, calls):
    src.append("""
namespace fused {
template <class... Ts> KERNEL void fused_kernel(int n, Ts... args) { sink(&n); }
template <int... Is> KERNEL void permute_kernel(std::integer_sequence<int, Is...>, const float* in, float* out) { sink(in); }
template <class... Ts> KERNEL auto sum_all(Ts... t) -> decltype((t + ...)) { return (t + ...); }
template <class F, class... Args> KERNEL auto invoke_kernel(F f, Args... args) -> decltype(f(args...)) { return f(args...); }
template <class... Ts> struct TypeList {};
template <class... Ts> KERNEL void typelist_kernel(TypeList<Ts...>, Ts*... ptrs) { (sink(ptrs), ...); }
inline int plus1(int x) { return x + 1; }
inline float scale(float x, float s) { return x * s; }
}""")
    packs = ["float", "float, int", "c10::Half, float, int", "double*, const double*, std::int64_t",
             "c10::BFloat16, c10::BFloat16, float, float", "int, int, int, int, int", "std::size_t, bool", "char, short, long"]
    for p in packs:
        src.append(f"template void fused::fused_kernel<{p}>(int, {p});")
    for seq in ["0", "1, 0", "0, 2, 1", "2, 1, 0", "0, 1, 3, 2", "3, 2, 1, 0"]:
        src.append(f"template void fused::permute_kernel<{seq}>(std::integer_sequence<int, {seq}>, const float*, float*);")
    calls.append("fused::sum_all(1, 2); fused::sum_all(1.0f, 2.0); fused::sum_all(1, 2L, (short)3); fused::sum_all(1.0f, 2.0f, 3.0f, 4.0f);")
    for p in ["float", "float, int", "c10::Half, c10::BFloat16, double"]:
        ptrs = ", ".join("(%s*)nullptr" % x.strip() for x in p.split(","))
        calls.append(f"fused::typelist_kernel(fused::TypeList<{p}>{{}}, {ptrs});")
    calls.append("fused::invoke_kernel(fused::plus1, 1); fused::invoke_kernel(fused::scale, 1.0f, 2.0f);")

def family_ck(src, calls):
    src.append("""
namespace ck {
using index_t = int;
template <index_t... Is> struct Sequence {};
namespace tensor_layout::gemm { struct RowMajor {}; struct ColumnMajor {}; }
namespace tensor_operation::element_wise { struct PassThrough {}; struct Scale { float s; }; struct FastGelu {}; }
template <class... Xs> struct Tuple {};
template <class Transforms, class LowerIds, class UpperIds, class Hidden, index_t N> struct TensorDescriptor {};
template <index_t BlockSize, class FloatAB, class FloatAcc, class FloatC, class ALayout, class BLayout, class CLayout,
          index_t MPerBlock, index_t NPerBlock, index_t K0PerBlock, index_t MPerXdl, index_t NPerXdl, index_t K1,
          class ABlockTransferThreadClusterLengths, class ABlockTransferThreadClusterArrangeOrder,
          class BBlockTransferThreadClusterLengths, class BBlockTransferThreadClusterArrangeOrder, bool HasMainKBlockLoop>
struct GridwiseGemm_k0mk1_k0nk1_mn_xdlops_v2r3 {};
template <class GridwiseGemm, class FloatAB, class FloatC, class AGridDesc, class BGridDesc, class CGridDesc,
          class AElementwiseOperation, class BElementwiseOperation, class CElementwiseOperation, bool HasMainKBlockLoop>
KERNEL void kernel_gemm_xdlops_v2r3(const FloatAB* __restrict__ p_a_grid, const FloatAB* __restrict__ p_b_grid,
    FloatC* __restrict__ p_c_grid, const AGridDesc a, const BGridDesc b, const CGridDesc c,
    const AElementwiseOperation a_op, const BElementwiseOperation b_op, const CElementwiseOperation c_op) { sink(p_a_grid); }
}""")
    layouts = [("RowMajor", "ColumnMajor"), ("RowMajor", "RowMajor"), ("ColumnMajor", "RowMajor"), ("ColumnMajor", "ColumnMajor")]
    dtypes = ["c10::Half", "c10::BFloat16", "float"]
    blocks = [(256, 256, 128, 4, 32, 32, 8), (256, 128, 128, 4, 32, 32, 8), (128, 64, 64, 8, 16, 16, 4)]
    for (al, bl), dt, (bs, m, n, k0, mx, nx, k1) in itertools.product(layouts, dtypes, blocks):
        desc = "ck::TensorDescriptor<ck::Tuple<ck::Sequence<0, 1>, ck::Sequence<2>>, ck::Tuple<ck::Sequence<0>>, ck::Tuple<ck::Sequence<1, 2>>, ck::Sequence<0, 1, 2>, %d>"
        gg = (f"ck::GridwiseGemm_k0mk1_k0nk1_mn_xdlops_v2r3<{bs}, {dt}, float, {dt}, ck::tensor_layout::gemm::{al}, ck::tensor_layout::gemm::{bl}, ck::tensor_layout::gemm::RowMajor, "
              f"{m}, {n}, {k0}, {mx}, {nx}, {k1}, ck::Sequence<4, 64, 1>, ck::Sequence<1, 0, 2>, ck::Sequence<4, 64, 1>, ck::Sequence<1, 0, 2>, true>")
        ops = "ck::tensor_operation::element_wise::PassThrough, ck::tensor_operation::element_wise::PassThrough, ck::tensor_operation::element_wise::" + ("FastGelu" if dt == "float" else "Scale")
        src.append(f"template void ck::kernel_gemm_xdlops_v2r3<{gg}, {dt}, {dt}, {desc % 3}, {desc % 4}, {desc % 5}, {ops}, true>"
                   f"(const {dt}*, const {dt}*, {dt}*, const {desc % 3}, const {desc % 4}, const {desc % 5}, {ops.replace('ck::', 'const ck::')});")

def family_tensile(src, calls):
    src.append("""
namespace tensile { template <class T> struct KernelArgs { T* d; const T* a; const T* b; std::uint32_t sizes[4]; }; }""")
    dts = ["HHS_BH", "SB", "DB", "BBS_BH"]
    mts = ["MT256x256x64_MI32x32x8x1", "MT128x128x32_MI16x16x16x1", "MT64x64x64_MI16x16x4x4", "MT128x64x16_MI32x32x2x1", "MT256x128x64_MI32x32x8x1"]
    tail = "_SN_1LDSB{l}_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS1_GRVWA8_GRVWB8_GSU1_GSUAMB_IU1_K1_LBSPPA128_LBSPPB128_LPA16_LPB16_LRVW16_MIAV1_MMFSC_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS2_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_TT4_64_TLDS1_USFGROn1_VWA4_VWB4_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM{w}"
    cty = {"HHS_BH": "c10::Half", "SB": "float", "DB": "double", "BBS_BH": "c10::BFloat16"}
    for i, (dt, mt) in enumerate(itertools.product(dts, mts)):
        name = f"Cijk_Ailk_Bljk_{dt}_{mt}" + tail.format(l=i % 2, w=[1, 4, 8, 16][i % 4])
        t = cty[dt]
        src.append(f"namespace tensile {{ template <int GSU> KERNEL void {name}(KernelArgs<{t}> args, std::uint32_t gsu) {{ sink(&args); }} "
                   f"template void {name}<{1 + i % 3}>(KernelArgs<{t}>, std::uint32_t); }}")

def family_deep(src, calls):
    """Composable-kernel-like names of 1 to 8 kB (the demangler runs them on a helper thread)."""
    src.append("""
namespace ck::tensor_operation::device {
template <class... Descs> struct GroupedConvDescriptors {};
template <class Problem, class Policy, int Stage> KERNEL void kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffle(const void* a, void* e, Problem p) { sink(a); }
}""")
    for size in (4, 8, 16, 24, 32, 48):
        tuples = []
        for t in range(size):
            seqs = ", ".join("ck::Sequence<%s>" % ", ".join(str(t * 1000 + s * 50 + i) for i in range(8)) for s in range(3))
            tuples.append(f"ck::Tuple<{seqs}>")
        problem = "ck::tensor_operation::device::GroupedConvDescriptors<" + ", ".join(tuples) + ">"
        src.append(f"template void ck::tensor_operation::device::kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffle<{problem}, ck::Sequence<{size}>, {size % 3}>(const void*, void*, {problem});")

def family_rccl(src, calls):
    src.append("""
struct ncclDevComm; struct ncclWork; struct ncclWorkElem { int x; };
template <int FUNC, class T, class RedOp, int ALGO, int PROTO> KERNEL void ncclKernel(ncclDevComm* comm, std::uint64_t channelMask, ncclWork* work) { sink(comm); }
template <class T> struct FuncSum {}; template <class T> struct FuncProd {}; template <class T> struct FuncMinMax {}; template <class T> struct FuncPreMulSum {};
template <unsigned long N> struct ncclDevKernelArgsStorage { char b[N]; };
KERNEL void ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul> args) { sink(&args); }
KERNEL void ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul> args) { sink(&args); }""")
    n = 0
    for op, algo, proto in itertools.product(["AllReduce", "ReduceScatter", "AllGather", "Broadcast"], ["RING", "TREE"], ["LL", "LL128", "SIMPLE"]):
        for red, ty in [("Sum", "float"), ("Prod", "c10::Half")][: 1 + (n % 2)]:
            src.append(f"KERNEL void ncclKernel_{op}_{algo}_{proto}_{red}_{ty.replace('c10::', '')}(ncclDevComm* comm, std::uint64_t channelMask, ncclWork* work) {{ sink(comm); }}")
            n += 1
    for f, (t, r), a, p in itertools.product([0, 2], [("float", "FuncSum"), ("c10::Half", "FuncProd"), ("c10::BFloat16", "FuncMinMax"), ("double", "FuncPreMulSum")], [0, 1], [0, 2]):
        src.append(f"template void ncclKernel<{f}, {t}, {r}<{t}>, {a}, {p}>(ncclDevComm*, std::uint64_t, ncclWork*);")

def family_members(src, calls):
    src.append("""
namespace rocprim::detail {
template <class T> struct plus { T operator()(const T& a, const T& b) const { return a; } };
template <unsigned BlockSize, unsigned ItemsPerThread, class BinaryOp> KERNEL void block_reduce_kernel(const float* in, float* out, BinaryOp op) { sink(in); }
template <class Config, class KeyIt, class ValueIt, class Compare> KERNEL void onesweep_histograms_kernel(KeyIt keys, ValueIt values, std::size_t* hist, unsigned bit, Compare cmp) { sink(hist); }
struct default_config {};
}
namespace linalg {
class Matrix {
 public:
  KERNEL Matrix(int rows, int cols) : r(rows), c(cols) {}
  KERNEL Matrix(const Matrix& o) : r(o.r), c(o.c) {}
  KERNEL ~Matrix() { sink(this); }
  KERNEL Matrix& operator+=(const Matrix& o) { return *this; }
  KERNEL float operator()(int i, int j) const { return 0; }
  KERNEL float& operator[](std::size_t i) { return f; }
  KERNEL bool operator==(const Matrix& o) const { return true; }
  KERNEL explicit operator bool() const { return r != 0; }
  KERNEL operator std::vector<float>() const { return {}; }
  template <class T> KERNEL T get() && { return T(); }
  template <class T> KERNEL T get() const& { return T(); }
  KERNEL static Matrix identity(int n) { return Matrix(n, n); }
  KERNEL void resize(int rows, int cols) volatile { }
  KERNEL friend Matrix operator*(const Matrix& a, const Matrix& b) { return a; }
  KERNEL void* operator new(std::size_t n) { return ::operator new(n); }
  KERNEL void operator delete(void* p) { ::operator delete(p); }
  int r, c; float f = 0;
};
}""")
    for b, i, t in itertools.product([64, 256, 1024], [1, 4, 8], ["float", "int"]):
        src.append(f"template void rocprim::detail::block_reduce_kernel<{b}u, {i}u, rocprim::detail::plus<{t}>>(const float*, float*, rocprim::detail::plus<{t}>);")
    for k in ["unsigned int*", "const float*", "std::uint64_t*"]:
        src.append(f"template void rocprim::detail::onesweep_histograms_kernel<rocprim::detail::default_config, {k}, int*, rocprim::detail::plus<int>>({k}, int*, std::size_t*, unsigned, rocprim::detail::plus<int>);")
    calls.append("""{ linalg::Matrix m(1, 2); linalg::Matrix n(m); m += n; (void)m(1, 2); (void)m[3]; (void)(m == n); (void)bool(m);
      std::vector<float> v = m; (void)linalg::Matrix(1, 1).get<int>(); (void)m.get<float>(); (void)linalg::Matrix::identity(2);
      volatile linalg::Matrix* vm = &m; vm->resize(1, 1); (void)(m * n); delete new linalg::Matrix(1, 1); }""")

def family_types(src, calls):
    src.append("""
namespace odd {
typedef float float4_t __attribute__((vector_size(16)));
typedef _Float16 half8_t __attribute__((vector_size(16)));
struct Config { int m, n, k; };
struct alignas(16) Tile { int x; };
KERNEL void vec_kernel(float4_t* a, const half8_t* b, int n) { sink(a); }
KERNEL void fp_kernel(void (*cb)(int, void*), int (*table)[16], float (&arr)[4][4]) { sink(&arr); }
KERNEL void member_ptr_kernel(int Tile::*field, void (Tile::*method)(int) const) { sink(&field); }
KERNEL void misc_kernel(__int128 a, unsigned __int128 b, char8_t c, char16_t d, char32_t e, wchar_t f, std::nullptr_t g, long double h, _Float16 i) { sink(&a); }
KERNEL void variadic_kernel(const char* fmt, ...) { sink(fmt); }
KERNEL void rvalue_kernel(std::vector<float>&& v, std::string&& s, const std::pair<int, float>& p) { sink(&v); }
KERNEL void array_kernel(std::array<int, 4> a, std::array<std::array<float, 3>, 3> m) { sink(&a); }
template <Config C> KERNEL void tile_kernel(const float* a) { sink(a); }
template <auto V> KERNEL void auto_kernel(int n) { sink(&n); }
template <template <class...> class Container, class T> KERNEL void container_kernel(const Container<T>& c) { sink(&c); }
template <class T, std::size_t N> KERNEL void span_kernel(T (&data)[N]) { sink(data); }
template <class T> KERNEL void sizeof_kernel(char (*)[sizeof(T) * 2]) { }
template <class T> KERNEL auto decltype_kernel(T a, T b) -> decltype(a * b + T(1)) { return a * b; }
template <int N> KERNEL void expr_kernel(int (*)[N > 4 ? N : 4]) { }
template <class T> struct Outer { template <class U> struct Inner { template <int K> KERNEL static void nested_kernel(T*, U*) { } }; };
KERNEL void local_types() { struct LocalTile { KERNEL void run() { sink(this); } }; LocalTile{}.run(); }
}""")
    for cfg in ["{128, 128, 32}", "{64, 64, 16}", "{256, 128, 64}", "{32, 32, 8}"]:
        src.append(f"template void odd::tile_kernel<odd::Config{cfg}>(const float*);")
    for v in ["4", "'c'", "true", "16ul", "-3LL", "(short)2"]:
        src.append(f"template void odd::auto_kernel<{v}>(int);")
    for n in [2, 8]:
        src.append(f"template void odd::expr_kernel<{n}>(int (*)[{n} > 4 ? {n} : 4]);")
    calls.append("""{ odd::vec_kernel(nullptr, nullptr, 0); odd::fp_kernel(nullptr, nullptr, *(float(*)[4][4])nullptr); odd::member_ptr_kernel(nullptr, nullptr);
      odd::misc_kernel(0, 0, 0, 0, 0, 0, nullptr, 0, 0); odd::variadic_kernel("x", 1); odd::rvalue_kernel({}, {}, {});
      odd::array_kernel({}, {}); odd::container_kernel(std::vector<float>()); odd::container_kernel(std::vector<c10::Half>());
      float data[12]; odd::span_kernel(data); odd::sizeof_kernel<double>(nullptr); odd::sizeof_kernel<c10::Half>(nullptr);
      odd::decltype_kernel(1, 2); odd::decltype_kernel(1.0f, 2.0f);
      odd::Outer<float>::Inner<int>::nested_kernel<3>(nullptr, nullptr); odd::Outer<c10::Half>::Inner<odd::Tile>::nested_kernel<7>(nullptr, nullptr);
      odd::local_types(); }""")

def compiled_names():
    src, calls = [PREAMBLE], []
    for family in (family_reduce, family_vllm, family_lambdas, family_anon_abi, family_packs, family_ck,
                   family_tensile, family_deep, family_rccl, family_members, family_types):
        family(src, calls)
    src.append("void instantiate_all() {\n" + "\n".join(calls) + "\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        cpp, obj = os.path.join(tmp, "corpus.cpp"), os.path.join(tmp, "corpus.o")
        with open(cpp, "w") as f:
            f.write("\n".join(src))
        subprocess.run([CXX, "-std=c++20", "-O1", "-w", "-c", cpp, "-o", obj], check=True)
        nm = subprocess.run(["nm", "--defined-only", obj], check=True, capture_output=True, text=True).stdout
    names = []
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWw" and parts[2].startswith("_Z"):
            names.append(parts[2])
    return sorted(set(names))

def sn(identifier):
    """An Itanium <source-name>: length, then the identifier."""
    return f"{len(identifier)}{identifier}"

def clang20_names():
    """Template parameter declarations in template arguments (clang >= 17 mangling)."""
    names = []
    # Non-type parameters with explicit types, as in vLLM's kernels: Tn<type><arg>.
    nttp = [("TniLi{v}E", [1024, 4096]), ("TnjLj{v}E", [256, 64]), ("TnbLb{v}E", [0, 1]), ("TnmLm{v}E", [128, 16]),
            ("TnDaLi{v}E", [8, 32]), ("TnKiLi{v}E", [2, 3])]
    # Parameter lists spell T_ out instead of using substitutions (valid, if not minimal).
    kernels = [("4vllm", sn("rms_norm_kernel"), "vPT_PKT_PKT_fii"), ("4vllm", sn("fused_add_rms_norm_kernel"), "vPT_PT_PKT_fii"),
               ("4vllm", sn("rotary_embedding_kernel"), "vPKlPT_PT_PKT_iill"), ("4vllm", sn("reshape_and_cache_flash"), "vPKT_PKT_PT_PT_PKliiii")]
    for (ns, name, params), (pattern, values) in itertools.product(kernels, nttp):
        for scalar in ["f", "N3c104HalfE", "N3c108BFloat16E"][: 1 + len(names) % 3]:
            for v in values:
                names.append(f"_ZN{ns}{name}I{scalar}{pattern.format(v=v)}EE{params}")
    # Function-pointer parameters: Tn<function pointer type> X&fn E.
    for scalar, fn in itertools.product(["f", "N3c104HalfE", "N3c108BFloat16E"], [sn(f) for f in ("silu_kernel", "gelu_kernel", "gelu_tanh_kernel", "gelu_quick_kernel")]):
        names.append(f"_ZN4vllm{sn('act_and_mul_kernel')}I{scalar}TnPFT_RKT_EXadL_ZN4vllm{fn}I{scalar}EET_RKT_EEEEvPT_PKT_i")
        names.append(f"_ZN4vllm{sn('scaled_act_and_mul_kernel')}I{scalar}TnPFfRKfEXadL_ZN4vllm{fn}IfEEfRKfEEEEvPN3c104HalfEPKT_if")
    # Class-type parameters (C++20): Tn<class> tl<class> args E.
    for m, n, k in [(128, 128, 32), (64, 64, 16), (256, 128, 64)]:
        names.append(f"_ZN2ck4tileITnNS_6ConfigEXtlNS_6ConfigELi{m}ELi{n}ELi{k}EEEEEvPKf")
    # Type, template-template and pack parameter declarations, constrained parameters (Tk).
    names += ["_Z12typed_kernelITyfEvPT_", "_Z14template_paramITtTyTyEN3std6vectorEEvv", "_Z11pack_kernelITpTnDaJLi1ELi2ELi3EEEvv",
              "_Z11pack_kernelITpTyJfiEEvv", "_Z18constrained_kernelITk8FloatingfEvPT_", "_Z18constrained_kernelITk8FloatingdEvPT_",
              "_ZN4hipc13launch_boundsITnjLj256ETnjLj2EEEvPFvvE", "_Z12graph_kernelITnDaXadL_Z4stepvEEEvv"]
    return names

def with_suffixes(names):
    out = []
    for i, name in enumerate(names[::7]):
        out.append(name + [".kd", ".cold", ".llvm.%d" % (1234567 + i * 7919), ".isra.0", ".part.1", ".kd"][i % 6])
    return out

def run_filter(tool, names):
    text = subprocess.run([tool], input="\n".join(names) + "\n", check=True, capture_output=True, text=True).stdout
    out = text.split("\n")[: len(names)]
    assert len(out) == len(names), f"{tool} returned {len(out)} lines for {len(names)} names"
    return out

def main():
    base = compiled_names()
    clang = clang20_names()
    names = base + clang + with_suffixes(base + clang)
    names = list(dict.fromkeys(names))
    llvm = run_filter(CXXFILT, names)
    gnu = run_filter(GNU_CXXFILT, names)
    rows, rejected = [], []
    for name, expected, g in zip(names, llvm, gnu):
        (rejected if expected == name else rows).append((name, expected, "1" if g != name else "0"))
    if rejected:
        sys.stderr.write("llvm-cxxfilt-19 rejected %d generated names (dropped):\n%s\n" % (len(rejected), "\n".join(r[0] for r in rejected)))
    with open(OUT, "w") as f:
        f.write("# Generated by tests/names/make_corpus.py; expected column by LLVM 19 llvm-cxxfilt.\n")
        f.write("# mangled\tllvm_cxxfilt_19\tgnu_cxxfilt_demangles\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    only_llvm = sum(1 for r in rows if r[2] == "0")
    print(f"{OUT}: {len(rows)} names ({only_llvm} that GNU c++filt cannot demangle), longest {max(len(r[0]) for r in rows)} bytes")

if __name__ == "__main__":
    main()
