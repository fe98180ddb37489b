package names

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Real names of the corpus (../shared/traces: the Nsight Systems exports
// of nsys/, the Kineto traces of hta/, rocprofv3 and RPD traces of
// rocprof/, HPCToolkit's LULESH database, Perfetto's nested tracks) and
// the group a person gives them.
var grouped = []struct{ name, group, rule string }{
	// The threads on an Android phone's CPUs (Perfetto sched_switch of a
	// Samsung J5 on Android 9, wellimc/qoe-prediction's
	// trace_file.perfetto-trace: 279 threads, 245 thread names).
	{"RenderThread [3758]", "RenderThread", "thread-id"},
	{"tracebox [14764]", "tracebox", "thread-id"},
	{"kworker/u16:4 [6620]", "kworker", "thread-id,linux-kthread"},
	{"kworker/0:1H [3226]", "kworker", "thread-id,linux-kthread"},
	{"ksoftirqd/2 [19]", "ksoftirqd", "thread-id,linux-kthread"},
	{"mmcqd/0 [1261]", "mmcqd", "thread-id,linux-kthread"},
	{"migration/3", "migration", "linux-kthread"},
	{"Binder:3255_C [3897]", "Binder", "thread-id,android-binder-thread"},
	{"Binder:3255_17 [6164]", "Binder", "thread-id,android-binder-thread"},
	{"HwBinder:2827_1 [3334]", "HwBinder", "thread-id,android-binder-thread"},
	{"AsyncTask #49 [14593]", "AsyncTask", "thread-id,step-number"},
	// PyTorch's NVTX ranges (nsys/h100_2gpu_1s.sqlite, mfu_2gpu_before.sqlite).
	{"aten::copy_, op_id = 998952", "aten::copy_", "pytorch-nvtx"},
	{"aten::to, seq = 47651, op_id = 998952", "aten::to", "pytorch-nvtx"},
	{"FlashAttnFunc, seq = 45368, op_id = 990812", "FlashAttnFunc", "pytorch-nvtx"},
	{"nccl:all_to_all, op_id = 991144", "nccl:all_to_all", "pytorch-nvtx"},
	{"detach_, op_id = 990725", "detach_", "pytorch-nvtx"},
	// With record_shapes, PyTorch adds the sizes and the input ops.
	{"aten::mm, seq = 12, op_id = 40, sizes = [[8, 16], [16, 4]], input_op_ids = [(38, 0), (39, 0)]", "aten::mm", "pytorch-nvtx"},
	{"aten::empty, op_id = 7, sizes = [[]]", "aten::empty", "pytorch-nvtx"},
	// FSDP's hooks name their module.
	{"FSDP::post_forward (blocks.2._checkpoint_wrapped_module), op_id = 990874", "FSDP::post_forward", "pytorch-nvtx,pytorch-module"},
	{"FSDP::pre_forward (encoder.block.14.layer.1), op_id = 314311", "FSDP::pre_forward", "pytorch-nvtx,pytorch-module"},
	// The PyTorch profiler's Python events with the address of the object a
	// built-in method is bound to (TraceLens' SGLang decode trace on MI300,
	// tests/traces/inference/sglang_decode: 55 such names, 12,342 events).
	{"<built-in method append of list object at 0x7ed6fd87c680>", "<built-in method append of list object>", "python-address"},
	{"<built-in method view of Tensor object at 0x7f1951dd2250>", "<built-in method view of Tensor object>", "python-address"},
	{"<built-in method gemm_a16w16 of pybind11_builtins.pybind11_detail_function_record_v1_system_libstdcpp_gxx_abi_1xxx_use_cxx11_abi_1 object at 0x7ed747e44a50>",
		"<built-in method gemm_a16w16 of pybind11_builtins.pybind11_detail_function_record_v1_system_libstdcpp_gxx_abi_1xxx_use_cxx11_abi_1 object>", "python-address"},
	// Python frames of code generated per graph (TraceLens' vLLM traces on
	// MI300, tests/traces/inference: vllm_decode_full's graph capture, 25
	// fx graphs and 3 inductor modules).
	{"<eval_with_key>.50(4): forward", "<eval_with_key>: forward", "python-generated-code"},
	{"<eval_with_key>.2(4): forward", "<eval_with_key>: forward", "python-generated-code"},
	{"/tmp/torchinductor_root/ys/cys3tk2ndpymax7smyj6ciyp4njmsrra3hwe6bdgzttzknlbelul.py(232): call", "<torchinductor>: call", "python-generated-code"},
	{"/tmp/torchinductor_root/ob/cobhwrc24pdghpldxgebph5xuspi6ydi477zebl46iwvbkhoe4qu.py(132): call", "<torchinductor>: call", "python-generated-code"},
	// The PyTorch profiler's module calls (TraceLens' tests/traces: 84 to
	// 1,106 such names in each of the H100 and MI300 traces, e.g. 316
	// in h100/Qwen_Qwen1.5-0.5B-Chat, 1,106 in inference/xdit_sd_3.5).
	{"nn.Module: Linear_12", "nn.Module: Linear", "pytorch-module-instance"},
	{"nn.Module: GptOssForCausalLM_0", "nn.Module: GptOssForCausalLM", "pytorch-module-instance"},
	{"nn.Module: MergedColumnParallelLinear_10", "nn.Module: MergedColumnParallelLinear", "pytorch-module-instance"},
	{"nn.Module: Conv2d_0", "nn.Module: Conv2d", "pytorch-module-instance"},
	// TorchInductor's calls of compiled graphs (TraceLens' vLLM, xDiT and
	// B200 traces: 1 to 3 graphs each, one name per graph).
	{"## Call CompiledFxGraph fp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh ##", "## Call CompiledFxGraph ##", "inductor-graph-call"},
	{"## Call CompiledFxGraph f4ii27ddivzklxr54hd45chngp247rp2ytmjxpq3f55wet4szuh7 ##", "## Call CompiledFxGraph ##", "inductor-graph-call"},
	// vLLM's steps (TraceLens' B200 eager trace; the format of vLLM's model runner).
	{"execute_context_1(888_788544)_generation_0(0)", "execute_context_generation", "vllm-step"},
	{"execute_context_0(0)_generation_32(32)", "execute_context_generation", "vllm-step"},
	// Phylanx's primitives, as APEX traces them in OTF2 (the ALS runs of
	// alex-r-bigelow/otf2-json-converter's test data: 89 instance names of
	// 14 primitives).
	{"/phylanx/access-variable$28$conf/2$49$53::eval", "/phylanx/access-variable::eval", "phylanx-primitive"},
	{"/phylanx/access-variable$62$X/2$64$56::eval", "/phylanx/access-variable::eval", "phylanx-primitive"},
	{"/phylanx/inverse$1/2$66$72::eval", "/phylanx/inverse::eval", "phylanx-primitive"},
	{"/phylanx/__add$9/2$67$38::eval", "/phylanx/__add::eval", "phylanx-primitive"},
	{"/phylanx/define-variable$18$XtX/2$30$20::eval", "/phylanx/define-variable::eval", "phylanx-primitive"},
	// Without a method (not seen in these traces), the primitive alone.
	{"/phylanx/define-variable$18$XtX/2$30$20", "/phylanx/define-variable", "phylanx-primitive"},
	// XLA's instructions in JAX's traces (jax 0.10.2 on CPU, a jitted
	// 6-layer training step: 66 instruction names of 8 kinds).
	{"ynn_fusion.3", "ynn_fusion", "xla-instruction"},
	{"dot.5", "dot", "xla-instruction"},
	{"wrapped_tanh.4", "wrapped_tanh", "xla-instruction"},
	{"multiply_subtract_fusion.1", "multiply_subtract_fusion", "xla-instruction"},
	{"all-reduce-start.12", "all-reduce-start", "xla-instruction"},
	{"end: ynn_fusion.3", "end: ynn_fusion", "xla-instruction"},
	// Names made unique twice (xprof's GPU trace of a JAX program, in a
	// public report of its top kernels; the HLO of TraceLens'
	// tests/traces/mi300/jax_conv_minimal_08 XSpace).
	{"fft.14.0", "fft", "xla-instruction"},
	{"custom-call.160.0", "custom-call", "xla-instruction"},
	{"reduce-scatter.1.1", "reduce-scatter", "xla-instruction"},
	{"erf_inv.58.5", "erf_inv", "xla-instruction"},
	// XLA's annotations as NVTX ranges in Nsight Systems traces of JAX
	// (domain TSL; the forms of XLA's gpu_executable.cc and thunk
	// emitter, and of JAX-Toolbox's nsys-jax test fixtures), and other
	// TraceMe names with their arguments.
	{"XlaModule:#hlo_module=jit_train_step,program_id=7#", "XlaModule: jit_train_step", "traceme-metadata"},
	{"XlaModule:#prefix=jit(train_step)/jit(main),hlo_module=jit_train_step,program_id=12#", "XlaModule: jit_train_step", "traceme-metadata"},
	{"Thunk:#hlo_op=loop_add_fusion.1#", "Thunk: loop_add_fusion", "traceme-metadata"},
	{"Thunk:#hlo_op=custom-call.160.0#", "Thunk: custom-call", "traceme-metadata"},
	{"Thunk:#hlo_op=command_buffer_1#", "Thunk: command_buffer_1", "traceme-metadata"},
	{"XlaCompileBackend:#module=jit_f#", "XlaCompileBackend", "traceme-metadata"},
	{"ExecutorState::Process#id=123,iter_num=0#", "ExecutorState::Process", "traceme-metadata"},
	// JAX-Toolbox's nsys-jax test data (pax_fsdp4_4proc_proc0.zip, its
	// nsys nvtx_pushpop_trace report: 11,455 distinct names in 27,891
	// ranges, 89 groups): a scope name holding commas, an autotuner module
	// named after the instruction it tunes, compiler passes.
	{"Thunk:#name=jit(_psum)/jit(main)/reduce_sum[axes=(0,)],hlo_op=all-reduce-start#", "Thunk: all-reduce-start", "traceme-metadata"},
	{"Thunk:#name=jit(_unstack)/jit(main)/slice[start_indices=(0, 0) limit_indices=(1, 4) strides=(1, 1)],hlo_op=wrapped_slice#",
		"Thunk: wrapped_slice", "traceme-metadata"},
	{"Thunk:#hlo_op=wrapped_slice.1#", "Thunk: wrapped_slice", "traceme-metadata"},
	{"XlaModule:#hlo_module=gemm_fusion_dot.572#", "XlaModule: gemm_fusion_dot", "traceme-metadata"},
	{"XlaPass:#name=algorithm-checker,module=jit__psum,program_id=38#", "XlaPass", "traceme-metadata"},
	// XLA's GPU kernels: the fusion's name with '.' made '_'. On ROCm
	// (TraceLens' jax_conv_minimal_08 on MI300: input_transpose_fusion.kd
	// and input_transpose_fusion_1.kd on each of 8 GPUs; without ".kd" in
	// jax_conv_minimal_legacy) and CUDA (a public report of an Nsight
	// Systems export of a JAX model: loop_add_fusion_4, 313,200 launches).
	{"input_transpose_fusion_1.kd", "input_transpose_fusion.kd", "xla-kernel"},
	{"input_transpose_fusion_1", "input_transpose_fusion", "xla-kernel"},
	{"loop_add_fusion_4", "loop_add_fusion", "xla-kernel"},
	{"input_transpose_fusion_42", "input_transpose_fusion", "xla-kernel"},
	{"gemm_fusion_dot_1", "gemm_fusion_dot", "xla-kernel"},
	{"wrapped_slice_2", "wrapped_slice", "xla-kernel"},
	{"fusion_123", "fusion", "xla-kernel"},
	{"loop_multiply_subtract_fusion_3_1", "loop_multiply_subtract_fusion", "xla-kernel"},
	// Kineto's steps (hta/tests/data/trace_diff/control/control.json.gz).
	{"ProfilerStep#1014", "ProfilerStep", "step-number"},
	{"ProfilerStep#5", "ProfilerStep", "step-number"},
	{"nccl:all_reduce #12", "nccl:all_reduce", "step-number"},
	// Nsight Systems' CUDA API calls (nsys/*.sqlite).
	{"cudaLaunchKernel_v7000", "cudaLaunchKernel", "cuda-api-version"},
	{"cudaEventRecordWithFlags_v11010", "cudaEventRecordWithFlags", "cuda-api-version"},
	{"cudaStreamGetCaptureInfo_v2_v11030", "cudaStreamGetCaptureInfo_v2", "cuda-api-version"},
	// The CUDA runtime's internal functions in HPCToolkit's call stacks
	// (hpctoolkit-db/vectorAdd: 11 of them; hpcviewer's quicksilver test
	// database: 12).
	{"__cudart1041", "__cudart", "cudart-internal"},
	{"__cudart540", "__cudart", "cudart-internal"},
	{"__cudart1330", "__cudart", "cudart-internal"},
	// NCCL kernels (hta, rocprof/rocprofv3-tracelens).
	{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclKernel_AllReduce", "nccl-kernel"},
	{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "ncclKernel_SendRecv", "nccl-kernel"},
	{"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_AllReduce", "nccl-kernel"},
	{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)", "ncclDevKernel_SendRecv", "nccl-kernel"},
	{"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_Generic", "nccl-kernel"},
	// Demangled kernels, folded to Nsight Systems' shortName.
	{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
		"vectorized_elementwise_kernel", "cxx-signature"},
	{"void at::native::vectorized_elementwise_kernel<(int)8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)",
		"vectorized_elementwise_kernel", "cxx-signature"},
	{"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1})",
		"elementwise_kernel", "cxx-signature"},
	{"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
		"softmax_warp_forward", "cxx-signature"},
	{"void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(long)#1}, function_traits<at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(long)#1}>::result_type*)",
		"elementwise_kernel_with_index", "cxx-signature"},
	{"void rocprim::ROCPRIM_400001_NS::detail::transform_kernel<true, rocprim::ROCPRIM_400001_NS::detail::wrapped_transform_config<rocprim::ROCPRIM_400001_NS::default_config, unsigned long>, unsigned long, unsigned long*, int*, rocprim::identity<void> >(unsigned long, unsigned long*, int*, rocprim::identity<void>)",
		"transform_kernel", "cxx-signature"},
	{"void k_bin_bcast<&(op_add(float, float)), float, float, float, float const*>(float const*, float const*, float*, unsigned int)",
		"k_bin_bcast", "cxx-signature"},
	{"scale_f32(float const*, float*, float, float, long)", "scale_f32", "cxx-signature"},
	{"divide_kernel(float*, float const*, float const*, int, int)", "divide_kernel", "cxx-signature"},
	{"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, false, false, 7, cublasGemvParams<cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float>, float> >(cublasGemvParams<cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float>, float>)",
		"kernel", "cxx-signature"},
	// Mangled kernels of ROCm's libraries in Kineto traces on MI300 (TraceLens'
	// tests/traces: inference/sglang_prefilldecode, mi300/resnet_act_checkpoint).
	{"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
		"add_rmsnorm_quant_kernel", "cxx-mangled"},
	{"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
		"act_and_mul_kernel", "cxx-mangled"},
	{"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeEEE",
		"kentry", "cxx-mangled"},
	{"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_34GridwiseGemmMultiD_xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorENS6_11ColumnMajorENS_5TupleIJEEES7_ttftS",
		"kernel_grouped_conv_fwd_xdl_cshuffle_v3", "cxx-mangled"},
	{"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm_bk0mk1_bk0nk1_mn_xdlops_bwd_weightILi64EttftLNS_25InMemoryDataOperationEnumE1E",
		"kernel_batched_gemm_xdlops_bwd_weight", "cxx-mangled"},
	// Forms of the ABI those kernels do not use: a template function at
	// namespace scope, internal linkage, a member of std::.
	{"_Z12scale_kernelIfEvPT_S0_i", "scale_kernel", "cxx-mangled"},
	{"_ZL10add_kernelPfS_i", "add_kernel", "cxx-mangled"},
	{"_ZNSt6vector4pushEv", "push", "cxx-mangled"},
	// PaddlePaddle 3.3.1's profiler (export_chrome_tracing) on a CPU
	// training loop: every event named with its duration, milliseconds
	// above one, microseconds below; its steps numbered too. A GPU kernel
	// as its logger names it (the signature, then the duration).
	{"ProfileStep#3[22.057 ms]", "ProfileStep", "paddle-duration,step-number"},
	{"ProfileStep#7[1123.644 ms]", "ProfileStep", "paddle-duration,step-number"},
	{"gaussian infer_meta[0.166 us]", "gaussian infer_meta", "paddle-duration"},
	{"matmul_grad kernel launch[13.259 us]", "matmul_grad kernel launch", "paddle-duration"},
	{"Global_GradNodeAccumulation[101.932 us]", "Global_GradNodeAccumulation", "paddle-duration"},
	{"adam_ pybind_imperative_func[15.461 us]", "adam_ pybind_imperative_func", "paddle-duration"},
	{"_DataLoaderIterSingleProcess[2.312 ms]", "_DataLoaderIterSingleProcess", "paddle-duration"},
	{"void phi::funcs::VectorizedElementwiseKernel<float, phi::funcs::AddFunctor<float>, 2, 1, 4>(phi::Array<char const* __restrict__, 2>, phi::Array<float*, 1>, long, long, int, phi::funcs::AddFunctor<float>)[4.128 us]",
		"VectorizedElementwiseKernel", "paddle-duration,cxx-signature"},
	// HPCToolkit's LULESH: C++ functions and GCC's outlined OpenMP regions.
	{"CalcEnergyForElems(double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double, double, double, double, double, double, double, int, int*)",
		"CalcEnergyForElems", "cxx-signature"},
	{"IntegrateStressForElems(Domain&, double*, double*, double*, double*, int, int) [clone ._omp_fn.0]", "IntegrateStressForElems", "cxx-signature"},
	{"Domain::~Domain()", "~Domain", "cxx-signature"},
}

// Names that must stay apart: distinct calls, kernels whose names differ
// by real arguments (tile sizes, generated indices), names that only look
// numbered.
var apart = []string{
	// Near misses of PaddlePaddle's durations: no decimals, two or four,
	// another unit, no space, nothing before, a memory event.
	"a[12 ms]", "a[1.23 ms]", "a[1.2345 us]", "a[1.234 s]", "a[1.234ms]", "[1.234 ms]", "a[x.234 ms]",
	"a[1.2x4 us]", "a[.234 us]", "a[1.234 us] ", "[memory]", "x[1,234 ms]",
	// Thread names and near misses of their ids and kinds.
	"[3758]", "RenderThread [37a]", "RenderThread []", "buffer[3]", "jbd2/dm-1-8", "irq/45-msm_dsi",
	"kworker/R-rcu_g", "Kernel/3", "/usr/bin/x/3", "kworker/", "kworker/1:", "kworker/1:x", "a b/1",
	"phase/1", "solve/0", "gpu/0", "x/1:2", "layer_norm/3",
	// Another producer's names of the thread-id form: not a thread's
	// name (GroupThread), distinct things.
	"Block [0]", "Layer [3]", "Block [1]", "Stage [12]",
	"Binder:3255", "Binder:x_1", "Binder:3255_", "HwBinder:2827_G", "MyBinder:1_2",
	"MPI_Send", "MPI_Sendrecv", "MPI_Isend", "PMPI_Init",
	"ampere_sgemm_128x64_nn", "ampere_sgemm_32x128_nn", "ampere_sgemm_32x32_sliced1x4_nt",
	"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
	"Cijk_Ailk_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0",
	"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", "nvjet_tst_96x64_64x10_1x2_h_bz_bias_TNN",
	"triton_poi_fused_add_cos_sin_0", "triton_poi_fused_add_cos_sin_1", "triton__0d1d2d", "triton__0d1d2d3d",
	"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", "cudaStreamGetCaptureInfo_v2", "cudaGraphLaunch_v2",
	"custom_v1000",
	"Optimizer.step#FusedAdam.step", "## forward:over_arch ##", "## wait_sparse_data_dist 0 ##",
	"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0",
	"Memcpy HtoD (Pinned -> Device)", "Memcpy DtoD", "cudaLaunchKernel", "aten::add", "c10d::allreduce_",
	"main.main.func3", "body1", "region1", "__pgi_uacc_cuda_launch3 [libaccdevice.so]",
	"<unknown procedure> 0x1f0d0 [libnvidia-ptxjitcompiler.so.525.85.12]", "predictor_executor::run gif_thread_id:12",
	"Compute (phase 1)", "Compute(A)", "iteration(3)", "42", "#3", "Slice#", "ncclKernel_",
	"<built-in method kineto_available of PyCapsule object>", "<built-in function isinstance>",
	"_Z", "_Zero", "_Z0x", "_Z9short", "_ZN3foo", "_ZNK3FooC1Ev", "_ZN3FooplERKS_", "_ZN1aS_1bEv",
	"<built-in method at 0xfeed of x>", "<object at 0x>", "<object at 0xzz>", "thread at 0x10>",
	// Python frames of ordinary files, and near misses of generated ones.
	"torch/nn/modules/module.py(1501): _call_impl", "<eval_with_key>(4): forward", "<eval_with_key>.x(4): forward",
	"<eval_with_key>.5(4): ", "<eval_with_key>.5: forward",
	"/tmp/torchinductor_root/ys/cys3tk2ndpymax7smyj6ciyp4njmsrra3hwe6bdgzttzknlbelu.py(232): call",
	"/tmp/torchinductor_root/ab/cys3tk2ndpymax7smyj6ciyp4njmsrra3hwe6bdgzttzknlbelul.py(232): call",
	"/tmp/torchinductor_root/ys/cys3tk2ndpymax7smyj6ciyp4njmsrra3hwe6bdgzttzknlbeLul.py(232): call",
	"ys/cys3tk2ndpymax7smyj6ciyp4njmsrra3hwe6bdgzttzknlbelul.py(232): call",
	"execute_context_1(888)", "execute_context_x(1)_generation_0(0)", "execute_context_1(888)_generation_0(0)x",
	"execute_context_1()_generation_0(0)", "execute_context_1(_)_generation_0(0)",
	// Near misses of module calls and compiled graph calls.
	"nn.Module: Linear", "nn.Module: Linear_", "nn.Module: Linear_x1", "nn.Module: _3", "nn.Module: a.b_3", "Module: Linear_3",
	"## Call CompiledFxGraph ##", "## Call CompiledFxGraph fp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6l ##",
	"## Call CompiledFxGraph gp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh ##",
	"## Call CompiledFxGraph fP5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh ##",
	"## Call CompiledFxGraph fp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh",
	// Near misses of XLA's instruction names.
	"python3.11", "libc.so.6", "Dot.5", "dot.", "dot.5a", ".5", "_dot.5", "dot 5", "v8.run", "end: dot.5x", "end: ", "end: end: dot.5",
	"python3.11.4", "libcuda.so.1.1", "v1.2.3", "1.2.3", "x..1",
	// Near misses of XLA's kernel names: other producers' numbered
	// kernels (TorchInductor's "fused", above), a kernel descriptor alone.
	"loop_add_fusion", "input_transpose_fusion.kd", "__amd_rocclr_copyBuffer.kd", "confusion_2", "_fusion_1",
	"Loop_add_fusion_4", "loop-add_fusion_4", "loop_add_fusion_", "loop_add_fusion_4x", "wrapped__2", "wrapped_2",
	"fusion_", "fusion_1.kd.kd", "#k=v#", "x#K=v#", "x#k v#", "x#=v#", "a#b#", "Choreographer#doFrame#", "x#k=v# ",
	"XlaModule:#,hlo_module=x#", "XlaModule:#Hlo_module=x#", "my_kernel_2", "loop_add_fusion_4.kd ",
	// Near misses of the CUDA runtime's internal names.
	"__cudart", "__cudart_builtin", "__cudart12a", "__cudartGetExportTable", "cudart540",
	// Phylanx's HPX actions, and near misses of its primitives' names.
	"phylanx_primitive_eval_action", "/phylanx/access-variable", "/phylanx/access-variable$28$conf/2$49::eval",
	"/phylanx/access-variable$x/2$49$53::eval", "/phylanx/$1/2$49$53::eval", "/phylanx/a b$1/2$49$53::eval",
	"/phylanx/inverse$1/2$66$7x::eval", "/phylanx/inverse$1", "/other/inverse$1/2$66$72::eval",
}

func TestGroupRealNames(t *testing.T) {
	for _, c := range grouped {
		// The threads on CPUs are grouped as their reader marks them
		// (trace.RoleScheduledThread), the other names as they are.
		explain := Explain
		if strings.HasPrefix(c.rule, "thread-id") {
			explain = ExplainThread
		}
		g, rules := explain(c.name)
		if g != c.group {
			t.Errorf("Group(%.60q) = %q, want %q", c.name, g, c.group)
		}
		if got := joined(rules); got != c.rule {
			t.Errorf("Explain(%.60q) rules %q, want %q", c.name, got, c.rule)
		}
		if again := Group(g); again != g {
			t.Errorf("Group(%q) = %q: a group is its own group", g, again)
		}
	}
}

func TestApart(t *testing.T) {
	for _, n := range apart {
		if g, rules := Explain(n); g != n {
			t.Errorf("Group(%q) = %q by %v, want the name itself", n, g, rules)
		}
	}
}

// TestThreadIDForThreadsOnly: "<name> [<number>]" groups by name for the
// values that name a thread running on a CPU (GroupThread, as the
// Perfetto reader marks them), never for another producer's names;
// near misses of a thread id stay apart even as threads' names.
func TestThreadIDForThreadsOnly(t *testing.T) {
	for name, want := range map[string]string{
		"Block [0]": "Block", "Layer [3]": "Layer", "RenderThread [3758]": "RenderThread",
		"kworker/u16:4 [6620]": "kworker", "Binder:3255_C [3897]": "Binder",
	} {
		if g := GroupThread(name); g != want {
			t.Errorf("GroupThread(%q) = %q, want %q", name, g, want)
		}
		if g := GroupOf(name, true); g != want {
			t.Errorf("GroupOf(%q, true) = %q, want %q", name, g, want)
		}
		if g, want := GroupOf(name, false), Group(name); g != want {
			t.Errorf("GroupOf(%q, false) = %q, Group %q", name, g, want)
		}
		if g, rules := Explain(name); slices.Contains(rules, "thread-id") {
			t.Errorf("Explain(%q) = %q by %v: thread-id applies to threads only", name, g, rules)
		}
	}
	for _, n := range []string{"Block [0]", "Layer [3]", "RenderThread [3758]", "tracebox [14764]"} {
		if g := Group(n); g != n {
			t.Errorf("Group(%q) = %q, want the name itself", n, g)
		}
	}
	for _, n := range []string{"[3758]", "RenderThread [37a]", "RenderThread []", "buffer[3]", "Block [-1]", "Block [0] "} {
		if g := GroupThread(n); g != n {
			t.Errorf("GroupThread(%q) = %q, want the name itself", n, g)
		}
	}
	// In a set of values: the threads' names grouped, the others not.
	all := []string{"Block [0]", "Block [0]", "Block [1]", "RenderThread [3758]", "RenderThread [4410]"}
	types := []string{"Slice", "Running", "Slice", "Running", "Running"}
	thread := []bool{false, true, false, true, true}
	want := []string{"Block [0]", "Block", "Block [1]", "RenderThread", "RenderThread"}
	if got := GroupsOf(all, types, thread); !slices.Equal(got, want) {
		t.Errorf("GroupsOf = %q, want %q", got, want)
	}
	if got := GroupsOf(all, types, nil); !slices.Equal(got, all) {
		t.Errorf("GroupsOf without threads = %q, want the names", got)
	}
	if got := PossibleGroups("Block [0]", "Running", true); !slices.Equal(got, []string{"Block"}) {
		t.Errorf("PossibleGroups of a thread = %q", got)
	}
	if got := PossibleGroups("Block [0]", "Slice", false); !slices.Equal(got, []string{"Block [0]"}) {
		t.Errorf("PossibleGroups of a slice = %q", got)
	}
}

// The rules' own examples are what they say (those that need many
// names, among more than ManyInstances like them).
func TestRuleExamples(t *testing.T) {
	for _, r := range Rules {
		if r.many {
			set := []string{r.Example}
			for i := range ManyInstances {
				set = append(set, fmt.Sprintf("%s %d", r.Grouped, i))
			}
			if g := Groups(set)[0]; g != r.Grouped {
				t.Errorf("rule %s: Groups of %q and others = %q, want %q", r.Name, r.Example, g, r.Grouped)
			}
			continue
		}
		explain := Explain
		if r.thread {
			explain = ExplainThread
		}
		g, rules := explain(r.Example)
		if g != r.Grouped || !slices.Contains(rules, r.Name) {
			t.Errorf("rule %s: Explain(%.50q) = %q by %v, want %q", r.Name, r.Example, g, rules, r.Grouped)
		}
	}
}

// TestGroupsNumberedInstances: a number after a space counts instances
// when many names differ by it alone: Perfetto's nested tracks
// (perfetto/nested_tracks.perfetto-trace: 1,364 slices named "L0 Slice
// 0" to "L3 Slice ..."), Android's frames; a few numbered names
// ("phase 1", the 10 "state 00k" of a table) are distinct things.
func TestGroupsNumberedInstances(t *testing.T) {
	var set, want []string
	for level := range 4 {
		for k := range 341 {
			set = append(set, fmt.Sprintf("L%d Slice %d", level, k*4+level))
			want = append(want, fmt.Sprintf("L%d Slice", level))
		}
	}
	for k := range 30 {
		set = append(set, fmt.Sprintf("Choreographer#doFrame %d", 1234567+k*16))
		want = append(want, "Choreographer#doFrame")
	}
	for k := range 10 {
		set = append(set, fmt.Sprintf("state %03d", k))
		want = append(want, fmt.Sprintf("state %03d", k))
	}
	few := []string{"phase 1", "phase 2", "MPI_Send", "ProfilerStep#7", "aten::mm, op_id = 3"}
	set = append(set, few...)
	want = append(want, "phase 1", "phase 2", "MPI_Send", "ProfilerStep", "aten::mm")
	if got := Groups(set); !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("Groups: %q is %q, want %q", set[i], got[i], want[i])
			}
		}
	}
	// Group alone leaves them: it sees one name.
	if g := Group("L3 Slice 17"); g != "L3 Slice 17" {
		t.Errorf("Group(L3 Slice 17) = %q", g)
	}
}

func TestDomain(t *testing.T) {
	for name, want := range map[string]string{
		"aten::copy_, op_id = 998952": "aten",
		"aten::copy_":                 "aten",
		"c10d::allreduce_":            "c10d",
		"FSDP::pre_forward (blocks.3._checkpoint_wrapped_module)": "FSDP",
		"nccl:all_to_all": "nccl",
		"autograd::engine::evaluate_function: MulBackward0": "autograd",
		"MPI_Send":         "MPI",
		"PMPI_Sendrecv":    "MPI",
		"cudaLaunchKernel": "CUDA",
		"cuLaunchKernel":   "CUDA",
		"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1": "cuDNN",
		"ncclSend":                  "NCCL",
		"ncclDevKernel_SendRecv":    "NCCL",
		"hipLaunchKernel":           "HIP",
		"hsa_signal_wait_scacquire": "HSA",
		"GOMP_parallel":             "OpenMP",
		"pthread_mutex_lock":        "pthread",
		"Memcpy HtoD":               "Memcpy",
		// No domain: the caller falls back to the category or the type.
		"vectorized_elementwise_kernel":               "",
		"void at::native::reduce_kernel<512, 1>(int)": "",
		"ProfilerStep#5":                              "",
		"cusparse":                                    "",
		"custom_op":                                   "",
		"12::x":                                       "",
		"":                                            "",
	} {
		if got := Domain(name); got != want {
			t.Errorf("Domain(%q) = %q, want %q", name, got, want)
		}
	}
}

func joined(rules []string) string {
	out := ""
	for i, r := range rules {
		if i > 0 {
			out += ","
		}
		out += r
	}
	return out
}

func FuzzGroup(f *testing.F) {
	for _, c := range grouped {
		f.Add(c.name)
	}
	for _, n := range apart {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		g := Group(name)
		if name != "" && g == "" {
			t.Fatalf("Group(%q) is empty", name)
		}
		if len(g) > len(name) {
			t.Fatalf("Group(%q) = %q is longer than the name", name, g)
		}
		_ = Domain(name)
	})
}

// TestMangledAsDemangled: a mangled name groups as c++filt's demangling of
// it does (by cxx-signature), for the mangled kernels above that c++filt
// demangles.
func TestMangledAsDemangled(t *testing.T) {
	cxxfilt, err := exec.LookPath("c++filt")
	if err != nil {
		t.Skip("c++filt (binutils) is not installed")
	}
	checked := 0
	for _, c := range grouped {
		if c.rule != "cxx-mangled" {
			continue
		}
		out, err := exec.Command(cxxfilt, c.name).Output()
		demangled := strings.TrimSpace(string(out))
		if err != nil || demangled == c.name {
			continue // beyond c++filt (hipcc's DF16b, a cut name)
		}
		checked++
		if g, want := Group(c.name), Group(demangled); g != want {
			t.Errorf("Group(%.50q) = %q, but its demangling %.60q groups as %q", c.name, g, demangled, want)
		}
	}
	if checked < 3 {
		t.Errorf("c++filt demangled %d of the names, want at least 3", checked)
	}
}

// TestGroupsOfNumberIDs: names that are a number alone (Perfetto's frame
// timeline slices, named by the frame's token: 1,720 of them in an
// Android 13 trace of nowinandroid) group under their type's name when
// more than ManyInstances of one type are such numbers; a few numbered
// names of a type stay apart, and so do names with more than a number.
func TestGroupsOfNumberIDs(t *testing.T) {
	var all, types, want []string
	for i := range ManyInstances + 1 {
		all = append(all, strconv.Itoa(154408112+i*31))
		types = append(types, "Frame")
		want = append(want, "Frame")
	}
	all = append(all, "-7", "Choreographer#doFrame 154408112", "1", "2", "154408112", "12a")
	types = append(types, "Frame", "Frame", "Atrace slice", "Atrace slice", "Atrace slice", "Frame")
	want = append(want, "Frame", "Choreographer#doFrame 154408112", "1", "2", "154408112", "12a")
	if got := GroupsOf(all, types, nil); !slices.Equal(got, want) {
		t.Errorf("GroupsOf = %q,\nwant %q", got, want)
	}
	// ManyInstances numbers alone are not many.
	if got := GroupsOf(all[:ManyInstances], types[:ManyInstances], nil); !slices.Equal(got, all[:ManyInstances]) {
		t.Errorf("GroupsOf of %d numbers = %q, want them apart", ManyInstances, got)
	}
	// A value without a type's name keeps its number.
	if got := GroupsOf(all[:ManyInstances+1], make([]string, ManyInstances+1), nil); !slices.Equal(got, all[:ManyInstances+1]) {
		t.Errorf("GroupsOf without types = %q, want the names", got)
	}
}

// PossibleGroups gives every group GroupsOf may give a name, whatever the other
// names of the trace: with enough of them (more than ManyInstances), the
// group GroupsOf gives is the last.
func TestPossibleGroups(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		want      []string
	}{
		{"MPI_Send", "State", []string{"MPI_Send"}},
		{"L5 Slice 17", "Slice", []string{"L5 Slice 17", "L5 Slice"}},
		{"aten::to, seq = 47651, op_id = 998952", "NVTX", []string{"aten::to"}},
		{"154408112", "Frame", []string{"154408112", "Frame"}},
		{"-7", "Frame", []string{"-7", "Frame"}},
		{"12a", "Frame", []string{"12a"}},
	} {
		if got := PossibleGroups(c.name, c.typ, false); !slices.Equal(got, c.want) {
			t.Errorf("PossibleGroups(%q, %q) = %q, want %q", c.name, c.typ, got, c.want)
		}
		// With many names alike, GroupsOf gives the last.
		var all, types []string
		for k := range ManyInstances + 1 {
			all, types = append(all, strings.Replace(c.name, "17", fmt.Sprint(100+k), 1)), append(types, c.typ)
		}
		if c.name == "154408112" || c.name == "-7" {
			for k := range all {
				all[k] = fmt.Sprint(k * 3)
			}
		}
		if g := GroupsOf(all, types, nil); !slices.Contains(PossibleGroups(all[0], c.typ, false), g[0]) || g[0] != PossibleGroups(all[0], c.typ, false)[len(PossibleGroups(all[0], c.typ, false))-1] {
			t.Errorf("GroupsOf gives %q for %q, PossibleGroups %q", g[0], all[0], PossibleGroups(all[0], c.typ, false))
		}
	}
}
