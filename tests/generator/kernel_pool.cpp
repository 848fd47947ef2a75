// The kernel name pool. Mangled names were produced by real compilers (g++/clang) from
// declarations shaped like the libraries' kernels, and their demangled forms by
// /usr/lib/llvm-19/bin/llvm-cxxfilt; tests/generator_tests re-checks both.
#include "kernel_pool.h"

namespace rocpd_gen {
namespace {

constexpr KernelInfo kPool[] = {
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 4000,
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEE"
         "viT0_T1_",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::a"
         "rray<char*, 1ul>>(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 6000,
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIN3c108BFloat16ES4_S"
         "4_NS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_",
        "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat1"
         "6, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>, std::a"
         "rray<char*, 3ul>>(int, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFlo"
         "at16, at::native::binary_internal::MulFunctor<float>>, std::array<char*, 3ul>)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 9000,
        "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_15add_k"
         "ernel_cudaERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE_clEvEUlffE_EEvS4_"
         "RKT_EUliE_EEviT1_",
        "void at::native::elementwise_kernel<128, 2, void at::native::gpu_kernel_impl_nocast<at::"
         "native::add_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::'lambda'()::operat"
         "or()() const::'lambda'()::operator()() const::'lambda'(float, float)>(at::TensorIterator"
         "Base&, at::native::add_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::'lambda"
         "'()::operator()() const::'lambda'()::operator()() const::'lambda'(float, float) const&):"
         ":'lambda'(int)>(int, void at::native::gpu_kernel_impl_nocast<at::native::add_kernel_cuda"
         "(at::TensorIteratorBase&, c10::Scalar const&)::'lambda'()::operator()() const::'lambda'("
         ")::operator()() const::'lambda'(float, float)>(at::TensorIteratorBase&, at::native::add_"
         "kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::'lambda'()::operator()() const"
         "::'lambda'()::operator()() const::'lambda'(float, float) const&)::'lambda'(int))"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 7000,
        "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direc"
         "t_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE0_clEvEUlN3c108BFloat16EE"
         "_EEvS4_RKT_EUliE_EEviT1_",
        "void at::native::elementwise_kernel<128, 2, void at::native::gpu_kernel_impl_nocast<at::"
         "native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::'lambda'()::operator()() const"
         "::'lambda0'()::operator()() const::'lambda'(c10::BFloat16)>(at::TensorIteratorBase&, at:"
         ":native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::'lambda'()::operator()() cons"
         "t::'lambda0'()::operator()() const::'lambda'(c10::BFloat16) const&)::'lambda'(int)>(int,"
         " void at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorI"
         "teratorBase&)::'lambda'()::operator()() const::'lambda0'()::operator()() const::'lambda'"
         "(c10::BFloat16)>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::Tensor"
         "IteratorBase&)::'lambda'()::operator()() const::'lambda0'()::operator()() const::'lambda"
         "'(c10::BFloat16) const&)::'lambda'(int))"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 3000,
        "_ZZN2at6native23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEv",
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::'lambda'()::operator()() c"
         "onst"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 45000,
        "_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelINS1_18TensorListMetadataILi4EEENS"
         "1_11AdamFunctorIfLNS1_9ADAM_MODEE1EEEJfffffbEEEvT_T0_DpT1_",
        "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous"
         " namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::AdamFunctor<float"
         ", (at::native::(anonymous namespace)::ADAM_MODE)1>, float, float, float, float, float, b"
         "ool>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous na"
         "mespace)::AdamFunctor<float, (at::native::(anonymous namespace)::ADAM_MODE)1>, float, fl"
         "oat, float, float, float, bool)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 12000,
        "_ZN2at6native12_GLOBAL__N_120softmax_warp_forwardIN3c104HalfES4_Li10ELb0ELb0EEEvPT0_PKT_"
         "iiiPKbib",
        "void at::native::(anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, 10, f"
         "alse, false>(c10::Half*, c10::Half const*, int, int, int, bool const*, int, bool)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 15000,
        "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfNS0_11sum_fu"
         "nctorIfEEEEjfLi4EEEEEvT1_",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrap"
         "per_t<float, at::native::sum_functor<float>>, unsigned int, float, 4>>(at::native::Reduc"
         "eOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float>>, unsigned i"
         "nt, float, 4>)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 5000,
        "_ZN2at6native27unrolled_elementwise_kernelINS0_14BFloat16CopyOpEN3c108BFloat16EfLi4ENS0_"
         "6memory15LoadWithoutCastENS5_16StoreWithoutCastEEEviT_T0_T1_T3_T4_",
        "void at::native::unrolled_elementwise_kernel<at::native::BFloat16CopyOp, c10::BFloat16, "
         "float, 4, at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast>(int"
         ", at::native::BFloat16CopyOp, c10::BFloat16, float, at::native::memory::LoadWithoutCast,"
         " at::native::memory::StoreWithoutCast)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 11000,
        "_ZN2at6native28vectorized_layer_norm_kernelIN3c108BFloat16EfEEviT0_PKT_S7_S7_PS4_S8_PS5_",
        "void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFl"
         "oat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*"
         ")"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 8000,
        "_ZN4vllm15rms_norm_kernelIN3c108BFloat16EEEvPT_PKS3_S6_fii",
        "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFl"
         "oat16 const*, float, int, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 10000,
        "_ZN4vllm25scaled_act_and_mul_kernelIN3c108BFloat16ETnPFT_RKS3_EXadL_ZNS_11silu_kernelIS2"
         "_EES3_S5_EEEEvPNS1_15Float8_e4m3fnuzEPKS3_PKfi",
        "void vllm::scaled_act_and_mul_kernel<c10::BFloat16, &c10::BFloat16 vllm::silu_kernel<c10"
         "::BFloat16>(c10::BFloat16 const&)>(c10::Float8_e4m3fnuz*, c10::BFloat16 const*, float co"
         "nst*, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 2000,
        "_ZN4vllm16auto_nttp_kernelITnDaLi16EEEvi",
        "void vllm::auto_nttp_kernel<16>(int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 6000,
        "_ZN4vllm24reshape_and_cache_kernelIN3c108BFloat16EhLNS_18Fp8KVCacheDataTypeE1EEEvPKT_S6_"
         "PT0_S8_PKliiiiiPKfSC_",
        "void vllm::reshape_and_cache_kernel<c10::BFloat16, unsigned char, (vllm::Fp8KVCacheDataT"
         "ype)1>(c10::BFloat16 const*, c10::BFloat16 const*, unsigned char*, unsigned char*, long "
         "const*, int, int, int, int, int, float const*, float const*)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 9000,
        "_ZN4vllm3moe17topkGatingSoftmaxILi8ELi8ELi4ELi16EiEEvPKfPKbPfiPT3_Piiii",
        "void vllm::moe::topkGatingSoftmax<8, 8, 4, 16, int>(float const*, bool const*, float*, i"
         "nt, int*, int*, int, int, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 60000,
        "_ZN4vllm26cross_device_reduce_2stageIN3c108BFloat16ELi8EEEvPNS_8RankDataENS_11RankSignal"
         "sEPNS_6SignalEPT_ii",
        "void vllm::cross_device_reduce_2stage<c10::BFloat16, 8>(vllm::RankData*, vllm::RankSigna"
         "ls, vllm::Signal*, c10::BFloat16*, int, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 3000,
        "_ZN4rocm6detail13kernel_launchB5cxx11IfEEvPT_i",
        "void rocm::detail::kernel_launch[abi:cxx11]<float>(float*, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 25000,
        "_ZN7rocprim6detail24device_merge_sort_kernelILb0ENS0_28merge_sort_block_sort_configILj25"
         "6ELj4ELNS0_20block_sort_algorithmE0EEEPlPNS_10empty_typeENS_4lessIlEEEEvT1_SA_T2_SB_jT3_",
        "void rocprim::detail::device_merge_sort_kernel<false, rocprim::detail::merge_sort_block_"
         "sort_config<256u, 4u, (rocprim::detail::block_sort_algorithm)0>, long*, rocprim::empty_t"
         "ype*, rocprim::less<long>>(long*, long*, rocprim::empty_type*, rocprim::empty_type*, uns"
         "igned int, rocprim::less<long>)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 18000,
        "_ZN6hipcub6detail23RadixSortOnesweepKernelINS_15DeviceRadixSortIiiE6PolicyELb0ELb1EiiiEE"
         "vPT2_S6_PKS5_PT3_PKS9_iii",
        "void hipcub::detail::RadixSortOnesweepKernel<hipcub::DeviceRadixSort<int, int>::Policy, "
         "false, true, int, int, int>(int*, int*, int const*, int*, int const*, int, int, int)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 120000,
        "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3ILi256ELi128ELi128E"
         "Li64EEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNumberE2EEEvNT_8ArgumentE",
        "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<256, 128, 128, 64>"
         ", true, (ck::InMemoryDataOperationEnum)0, 1, (ck::TailNumber)2>(ck::GridwiseGemm_xdl_csh"
         "uffle_v3<256, 128, 128, 64>::Argument)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 90000,
        "_Z25paged_attention_ll4mi_QKVIN3c108BFloat16ELi16ELi128ELi256ELi512ELb1EEvPKT_S4_S4_ifPK"
         "iS6_iPKfiiiPfS9_PS2_S6_",
        "void paged_attention_ll4mi_QKV<c10::BFloat16, 16, 128, 256, 512, true>(c10::BFloat16 con"
         "st*, c10::BFloat16 const*, c10::BFloat16 const*, int, float, int const*, int const*, int"
         ", float const*, int, int, int, float*, float*, c10::BFloat16*, int const*)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 150000,
        "_ZN9flash_fwd16flash_fwd_kernelINS_16Flash_fwd_traitsILi128ELi128ELi64ELi4ELb0ELb0EN3c10"
         "8BFloat16EEELb1ELb0ELb0ELb0ELb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE",
        "void flash_fwd::flash_fwd_kernel<flash_fwd::Flash_fwd_traits<128, 128, 64, 4, false, fal"
         "se, c10::BFloat16>, true, false, false, false, true, true, false>(flash_fwd::Flash_fwd_p"
         "arams)"},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 4500,
        "void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, at::det"
         "ail::Array<char*, 2> >(int, at::native::AbsFunctor<float>, at::detail::Array<char*, 2>)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 5500,
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::Bina"
         "ryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::Te"
         "nsorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_int"
         "ernal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at"
         "::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<flo"
         "at> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::nati"
         "ve::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 14000,
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<f"
         "loat, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::na"
         "tive::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 7500,
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128,"
         " 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned"
         " int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, in"
         "t, unsigned int)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 16000,
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::"
         "native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 13000,
        "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::nativ"
         "e::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<"
         "long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBas"
         "e&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::"
         "OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lam"
         "bda(char*, char const*, long)#1} const&)::{lambda(int)#1}>(long, at::native::gpu_index_k"
         "ernel<at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&,"
         " c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::Te"
         "nsorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_im"
         "pl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayR"
         "ef<long>)::{lambda(char*, char const*, long)#1} const&)::{lambda(int)#1})",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 20000,
        "void rocprim::detail::block_reduce_kernel<true, rocprim::detail::wrapped_reduce_config<r"
         "ocprim::default_config, int>, int, int*, int*, int, hipcub::Sum>(int*, unsigned long, in"
         "t*, int, hipcub::Sum)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 9500,
        "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned "
         "int, 1, 4, bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::deta"
         "il::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, u"
         "nsigned int, float, at::PhiloxCudaState)",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 260000,
        "Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_"
         "ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS0_FS"
         "SC10_FL0_GRPM1_GRVW4_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPP128_LPA0_LPB4_LDL1_LRVW2_LW"
         "PMn1_LDW0_MAC_MIAV0_MDA2_MO40_MMFGLC_NTA0_NTB0_NTC0_NTD0_NEPBS1_NLCA1_NLCB1_ONLL1_OPLV0_"
         "PK0_PAP0_PGR2_PLR9_SIA3_SS1_SU0_SUM0_SUS0_SCIUI1_SPO0_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB"
         "0_TT2_32_TLDS1_UMLDSA0_UMLDSB1_USFGROn1_VAW1_VSn1_VW2_WSGRA1_WSGRB1_WS64_WG64_4_1_WGM5",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 180000,
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
         "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSU0_GSUAMB_GLS0_ISA94"
         "2_IU1_K1_LBSPPA2048_LBSPPB2048_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV1_MIWT4_8_MO40_"
         "NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRV"
         "W0_SSO0_SVW8_SK0_SKXCCM0_TLDS1_ULSGRODIA0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB8_WSGRA0_W"
         "SGRB0_WS64_WG32_8_1",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 95000,
        "Cijk_Ailk_Bjlk_HHS_BH_MT64x64x64_MI16x16x4x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM8_AF1EM1_AMA"
         "S3_ASE_ASGT_ASAE01_ASCE01_ASEM8_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRVW8_GSU1_GSUASB_"
         "GLS0_ISA90a_IU1_K1_KLA_LBSPP0_LPA0_LPB0_LDL1_LRVW8_LWPMn1_LDW0_FMA_MIAV0_MDA2_NTA0_NTB0_"
         "NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR1_RK0_SIA1_SS0_SU32_SUM0_SUS25"
         "6_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT2_32_TLDS0_USFGROn1_VAW2_VSn1_VW4_WSGRA0_WSGRB0_WS"
         "64_WG32_4_1_WGM8",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 40000,
        "Cijk_Alik_Bljk_SB_MT64x32x32_MI16x16x4x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS0_A"
         "SE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRPM1_GRVW2_"
         "GSU4_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPP0_LPA0_LPB0_LDL1_LRVW2_LWPMn1_LDW0_FMA_MIAV0_MDA"
         "2_MO40_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR1_SIA1_SS0_SU"
         "32_SUM0_SUS128_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT2_16_TLDS0_USFGROn1_VAW2_VSn1_VW2_WSG"
         "RA0_WSGRB0_WS64_WG32_8_1_WGM1",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 30000,
        "Cijk_Ailk_Bljk_SB_GB_MT32x32x8_SE_K1_PostGSU8_VW1",
        ""},
    {KernelFamily::Tensile, HostApi::HipExtModuleLaunchKernel, 330000,
        "Cijk_Alik_Bljk_F8BS_BH_Bias_SAV_MT256x128x128_MI32x32x16_SN_LDSB1_AFC1_AFEM1_ASEM1_CLR1_"
         "CADS0_EPS0_GRVWA16_GRVWB16_GSU0_GSUAMB_ISA942_IU1_K1_LBSPPA256_LBSPPB128_LPA16_LPB16_LRV"
         "W16_MIAV0_MIWT4_4_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1"
         "_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK0_TLDS1_USL1_UIOFGRO0_USFGROn1_VSn1_VWA4_VWB2_WSGRA0_WS"
         "GRB0_WS64_WG32_8_1",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 220000,
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 400000,
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 150000,
        "ncclDevKernel_AllGather_RING_LL",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 170000,
        "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 80000,
        "ncclDevKernel_SendRecv",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 120000,
        "ncclDevKernel_Broadcast_RING_LL",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 300000,
        "ncclDevKernel_AllReduce_Sum_f16_TREE_LL",
        ""},
    {KernelFamily::Nccl, HostApi::HipLaunchKernel, 60000,
        "ncclDevKernel_Generic_4",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 6000,
        "triton_poi_fused_add_mul_0",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 9000,
        "triton_poi_fused__to_copy_add_mul_silu_1",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 21000,
        "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_2",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 17000,
        "triton_per_fused_native_layer_norm_3",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 70000,
        "triton_tem_fused_mm_4",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 12000,
        "triton_poi_fused_cat_clone_5",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 25000,
        "triton_red_fused__log_softmax_6",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 33000,
        "triton_per_fused__softmax_amax_exp_sub_sum_7",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 5000,
        "triton_poi_fused_embedding_8",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 45000,
        "_attn_fwd",
        ""},
    {KernelFamily::Runtime, HostApi::HipLaunchKernel, 2500,
        "__amd_rocclr_fillBufferAligned",
        ""},
    {KernelFamily::Runtime, HostApi::HipLaunchKernel, 3500,
        "__amd_rocclr_copyBuffer",
        ""},
    {KernelFamily::Runtime, HostApi::HipLaunchKernel, 1500,
        "__amd_rocclr_initHeap",
        ""},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 4000,
        "_ZN7rocprim6detail24device_merge_sort_kernelILb1ENS0_28merge_sort_block_sort_configILj25"
         "6ELj4ELNS0_20block_sort_algorithmE0EEEPlPNS_10empty_typeENS_4lessIlEEEEvT1_SA_T2_SB_jT3_",
        "void rocprim::detail::device_merge_sort_kernel<true, rocprim::detail::merge_sort_block_s"
         "ort_config<256u, 4u, (rocprim::detail::block_sort_algorithm)0>, long*, rocprim::empty_ty"
         "pe*, rocprim::less<long>>(long*, long*, rocprim::empty_type*, rocprim::empty_type*, unsi"
         "gned int, rocprim::less<long>)"},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 8500,
        "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, "
         "long>(long const*, float const*, float*, int, long, int, int)",
        ""},
    {KernelFamily::Demangled, HostApi::HipLaunchKernel, 19000,
        "void at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, float, "
         "float, 512>(at::GenericPackedTensorAccessor<float const, 3, at::RestrictPtrTraits, int>,"
         " float, float, at::GenericPackedTensorAccessor<float, 1, at::RestrictPtrTraits, int>, at"
         "::GenericPackedTensorAccessor<float, 1, at::RestrictPtrTraits, int>)",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 7000,
        "triton_poi_fused_gelu_9",
        ""},
    {KernelFamily::Triton, HostApi::HipModuleLaunchKernel, 16000,
        "triton_red_fused_sum_10",
        ""},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 5000,
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIN3c108BFloat16EEESt5a"
         "rrayIPcLm1EEEEviT0_T1_",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>"
         ", std::array<char*, 1ul>>(int, at::native::FillFunctor<c10::BFloat16>, std::array<char*,"
         " 1ul>)"},
    {KernelFamily::Mangled, HostApi::HipLaunchKernel, 70000,
        "_ZN4vllm26cross_device_reduce_1stageIN3c108BFloat16ELi8EEEvPNS_8RankDataENS_11RankSignal"
         "sEPNS_6SignalEPT_ii",
        "void vllm::cross_device_reduce_1stage<c10::BFloat16, 8>(vllm::RankData*, vllm::RankSigna"
         "ls, vllm::Signal*, c10::BFloat16*, int, int)"},
};

}  // namespace

std::span<const KernelInfo> kernel_pool() { return kPool; }

}  // namespace rocpd_gen
