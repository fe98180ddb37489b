// Package names groups the names of states and events as a person reading
// a profile would: the instances of one thing that a producer numbers or
// annotates one by one become one name, and nothing else does.
//
// Profilers write per-instance ids into names: PyTorch's NVTX ranges carry
// their operator's sequence number and id ("aten::copy_, op_id = 998952"),
// Kineto numbers its steps ("ProfilerStep#5"), Android and Perfetto tracks
// their frames ("Choreographer#doFrame 1234"), and GPU profilers spell out
// every template argument and parameter of a kernel's demangled signature,
// which Nsight Systems and rocprofv3 themselves fold to the function's
// base name (Nsight's shortName, rocprofv3's --truncate-kernels). Left as
// they are, a 0.3 s training step has 18,000 "states".
//
// Group applies the rules of Rules, a small table, each written for one
// producer's habit and tested on real names of the corpus and on names it
// must leave apart (MPI_Send and MPI_Sendrecv, kernels whose names differ
// by a tile size: ampere_sgemm_128x64_nn, ampere_sgemm_32x128_nn). Domain
// names the library or namespace a name belongs to (aten, NCCL, MPI,
// CUDA), a coarser grouping between names and types.
package names

import (
	"strconv"
	"strings"
)

// Rule is one way of grouping names: a producer's habit.
type Rule struct {
	// Name identifies the rule (in documentation and tests).
	Name string
	// Doc says whose names the rule groups and why.
	Doc string
	// Example is a real name the rule groups, and Grouped its group.
	Example, Grouped string
	// apply returns the group of name and true, or false when the rule
	// does not apply.
	apply func(name string) (string, bool)
	// many: the rule groups names only when more than ManyInstances of
	// a set group alike by it (Groups); Group alone does not apply it.
	many bool
	// thread: the rule groups the names of threads only (GroupThread:
	// the values of a CPU's scheduling slices, which their reader marks
	// trace.RoleScheduledThread). Its form, "<name> [<number>]", is
	// also another producer's name for distinct things ("Block [0]",
	// "Layer [3]"), which Group leaves apart.
	thread bool
}

// ManyInstances is the number of names differing by a trailing number
// alone past which the number counts instances rather than naming
// distinct things: more than a figure colours apart.
const ManyInstances = 20

// Rules are the rules Group applies, in this order, each to the result
// of the one before.
var Rules = []Rule{
	{
		Name: "thread-id",
		Doc: "a CPU's scheduling slices (Perfetto's sched_switch) are valued by the thread that runs, " +
			"\"<thread name> [<tid>]\" as Perfetto's UI labels them: one group per thread name, as " +
			"the UI's aggregation by thread name gives, the id kept in the raw name. Only for the values " +
			"their reader marks as threads (GroupThread): another producer's \"Block [0]\" stays apart",
		Example: "RenderThread [3758]", Grouped: "RenderThread",
		apply:  threadID,
		thread: true,
	},
	{
		Name: "linux-kthread",
		Doc: "Linux names its per-CPU kernel threads and its workqueue workers after the CPU or pool " +
			"and the worker (kworker/1:0, kworker/u16:4, ksoftirqd/2, migration/3): one group per kind",
		Example: "kworker/u16:4", Grouped: "kworker",
		apply: linuxKthread,
	},
	{
		Name: "android-binder-thread",
		Doc: "Android names the threads of a process's binder pool after the process id and their " +
			"number (Binder:3255_5, HwBinder:2827_1, binder:1234_A): one group per pool kind",
		Example: "HwBinder:2827_1", Grouped: "HwBinder",
		apply: androidBinderThread,
	},
	{
		Name: "paddle-duration",
		Doc: "PaddlePaddle's profiler (paddle.profiler, export_chrome_tracing) names every event after " +
			"its own duration, \"<name>[<d> ms]\" above a millisecond and \"<name>[<d> us]\" below, " +
			"three decimals (its chrometracing_logger): the duration is cut, the time stays the event's",
		Example: "matmul_grad kernel launch[12.345 us]", Grouped: "matmul_grad kernel launch",
		apply: paddleDuration,
	},
	{
		Name: "pytorch-nvtx",
		Doc: "PyTorch's NVTX ranges (torch.autograd.profiler.emit_nvtx, seen in Nsight Systems) append the " +
			"operator's sequence number, id, input sizes and input ids to its name",
		Example: "aten::to, seq = 47651, op_id = 998952", Grouped: "aten::to",
		apply: pytorchNVTX,
	},
	{
		Name: "pytorch-module",
		Doc: "PyTorch's FSDP names its hooks after the module they run on, in parentheses after the " +
			"qualified function: a namespaced function followed by a space and a parenthesised argument " +
			"keeps the function",
		Example: "FSDP::pre_forward (blocks.3._checkpoint_wrapped_module)", Grouped: "FSDP::pre_forward",
		apply: namespacedCall,
	},
	{
		Name: "python-address",
		Doc: "the PyTorch profiler's Python events (with_stack) name a built-in method by CPython's repr of " +
			"the object it is bound to, whose address differs from one object to the next",
		Example: "<built-in method append of list object at 0x7ed6fd87c680>", Grouped: "<built-in method append of list object>",
		apply: pythonAddress,
	},
	{
		Name: "python-generated-code",
		Doc: "the PyTorch profiler's Python events (with_stack) name a frame file(line): function; the code " +
			"torch.fx and TorchInductor generate is a new file for every graph, numbered " +
			"(<eval_with_key>.50) or named by its hash (/tmp/torchinductor_root/ys/cys3tk....py): " +
			"one group per generator and function, as a person names the graphs' calls",
		Example: "<eval_with_key>.50(4): forward", Grouped: "<eval_with_key>: forward",
		apply: pythonGeneratedCode,
	},
	{
		Name: "pytorch-module-instance",
		Doc: "the PyTorch profiler's Python events (with_stack) name each call of a module " +
			"\"nn.Module: <class>_<n>\", n numbering the instances of the class: one group per class",
		Example: "nn.Module: Linear_12", Grouped: "nn.Module: Linear",
		apply: pytorchModuleInstance,
	},
	{
		Name: "inductor-graph-call",
		Doc: "TorchInductor names each call of a compiled graph after the graph's cache key " +
			"(\"## Call CompiledFxGraph f<51 letters or digits> ##\"), new with every graph compiled: " +
			"one group for the calls of compiled graphs",
		Example: "## Call CompiledFxGraph fp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh ##",
		Grouped: "## Call CompiledFxGraph ##",
		apply:   inductorGraphCall,
	},
	{
		Name: "vllm-step",
		Doc: "vLLM names each step of its model runner after the number of requests and tokens it " +
			"batches, prefill (context) and decode (generation): one group for every step",
		Example: "execute_context_1(888)_generation_0(0)", Grouped: "execute_context_generation",
		apply: vllmStep,
	},
	{
		Name: "phylanx-primitive",
		Doc: "Phylanx (an array toolkit on HPX, traced by APEX) names each instance of a primitive after " +
			"its sequence number, the variable it reads and its place in the compiled code " +
			"(/phylanx/<primitive>$<sequence>[$<variable>]/<locality>$<line>$<column>): one group per " +
			"primitive and method",
		Example: "/phylanx/access-variable$28$conf/2$49$53::eval", Grouped: "/phylanx/access-variable::eval",
		apply: phylanxPrimitive,
	},
	{
		Name: "xla-instruction",
		Doc: "XLA names the instructions of a compiled program (HLO) by their opcode or fusion kind and a " +
			"number that makes each name unique in the program (dot.5, ynn_fusion.3, all-reduce.12), as " +
			"JAX's and TensorFlow's traces show them: one group per opcode or fusion kind, as aten::mm is " +
			"one name for every matrix product of a PyTorch program",
		Example: "multiply_add_fusion.4", Grouped: "multiply_add_fusion",
		apply: xlaInstruction,
	},
	{
		Name: "traceme-metadata",
		Doc: "TensorFlow's and XLA's profiler annotations (TraceMe, ScopedAnnotation) encode their arguments " +
			"in the name, \"NAME#key=value,...#\", which the TensorFlow profiler shows as NAME with arguments; " +
			"as NVTX ranges (Nsight Systems traces of JAX, domain TSL) they stay in the name: XLA's " +
			"\"XlaModule:#hlo_module=jit_step,program_id=7#\" and \"Thunk:#hlo_op=loop_add_fusion.1#\", one " +
			"per compiled program and instruction. One group per NAME, XLA's with their module or " +
			"instruction's kind",
		Example: "XlaModule:#hlo_module=jit_train_step,program_id=7#", Grouped: "XlaModule: jit_train_step",
		apply: traceMeMetadata,
	},
	{
		Name: "xla-kernel",
		Doc: "XLA's GPU kernels are named after their fusion with '.' and '-' made '_' (LLVM function names), " +
			"so the number that makes a fusion's name unique becomes \"_N\" (loop_add_fusion_4, " +
			"input_transpose_fusion_1.kd on ROCm, wrapped_slice_2, gemm_fusion_dot_1); XLA names a fusion " +
			"after its kind and hero ops (loop_add_fusion): one group per fusion name, as the fusion's " +
			"instructions group (xla-instruction)",
		Example: "input_transpose_fusion_42", Grouped: "input_transpose_fusion",
		apply: xlaKernel,
	},
	{
		Name:    "step-number",
		Doc:     "a number after '#' at the end of a name counts instances: Kineto's steps",
		Example: "ProfilerStep#1014", Grouped: "ProfilerStep",
		apply: stepNumber,
	},
	{
		Name: "instance-number",
		Doc: "a number after a space at the end of a name counts instances when many names differ by it " +
			"alone (more than ManyInstances): Android's frames, Perfetto's numbered slices; a few " +
			"(\"phase 1\", \"phase 2\") name distinct things",
		Example: "Choreographer#doFrame 1234567", Grouped: "Choreographer#doFrame",
		apply: spaceNumber,
		many:  true,
	},
	{
		Name: "cuda-api-version",
		Doc: "Nsight Systems' exports name CUDA API calls with the version that introduced their entry " +
			"point (_v3020: CUDA 3.2), which its own reports (cuda_api_sum) cut",
		Example: "cudaLaunchKernel_v7000", Grouped: "cudaLaunchKernel",
		apply: cudaAPIVersion,
	},
	{
		Name: "cudart-internal",
		Doc: "the CUDA runtime's internal functions, named by number in its library (__cudart1041), " +
			"appear in sampled call stacks (HPCToolkit's) under the API call that runs them: one group",
		Example: "__cudart1041", Grouped: "__cudart",
		apply: cudartInternal,
	},
	{
		Name: "nccl-kernel",
		Doc: "NCCL's kernels are named after the collective, then its reduction, data type, algorithm " +
			"and protocol: they group by collective",
		Example: "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", Grouped: "ncclKernel_AllReduce",
		apply: ncclKernel,
	},
	{
		Name: "cxx-signature",
		Doc: "a demangled C++ signature (GPU kernels of Kineto, rocprof and HPCToolkit) folds to the " +
			"function's base name, without return type, namespaces, template arguments, parameters or " +
			"compiler clones, as Nsight Systems' shortName and rocprofv3's --truncate-kernels do",
		Example: "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, " +
			"std::array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2>)",
		Grouped: "vectorized_elementwise_kernel",
		apply:   cxxSignature,
	},
	{
		Name: "cxx-mangled",
		Doc: "a mangled C++ name (the GPU kernels of ROCm's libraries in Kineto and rocprof traces: " +
			"Composable Kernel, aiter) folds to the function's base name, as its demangled signature does",
		Example: "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
		Grouped: "add_rmsnorm_quant_kernel",
		apply:   cxxMangled,
	},
}

// Group returns the group of a state's or event's name: the name a person
// would give all its instances. Names no rule applies to are their own
// group. The rules that need to see the other names (a trailing number
// after a space) do not apply: see Groups. Nor do the rules of threads'
// names: see GroupThread.
func Group(name string) string {
	g, _ := explain(name, false)
	return g
}

// GroupThread is Group for a value that names a thread running on a CPU
// (trace.RoleScheduledThread: "<thread name> [<tid>]"): the rules of
// threads' names apply too, first.
func GroupThread(name string) string {
	g, _ := explain(name, true)
	return g
}

// GroupOf is GroupThread when thread is true, Group otherwise.
func GroupOf(name string, thread bool) string {
	g, _ := explain(name, thread)
	return g
}

// Explain returns the group of name and the names of the rules that made
// it, in order (none when the name is its own group), as Group.
func Explain(name string) (group string, rules []string) { return explain(name, false) }

// ExplainThread is Explain as GroupThread groups.
func ExplainThread(name string) (group string, rules []string) { return explain(name, true) }

func explain(name string, thread bool) (group string, rules []string) {
	group = name
	for _, r := range Rules {
		if r.many || r.thread && !thread {
			continue
		}
		if g, ok := r.apply(group); ok && g != "" && g != group {
			group = g
			rules = append(rules, r.Name)
		}
	}
	return group, rules
}

// Groups returns the group of each of a set of names (the values of a
// trace): Group's, then the rules that need the others, such as a
// trailing number after a space, which counts instances only when more
// than ManyInstances names differ by it alone.
func Groups(all []string) []string { return groups(all, nil) }

// groups is Groups, GroupThread's for the names all[i] whose thread[i]
// is true (thread may be nil: none).
func groups(all []string, thread []bool) []string {
	out := make([]string, len(all))
	type key struct {
		name   string
		thread bool
	}
	memo := make(map[key]string, len(all))
	for i, n := range all {
		k := key{n, thread != nil && thread[i]}
		g, ok := memo[k]
		if !ok {
			g = GroupOf(n, k.thread)
			memo[k] = g
		}
		out[i] = g
	}
	for _, r := range Rules {
		if !r.many {
			continue
		}
		// The distinct names each candidate group would gather.
		variants := map[string]map[string]bool{}
		for _, g := range out {
			if base, ok := r.apply(g); ok && base != "" {
				if variants[base] == nil {
					variants[base] = map[string]bool{}
				}
				variants[base][g] = true
			}
		}
		for i, g := range out {
			if base, ok := r.apply(g); ok && len(variants[base]) > ManyInstances {
				out[i] = base
			}
		}
	}
	return out
}

// GroupsOf is Groups for the values of types: typeOf[i] names the type
// of all[i], and thread[i] tells whether all[i] names a thread running
// on a CPU (trace.RoleScheduledThread), grouped as GroupThread does
// (thread may be nil: no name is a thread's). Beside Groups' rules, a name that is a number alone (an id:
// Perfetto's frame timeline slices, which the trace processor names by
// the frame's token) groups under its type's name when more than
// ManyInstances distinct names of that type are numbers alone: the
// number tells one instance from the next, the type what they are. A
// few numbered names of a type (a process's "1", "2") stay apart.
func GroupsOf(all, typeOf []string, thread []bool) []string {
	out := groups(all, thread)
	ids := map[string]map[string]bool{} // the distinct numbers of each type
	for i, g := range out {
		if isNumber(g) {
			if ids[typeOf[i]] == nil {
				ids[typeOf[i]] = map[string]bool{}
			}
			ids[typeOf[i]][g] = true
		}
	}
	for i, g := range out {
		if typeOf[i] != "" && isNumber(g) && len(ids[typeOf[i]]) > ManyInstances {
			out[i] = typeOf[i]
		}
	}
	return out
}

// PossibleGroups returns the groups a name of a value of type typ may take
// among the other names of its trace (GroupsOf): its group (GroupOf, thread
// as GroupsOf's), then
// the groups that need the others, which GroupsOf gives it only when the
// trace has more than ManyInstances names alike: the base a rule of many
// instances leaves (a trailing number after a space: "L5 Slice" of "L5
// Slice 17") and, for a number alone, typ ("Frame" of a frame's token).
// A name asked for by its group as the legend shows it (busy=["Frame"])
// is found among them while the trace streams, before its other names
// are known.
func PossibleGroups(name, typ string, thread bool) []string {
	g := GroupOf(name, thread)
	out := []string{g}
	for _, r := range Rules {
		if !r.many {
			continue
		}
		if base, ok := r.apply(g); ok && base != "" && base != g {
			g = base
			out = append(out, g)
		}
	}
	if typ != "" && isNumber(g) && typ != g {
		out = append(out, typ)
	}
	return out
}

// isNumber reports whether s is an integer alone, its sign allowed.
func isNumber(s string) bool { return allDigits(strings.TrimPrefix(s, "-")) }

// threadID drops the thread id in brackets after a thread's name:
// "RenderThread [3758]".
func threadID(name string) (string, bool) {
	open := strings.LastIndex(name, " [")
	if open <= 0 || !strings.HasSuffix(name, "]") || !allDigits(name[open+2:len(name)-1]) {
		return "", false
	}
	return name[:open], true
}

// linuxKthread keeps the kind of a Linux kernel thread named per CPU or
// worker pool, "<kind>/<cpu>" or "<kind>/[u]<pool>:<worker>[H]". Only the
// kernel's own kinds (kthreadKinds): "phase/1" or "gpu/0" in another
// producer's names are things a person tells apart.
func linuxKthread(name string) (string, bool) {
	kind, rest, ok := strings.Cut(name, "/")
	if !ok || !kthreadKinds[kind] {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "u")
	pool, worker, hasWorker := strings.Cut(rest, ":")
	if !allDigits(pool) {
		return "", false
	}
	if hasWorker && !allDigits(strings.TrimSuffix(worker, "H")) {
		return "", false
	}
	return kind, true
}

// kthreadKinds are the kernel threads Linux starts per CPU (smpboot's
// threads, RCU's offload threads), its workqueues' workers and its
// per-device queue threads (mmcqd/0, kdmflush/253:0: the device's numbers).
var kthreadKinds = map[string]bool{
	"kworker": true, "ksoftirqd": true, "migration": true, "cpuhp": true, "watchdog": true,
	"idle_inject": true, "rcuc": true, "rcuop": true, "rcuos": true, "rcuob": true, "rcuog": true,
	"rcuos_exp": true, "irq_work": true, "mmcqd": true, "kdmflush": true,
}

// androidBinderThread keeps the pool kind of an Android binder thread,
// "<Binder|HwBinder|binder|hwbinder>:<pid>_<hex number>".
func androidBinderThread(name string) (string, bool) {
	kind, rest, ok := strings.Cut(name, ":")
	if !ok {
		return "", false
	}
	switch kind {
	case "Binder", "HwBinder", "binder", "hwbinder":
	default:
		return "", false
	}
	pid, n, ok := strings.Cut(rest, "_")
	if !ok || !allDigits(pid) || n == "" || strings.Trim(n, "0123456789abcdefABCDEF") != "" {
		return "", false
	}
	return kind, true
}

// pytorchNVTX cuts a name at the first of the fields PyTorch's NVTX
// ranges append (torch/csrc/profiler/util.cpp, getNvtxStr): ", seq = N",
// ", op_id = N", ", sizes = [...]", ", input_op_ids = [...]".
func pytorchNVTX(name string) (string, bool) {
	for i := strings.Index(name, ", "); i > 0; {
		rest := name[i+2:]
		for _, field := range [...]string{"seq = ", "op_id = "} {
			if v, ok := strings.CutPrefix(rest, field); ok && leadingInt(v) {
				return name[:i], true
			}
		}
		if strings.HasPrefix(rest, "sizes = [") || strings.HasPrefix(rest, "input_op_ids = [") {
			return name[:i], true
		}
		j := strings.Index(rest, ", ")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return "", false
}

// namespacedCall drops the parenthesised argument after a namespaced
// function's name: "FSDP::post_forward (encoder.block.14.layer.0)".
func namespacedCall(name string) (string, bool) {
	i := strings.Index(name, " (")
	if i <= 0 || !strings.HasSuffix(name, ")") || matchingOpen(name, len(name)-1) != i+1 {
		return "", false
	}
	fn := name[:i]
	parts := strings.Split(fn, "::")
	if len(parts) < 2 {
		return "", false
	}
	for _, p := range parts {
		if !isIdentifier(p) {
			return "", false
		}
	}
	return fn, true
}

// pythonAddress drops the address CPython's repr writes at the end of an
// object's description: "<built-in method view of Tensor object at
// 0x7f1951dd2250>" is "<built-in method view of Tensor object>".
func pythonAddress(name string) (string, bool) {
	if !strings.HasPrefix(name, "<") || !strings.HasSuffix(name, ">") {
		return "", false
	}
	i := strings.LastIndex(name, " at 0x")
	if i <= 0 {
		return "", false
	}
	hex := name[i+len(" at 0x") : len(name)-1]
	if hex == "" || strings.TrimLeft(hex, "0123456789abcdefABCDEF") != "" {
		return "", false
	}
	return name[:i] + ">", true
}

// pythonGeneratedCode groups the frames of code generated per graph,
// "FILE(LINE): FUNCTION" with FILE torch.fx's "<eval_with_key>.N" or a
// TorchInductor module (its cache's "xy/cxy....py": "c" and 51 letters
// or digits of a hash whose first two name its directory, whatever the
// cache's place), as "<eval_with_key>: FUNCTION" and
// "<torchinductor>: FUNCTION": the line is the generated file's, not a
// place in the user's code.
func pythonGeneratedCode(name string) (string, bool) {
	sep := strings.LastIndex(name, "): ")
	if sep < 0 {
		return "", false
	}
	open := strings.LastIndexByte(name[:sep], '(')
	if open <= 0 || !allDigits(name[open+1:sep]) {
		return "", false
	}
	file, function := name[:open], name[sep+len("): "):]
	if function == "" {
		return "", false
	}
	if n, ok := strings.CutPrefix(file, "<eval_with_key>."); ok && allDigits(n) {
		return "<eval_with_key>: " + function, true
	}
	if inductorModule(file) {
		return "<torchinductor>: " + function, true
	}
	return "", false
}

// inductorModule reports whether path names a module of TorchInductor's
// cache: DIR/xy/cxy<49 more>.py, of lower-case letters and digits.
func inductorModule(path string) bool {
	base, ok := strings.CutSuffix(path, ".py")
	if !ok {
		return false
	}
	slash := strings.LastIndexByte(base, '/')
	if slash < 3 || base[slash-3] != '/' {
		return false
	}
	hash, dir := base[slash+1:], base[slash-2:slash]
	if len(hash) != 52 || hash[0] != 'c' || hash[1:3] != dir {
		return false
	}
	for i := 1; i < len(hash); i++ {
		if c := hash[i]; !isDigit(c) && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// pytorchModuleInstance drops the instance number of a module's call in
// the PyTorch profiler's Python events: "nn.Module: Linear_12" is
// "nn.Module: Linear" (the class a name of letters, digits and '_').
func pytorchModuleInstance(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "nn.Module: ")
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '_')
	if i <= 0 || !allDigits(rest[i+1:]) || !isIdentifier(rest[:i]) {
		return "", false
	}
	return "nn.Module: " + rest[:i], true
}

// inductorGraphCall groups TorchInductor's calls of compiled graphs,
// "## Call CompiledFxGraph KEY ##", KEY the graph's cache key: "f" and 51
// lower-case letters or digits (a base32 hash).
func inductorGraphCall(name string) (string, bool) {
	key, ok := strings.CutPrefix(name, "## Call CompiledFxGraph ")
	if !ok {
		return "", false
	}
	if key, ok = strings.CutSuffix(key, " ##"); !ok || len(key) != 52 || key[0] != 'f' {
		return "", false
	}
	for i := 1; i < len(key); i++ {
		if c := key[i]; !isDigit(c) && (c < 'a' || c > 'z') {
			return "", false
		}
	}
	return "## Call CompiledFxGraph ##", true
}

// xlaInstruction drops the number XLA's name uniquer appends to an HLO
// instruction's name: "dot.5" is "dot". The name is lower-case letters,
// digits, '_' and '-', starting with a letter and not ending with a digit
// (so "python3.11" stays), then '.' and digits; "end: dot.5" is "end: dot".
func xlaInstruction(name string) (string, bool) {
	// JAX's traces on CPU (jax 0.10) hold, beside each instruction's
	// slice, a short slice "end: NAME": grouped alike.
	prefix := ""
	if rest, ok := strings.CutPrefix(name, "end: "); ok {
		prefix, name = "end: ", rest
	}
	// A name cloned or made unique again gets another number:
	// "fft.14.0", "reduce-scatter.1.1" (xprof's trace of JAX on GPU).
	base := trimNumbers(name, '.')
	if base == name || base == "" {
		return "", false
	}
	if c := base[0]; c < 'a' || c > 'z' || isDigit(base[len(base)-1]) {
		return "", false
	}
	for i := 0; i < len(base); i++ {
		if c := base[i]; !(c >= 'a' && c <= 'z' || isDigit(c) || c == '_' || c == '-') {
			return "", false
		}
	}
	return prefix + base, true
}

// traceMeMetadata drops the arguments TraceMeEncode (tsl/profiler/lib/
// traceme_encode.h) writes after a name, "NAME#key=value,key=value#",
// each key a lower-case identifier. XLA's module and instruction
// annotations keep what names them: "XlaModule: <hlo_module>",
// "Thunk: <hlo_op's kind>" (xla-instruction, xla-kernel).
func traceMeMetadata(name string) (string, bool) {
	if !strings.HasSuffix(name, "#") {
		return "", false
	}
	open := strings.IndexByte(name, '#')
	if open <= 0 || open == len(name)-1 {
		return "", false
	}
	base := strings.TrimSpace(name[:open])
	args, ok := traceMeArgs(name[open+1 : len(name)-1])
	label := strings.TrimSuffix(base, ":")
	if !ok || label == "" {
		return "", false
	}
	switch {
	case label == "XlaModule" && args["hlo_module"] != "":
		// The autotuner's modules are named after the instruction they
		// tune (gemm_fusion_dot.261).
		return label + ": " + xlaKind(args["hlo_module"]), true
	case label == "Thunk" && args["hlo_op"] != "":
		return label + ": " + xlaKind(args["hlo_op"]), true
	}
	return label, true
}

// traceMeArgs reads TraceMeEncode's "key=value,key=value": a value runs
// to the next comma followed by a key and '=' (JAX's scope names hold
// commas: "reduce_sum[axes=(0, 1)]"), each key a lower-case identifier.
func traceMeArgs(s string) (map[string]string, bool) {
	args := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || !isArgKey(s[:eq]) {
			return nil, false
		}
		key, rest := s[:eq], s[eq+1:]
		end := len(rest)
		for i := 0; i < len(rest); i++ {
			if rest[i] != ',' {
				continue
			}
			if j := strings.IndexByte(rest[i+1:], '='); j > 0 && isArgKey(rest[i+1:i+1+j]) {
				end = i
				break
			}
		}
		args[key] = rest[:end]
		s = strings.TrimPrefix(rest[end:], ",")
	}
	return args, len(args) > 0
}

// isArgKey reports whether s is a TraceMe argument's key: a lower-case
// identifier.
func isArgKey(s string) bool { return isIdentifier(s) && strings.ToLower(s) == s }

// xlaKind is an XLA instruction's name without its instance number
// (xla-instruction, or xla-kernel for a kernel's name).
func xlaKind(op string) string {
	if g, ok := xlaInstruction(op); ok {
		return g
	}
	if g, ok := xlaKernel(op); ok {
		return g
	}
	return op
}

// trimNumbers drops the numbers that follow sep at the end of name, as
// many as there are: "fft.14.0" is "fft" ('.'), "loop_add_fusion_4_1"
// is "loop_add_fusion" ('_').
func trimNumbers(name string, sep byte) string {
	for {
		i := strings.LastIndexByte(name, sep)
		if i < 0 || !allDigits(name[i+1:]) {
			return name
		}
		name = name[:i]
	}
}

// xlaKernel drops the "_N" of an XLA GPU kernel's name, its fusion's
// instruction name made an LLVM function name (llvm_ir's
// SanitizeFunctionName turns '.' and '-' into '_'): a name of lower-case
// letters, digits and '_' whose base ends in "fusion" (XLA's
// RenameFusions names a fusion "<kind>_<heroes>_fusion", older XLA
// "fusion") or starts with "wrapped_" (a single instruction wrapped
// into a fusion) or "gemm_fusion_" (a dot emitted by Triton). ROCm's
// kernel descriptor suffix ".kd" stays: the first instance, unnumbered,
// is "input_transpose_fusion.kd".
func xlaKernel(name string) (string, bool) {
	s, kd := strings.CutSuffix(name, ".kd")
	base := trimNumbers(s, '_')
	if base == s || base == "" || base[0] < 'a' || base[0] > 'z' || base[len(base)-1] == '_' || isDigit(base[len(base)-1]) {
		return "", false
	}
	for i := 0; i < len(base); i++ {
		if c := base[i]; !(c >= 'a' && c <= 'z' || isDigit(c) || c == '_') {
			return "", false
		}
	}
	if !(base == "fusion" || strings.HasSuffix(base, "_fusion") ||
		strings.HasPrefix(base, "wrapped_") || strings.HasPrefix(base, "gemm_fusion_")) {
		return "", false
	}
	if kd {
		base += ".kd"
	}
	return base, true
}

// vllmStep groups vLLM's names of its steps,
// "execute_context_N(T)_generation_M(U)" (the requests and tokens of the
// step; the counts may carry '_' between digits).
func vllmStep(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "execute_context_")
	if !ok {
		return "", false
	}
	rest, ok = countAndTokens(rest)
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutPrefix(rest, "_generation_"); !ok {
		return "", false
	}
	if rest, ok = countAndTokens(rest); !ok || rest != "" {
		return "", false
	}
	return "execute_context_generation", true
}

// phylanxPrimitive keeps the primitive and method of a Phylanx primitive
// instance's name: /phylanx/<primitive>$<sequence>[$<variable>]/
// <locality>$<line>$<column>[::<method>], each number digits, the
// primitive a name of letters, digits, '_' and '-'.
func phylanxPrimitive(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "/phylanx/")
	if !ok {
		return "", false
	}
	dollar := strings.IndexByte(rest, '$')
	if dollar < 1 || !isPrimitiveName(rest[:dollar]) {
		return "", false
	}
	primitive, rest := rest[:dollar], rest[dollar+1:]
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return "", false
	}
	instance, place := rest[:slash], rest[slash+1:]
	sequence, _, _ := strings.Cut(instance, "$") // the variable, if any, may be any name
	place, method, hasMethod := strings.Cut(place, "::")
	numbers := strings.Split(place, "$")
	if !allDigits(sequence) || len(numbers) != 3 || !allDigits(numbers[0]) || !allDigits(numbers[1]) || !allDigits(numbers[2]) {
		return "", false
	}
	if !hasMethod {
		return "/phylanx/" + primitive, true
	}
	return "/phylanx/" + primitive + "::" + method, true
}

// isPrimitiveName tells whether s is a Phylanx primitive's name: letters,
// digits, '_' and '-'.
func isPrimitiveName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// countAndTokens reads "N(T)" at the start of s, N digits and T digits and
// underscores, and returns what follows.
func countAndTokens(s string) (string, bool) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == 0 || n == len(s) || s[n] != '(' {
		return "", false
	}
	end := strings.IndexByte(s[n:], ')')
	if end < 2 {
		return "", false
	}
	tokens := s[n+1 : n+end]
	if strings.Trim(tokens, "0123456789_") != "" || !isDigit(tokens[0]) {
		return "", false
	}
	return s[n+end+1:], true
}

// allDigits reports whether s is one or more decimal digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// leadingInt reports whether s is an integer (its sign allowed), alone or
// followed by a comma.
func leadingInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n > 0 && (n == len(s) || s[n] == ',')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// trailingNumber splits a name ending in digits after sep from them:
// the part before sep, right-trimmed of spaces.
func trailingNumber(name string, sep byte) (string, bool) {
	n := len(name)
	i := n
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	if i == n || i == 0 || name[i-1] != sep {
		return "", false
	}
	base := strings.TrimRight(name[:i-1], " ")
	return base, base != "" && !strings.HasSuffix(base, "#")
}

// stepNumber drops a trailing "#N" or " #N".
func stepNumber(name string) (string, bool) { return trailingNumber(name, '#') }

// paddleDuration cuts the "[d.ddd ms]" or "[d.ddd us]" PaddlePaddle's
// profiler appends to every event's name: digits, a point, exactly three
// decimals (its "%.3f"), a space and the unit.
func paddleDuration(name string) (string, bool) {
	if !strings.HasSuffix(name, " ms]") && !strings.HasSuffix(name, " us]") {
		return "", false
	}
	open := strings.LastIndexByte(name, '[')
	if open < 1 {
		return "", false
	}
	num := name[open+1 : len(name)-len(" ms]")]
	dot := len(num) - 4
	if dot < 1 || num[dot] != '.' || !allDigits(num[:dot]) || !allDigits(num[dot+1:]) {
		return "", false
	}
	return name[:open], true
}

// spaceNumber drops a trailing " N".
func spaceNumber(name string) (string, bool) { return trailingNumber(name, ' ') }

// cudaAPIVersion cuts the "_vNNNN" (four or five digits, a CUDA version)
// Nsight Systems appends to the CUDA API functions it records.
func cudaAPIVersion(name string) (string, bool) {
	if Domain(name) != "CUDA" {
		return "", false
	}
	i := strings.LastIndex(name, "_v")
	if i <= 2 {
		return "", false
	}
	digits := name[i+2:]
	if len(digits) < 4 || len(digits) > 5 || !allDigits(digits) {
		return "", false
	}
	return name[:i], true
}

// cudartInternal groups the CUDA runtime's numbered internal functions:
// __cudart followed by digits alone.
func cudartInternal(name string) (string, bool) {
	digits, ok := strings.CutPrefix(name, "__cudart")
	if !ok || digits == "" || !allDigits(digits) {
		return "", false
	}
	return "__cudart", true
}

// ncclKernel keeps the collective of an NCCL kernel's name:
// ncclDevKernel_AllReduce_Sum_f32_RING_LL(...) is ncclDevKernel_AllReduce.
func ncclKernel(name string) (string, bool) {
	for _, prefix := range [...]string{"ncclDevKernel_", "ncclKernel_"} {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		end := strings.IndexAny(rest, "_(")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 || !isIdentifier(rest[:end]) {
			return "", false
		}
		return prefix + rest[:end], true
	}
	return "", false
}

// cxxMangled folds a name mangled as the Itanium C++ ABI says (GCC,
// Clang, hipcc) to the function's base name: the last name of its
// (possibly nested) name, before its template arguments or parameters.
// "_ZN7ck_tile6kentryILi2E...": ck_tile::kentry<2, ...>, kentry. Only the
// prefix of the name up to the function's own name is read: namespaces
// and classes (numbered source names, "St" for std::), so a name with
// anything else there (constructors, operators, substitutions) stays as
// it is.
func cxxMangled(name string) (string, bool) {
	s, ok := strings.CutPrefix(name, "_Z")
	if !ok {
		return "", false
	}
	s = strings.TrimPrefix(s, "L") // internal linkage
	nested := strings.HasPrefix(s, "N")
	if nested {
		s = strings.TrimLeft(s[1:], "rVK") // the method's cv-qualifiers
		s = strings.TrimLeft(s, "RO")      // and ref-qualifier
		s = strings.TrimPrefix(s, "St")    // std::
	}
	base := ""
	for s != "" && isDigit(s[0]) {
		n := 0
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		size, err := strconv.Atoi(s[:n])
		if err != nil || size == 0 || n+size > len(s) {
			return "", false
		}
		base, s = s[n:n+size], s[n+size:]
		if !nested {
			break
		}
	}
	if !isIdentifier(base) {
		return "", false
	}
	if nested && (s == "" || s[0] != 'I' && s[0] != 'E') {
		return "", false // a component read no further: a substitution, an operator
	}
	return base, true
}

// cxxSignature folds a demangled C++ function signature to the function's
// base name. It applies only to names that read as a signature: a
// parameter list closing the name, right after the function's name or its
// template arguments, and either template arguments, a return type, a
// qualified name or parameters that are C++ types. So "Compute (phase 1)"
// and "Compute(A)" stay as they are.
func cxxSignature(name string) (string, bool) {
	s := name
	// GCC's clones (outlined OpenMP regions, constant propagation) are
	// the function's: "f(int) [clone ._omp_fn.0]".
	for strings.HasSuffix(s, "]") {
		i := strings.LastIndex(s, " [clone .")
		if i < 0 {
			break
		}
		s = s[:i]
	}
	s = strings.TrimSuffix(strings.ReplaceAll(s, "->", ""), " const")
	if !strings.HasSuffix(s, ")") {
		return "", false
	}
	open := matchingOpen(s, len(s)-1)
	if open <= 0 {
		return "", false
	}
	params := s[open+1 : len(s)-1]
	head := s[:open]
	last := head[len(head)-1]
	if last != '>' && !isIdentByte(last) {
		return "", false
	}
	templated := strings.ContainsRune(head, '<')
	head, ok := dropGroups(head)
	if !ok || strings.Contains(head, "operator") {
		return "", false
	}
	head = strings.TrimSpace(head)
	qualified := head
	returns := false
	if i := strings.LastIndexByte(head, ' '); i >= 0 {
		qualified, returns = head[i+1:], true
	}
	base := qualified
	if i := strings.LastIndex(qualified, "::"); i >= 0 {
		base = qualified[i+2:]
	}
	if !isIdentifier(strings.TrimPrefix(base, "~")) {
		return "", false
	}
	if !templated && !returns && !strings.Contains(qualified, "::") && !typeList(params) {
		return "", false
	}
	return base, true
}

// matchingOpen returns the index of the '(' that the ')' at close
// closes, or -1.
func matchingOpen(s string, close int) int {
	depth := 0
	for i := close; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// dropGroups removes template arguments (<...>), lambdas and anonymous
// namespaces ({...}, (...)) from the head of a signature; false when
// they do not balance.
func dropGroups(s string) (string, bool) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<', '{', '(':
			depth++
		case '>', '}', ')':
			depth--
			if depth < 0 {
				return "", false
			}
		default:
			if depth == 0 {
				b.WriteByte(c)
			}
		}
	}
	if depth != 0 {
		return "", false
	}
	// "at::native::(anonymous namespace)::f" left "at::native::::f".
	return strings.ReplaceAll(b.String(), "::::", "::"), true
}

// cTypeWords are the words that tell a parameter list of C++ types.
var cTypeWords = map[string]bool{
	"void": true, "bool": true, "char": true, "short": true, "int": true, "long": true, "float": true,
	"double": true, "unsigned": true, "signed": true, "const": true, "size_t": true, "half": true,
}

// typeList reports whether params reads as a list of C++ parameter types:
// empty, or holding pointers, references, qualified or templated types,
// or builtin type names.
func typeList(params string) bool {
	p := strings.TrimSpace(params)
	if p == "" || strings.ContainsAny(p, "*&<") || strings.Contains(p, "::") {
		return true
	}
	for _, w := range strings.FieldsFunc(p, func(r rune) bool { return r == ' ' || r == ',' }) {
		if cTypeWords[w] || strings.HasSuffix(w, "_t") && isIdentifier(w) {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

func isIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// domains are the libraries known by the prefix of their functions'
// names, longest prefixes first where they overlap.
var domains = []struct {
	prefix, domain string
	upper          bool // the prefix must be followed by an upper-case letter (cudaMalloc, not cudnn_...)
}{
	{"PMPI_", "MPI", false}, {"MPI_", "MPI", false},
	{"ncclDevKernel", "NCCL", false}, {"ncclKernel", "NCCL", false}, {"nccl", "NCCL", true},
	{"rccl", "RCCL", true},
	{"cudnn", "cuDNN", false}, {"cublas", "cuBLAS", false},
	{"cuda", "CUDA", true}, {"cu", "CUDA", true},
	{"hipsparse", "hipSPARSE", false}, {"hipblas", "hipBLAS", false}, {"hip", "HIP", true},
	{"hsa_", "HSA", false},
	{"GOMP_", "OpenMP", false}, {"__kmpc_", "OpenMP", false}, {"omp_", "OpenMP", false},
	{"pthread_", "pthread", false},
	{"Memcpy", "Memcpy", false}, {"Memset", "Memset", false},
}

// Domain returns the library or namespace name belongs to: the namespace
// it starts with ("aten" for "aten::copy_", "c10d", "FSDP"; "nccl" for
// PyTorch's "nccl:all_reduce"), or the library its prefix names ("MPI"
// for MPI_Send and PMPI_Send, "CUDA" for cudaLaunchKernel and
// cuLaunchKernel, "NCCL", "HIP", "HSA", "OpenMP", "pthread", "Memcpy").
// It returns "" when the name tells none; callers fall back to the
// value's category or type.
func Domain(name string) string {
	n := 0
	for n < len(name) && isIdentByte(name[n]) {
		n++
	}
	if n > 0 && !isDigit(name[0]) && n < len(name) && name[n] == ':' {
		// "aten::copy_", and PyTorch's "nccl:all_reduce".
		if rest := name[n+1:]; rest != "" && (rest[0] == ':' || isIdentByte(rest[0])) {
			return name[:n]
		}
	}
	for _, d := range domains {
		rest, ok := strings.CutPrefix(name, d.prefix)
		if !ok {
			continue
		}
		if d.upper && (rest == "" || rest[0] < 'A' || rest[0] > 'Z') {
			continue
		}
		return d.domain
	}
	return ""
}
