// rocpd_display_name's rules (docs/names.md, "Display names") on hand-picked names. Digests were
// computed independently (FNV-1a 64 of the input bytes in Python, low 24 bits; see names_test.py,
// which recomputes them for every name it checks).
#include <gtest/gtest.h>

#include <string>

#include "names/display_name.h"

using rocpd::names::display_digest;
using rocpd::names::display_name;
using rocpd::names::kDisplayNameMax;

TEST(NamesDisplayName, TensileKeepsProblemTypeMacroTileAndMatrixInstruction) {
  // Tensile's getNameMin: problem type, MT<M>x<N>x<DepthU>, MI..., "SN", then the tuning parameters.
  EXPECT_EQ(display_name("Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_GSU2"),
            "Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1~206726");
  // hipBLASLt (TensileLite): the problem type's flags (beta/HPA, bias, activation, scaling, UserArgs)
  // are kept in order while the result fits in 60 bytes; MT and MI always are.
  EXPECT_EQ(display_name("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_GSU1_WG64_4_1"),
            "Cijk_Alik_Bljk_BBS_BH_Bias_HA_MT256x256x64_MI16x16x1~27513b");
  EXPECT_EQ(display_name("Cijk_Alik_Bljk_F8BS_BH_Bias_SAV_MT256x128x64_MI16x16x1"),
            "Cijk_Alik_Bljk_F8BS_BH_Bias_SAV_MT256x128x64_MI16x16x1");
  // No matrix instruction (a non-MFMA kernel): cut after the macro tile.
  EXPECT_EQ(display_name("Cijk_Ailk_Bljk_HB_MT64x64x8_SE_K1_TT4_4"), "Cijk_Ailk_Bljk_HB_MT64x64x8~" +
                                                                         display_digest("Cijk_Ailk_Bljk_HB_MT64x64x8_SE_K1_TT4_4"));
  // Nothing after MI: nothing dropped, no digest.
  EXPECT_EQ(display_name("Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1"), "Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1");
  // Tensile-like without a macro tile: plain text.
  EXPECT_EQ(display_name("Cijk_Ailk_Bljk_SB_custom"), "Cijk_Ailk_Bljk_SB_custom");
}

TEST(NamesDisplayName, TwoSolutionsThatDifferOnlyInTuningDiffer) {
  const std::string a = display_name("Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_GSU1_WG32_8_1");
  const std::string b = display_name("Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_GSU2_WG32_8_1");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, a.find('~')), b.substr(0, b.find('~')));
}

TEST(NamesDisplayName, CppKeepsBaseNameAndCompactTemplateArguments) {
  EXPECT_EQ(display_name("_Z4gemmPKfS0_Pfi"), "gemm");
  EXPECT_EQ(display_name("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, int> >"
                         "(at::native::ReduceOp<float, int>)"),
            "reduce_kernel<512,1,ReduceOp<float,int>>");
  EXPECT_EQ(display_name("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>"
                         "(float*, int)"),
            "CatArrayBatchedCopy<float,unsigned int,1,128,1>");
  // Mangled and demangled spellings of one kernel display alike.
  EXPECT_EQ(display_name("_ZN4vllm15rms_norm_kernelIfTniLi1024EEEvPT_PKT_PKT_fii"),
            display_name("void vllm::rms_norm_kernel<float, 1024>(float*, float const*, float const*, float, int, int)"));
  EXPECT_EQ(display_name("_ZN4vllm15rms_norm_kernelIfTniLi1024EEEvPT_PKT_PKT_fii"), "rms_norm_kernel<float,1024>");
  // Tracer suffixes go.
  EXPECT_EQ(display_name("_Z4gemmPKfS0_Pfi.kd"), "gemm");
}

TEST(NamesDisplayName, LongNamesAreCutWithADigest) {
  const std::string x(100, 'x');
  EXPECT_EQ(display_name(x), std::string(53, 'x') + "~411035");
  const std::string shown = display_name(
      "void at::native::legacy::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::BinaryFunctor<"
      "double, double, double, at::native::binary_internal::DivFunctor<double> > >(at::TensorIteratorBase&, "
      "at::native::BinaryFunctor<double, double, double, at::native::binary_internal::DivFunctor<double> > const&)"
      "::{lambda(int)#4}>(int, at::native::BinaryFunctor<double, double, double, at::native::binary_internal::"
      "DivFunctor<double> >)");
  EXPECT_EQ(shown.size(), kDisplayNameMax);
  EXPECT_TRUE(shown.starts_with("elementwise_kernel<128,4,gpu_kernel_impl<BinaryFunct"));
  EXPECT_EQ(shown[kDisplayNameMax - 7], '~');
}

TEST(NamesDisplayName, Utf8IsNeverSplit) {
  std::string name(52, 'a');
  name += "\xC3\xA9";  // é across the cut at byte 53
  name += std::string(20, 'b');
  const std::string shown = display_name(name);
  EXPECT_EQ(shown, std::string(52, 'a') + "~" + display_digest(name));
}

TEST(NamesDisplayName, ShortPlainNamesComeBackUnchanged) {
  EXPECT_EQ(display_name(""), "");
  EXPECT_EQ(display_name("relu"), "relu");
  EXPECT_EQ(display_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_EQ(display_name("CopyHostToDevice"), "CopyHostToDevice");
}

TEST(NamesDisplayName, PytorchCallSuffixesAreLeftOut) {
  // NVTX / record_function names of PyTorch operators carry a sequence number and an op id per call.
  EXPECT_EQ(display_name("aten::to, op_id = 317177"), display_name("aten::to"));
  EXPECT_EQ(display_name("aten::addmm, seq = 12, op_id = 13, sizes = [[2, 3], [3, 4]]"), display_name("aten::addmm"));
  EXPECT_EQ(display_name("ProfilerStep#3, op_id = 5"), "ProfilerStep#3");
  EXPECT_EQ(display_name("matmul, seq = 7"), "matmul");
  // Only a number after the key makes it PyTorch's.
  EXPECT_EQ(display_name("f, seq = x"), "f, seq = x");
  EXPECT_EQ(display_name("g, op_id = "), "g, op_id = ");
  // A suffix with no operator before it is the whole name (found by fuzz_kernel_short_name: the
  // display name came out empty).
  EXPECT_EQ(display_name(", seq = 25"), ", seq = 25");
  EXPECT_EQ(display_name(", op_id = 3, seq = 4"), ", op_id = 3, seq = 4");
}
