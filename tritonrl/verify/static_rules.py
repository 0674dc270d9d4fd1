"""The static layer's grammar tables: what the host code of a Triton answer may name, and why.

An allow-list: `static.py` rejects every qualified name, builtin and method
not listed here. The deny tables below never decide *whether* something is
rejected, only *which reason code and message* a rejection carries, so a
user (or a reward) sees "reads the environment" rather than "not allowed".
Kept apart from the AST machinery so the policy can be reviewed on one page.
"""

from __future__ import annotations

from tritonrl.verify.result import ReasonCode as R

_DESCRIPTOR = "triton.tools.tensor_descriptor.TensorDescriptor"
# Modules an answer may import (a module path, or a name inside one of them).
ALLOWED_MODULES = frozenset(
    "torch torch.nn torch.nn.functional torch.nn.init torch.cuda torch.autograd "
    "triton triton.language triton.language.extra triton.language.extra.cuda "
    "triton.language.extra.libdevice triton.language.extra.cuda.libdevice triton.language.math "
    "triton.tools.tensor_descriptor math typing typing_extensions __future__ functools dataclasses".split()
)
# Namespaces whose every member is fine in host code: pure functions of Python numbers,
# type hints, and triton.language (which does nothing outside a kernel).
ALLOWED_PREFIXES = ("math.", "__future__.", "triton.language.")
# torch/triton names host code may use: allocation, layout glue, descriptions of tensors and
# devices, parameter containers, the launch helpers. No compute: that belongs in kernels.
ALLOWED_NAMES = frozenset(
    [
        "torch." + n
        for n in (
            "empty empty_like empty_strided zeros zeros_like ones ones_like full full_like arange tensor "
            "randn rand randint randperm randn_like rand_like randint_like "
            "cat concat concatenate stack broadcast_tensors reshape flatten squeeze unsqueeze permute transpose split chunk unbind "
            "narrow select broadcast_to as_strided device dtype Size Tensor is_tensor is_floating_point is_complex "
            "get_default_dtype finfo iinfo no_grad inference_mode enable_grad is_grad_enabled broadcast_shapes "
            "promote_types result_type can_cast contiguous_format channels_last preserve_format strided "
            "float float16 half bfloat16 float32 float64 double int8 uint8 int16 short int32 int int64 long bool "
            "complex64 complex128 float8_e4m3fn float8_e5m2 uint16 uint32 uint64 "
            "cuda.is_available cuda.current_device cuda.device cuda.device_count cuda.get_device_properties "
            "cuda.get_device_capability cuda.get_device_name cuda.synchronize cuda.set_device "
            "autograd.Function nn.Parameter nn.Buffer nn.parameter.Parameter nn.Module nn.ModuleList nn.ModuleDict "
            "nn.ParameterList nn.ParameterDict nn.Sequential nn.Identity"
        ).split()
    ]
    + ["triton." + n for n in "jit autotune heuristics Config cdiv next_power_of_2 language".split()]
    + [
        "typing." + n
        for n in "Optional Union Tuple List Dict Set Any Sequence Iterable Callable Type Literal "
        "Final ClassVar TYPE_CHECKING cast overload".split()
    ]
    + [
        "torch.nn.init." + n
        for n in "calculate_gain uniform_ normal_ trunc_normal_ constant_ ones_ zeros_ eye_ "
        "dirac_ xavier_uniform_ xavier_normal_ kaiming_uniform_ kaiming_normal_ "
        "orthogonal_ _calculate_fan_in_and_fan_out _calculate_correct_fan".split()
    ]
    # the Triton tutorials' way to name the device and read its properties (GPU hosts)
    + [
        "triton.runtime.driver.active.get_active_torch_device",
        "triton.runtime.driver.active.utils.get_device_properties",
    ]
    + ["functools.lru_cache", "functools.cache", "dataclasses.dataclass", "dataclasses.field"]
    # Triton's documented host-side tensor descriptor (TMA on Hopper and later; the CPU interpreter runs it too)
    + [_DESCRIPTOR, f"{_DESCRIPTOR}.from_tensor"]
)
# Builtins host code may call or name. Missing on purpose: getattr/setattr/vars/globals/type/
# format/repr (reflection), open/input (files), exec/eval/compile/__import__ (dynamic code), iter/next.
ALLOWED_BUILTINS = frozenset(
    "range len min max abs int float bool str tuple list dict set frozenset enumerate zip sum round divmod "
    "map filter sorted reversed all any pow isinstance issubclass super staticmethod classmethod property "
    "slice print object None True False Ellipsis NotImplemented Exception ValueError TypeError RuntimeError "
    "AssertionError NotImplementedError KeyError IndexError ZeroDivisionError ImportError ModuleNotFoundError "
    "AttributeError".split()
)
# Builtins a kernel body may use (Triton's frontend understands these).
KERNEL_BUILTINS = frozenset("range min max len int float bool abs isinstance print tuple None True False".split())
# Methods host code may call on values (tensors, modules, sizes, containers, strings).
ALLOWED_METHODS = frozenset(
    (
        # tensor description and layout glue
        "size stride numel nelement dim ndimension element_size data_ptr storage_offset is_contiguous "
        "is_floating_point is_complex get_device contiguous view view_as reshape reshape_as flatten unflatten "
        "unsqueeze squeeze unsqueeze_ squeeze_ permute transpose t expand expand_as narrow select split chunk "
        "unbind movedim swapaxes as_strided diagonal unfold detach clone to type_as float half bfloat16 double "
        "int long bool short byte char cuda new_empty new_empty_strided new_zeros new_ones new_full copy_ fill_ "
        "zero_ requires_grad_ "
        # nn.Module plumbing
        "register_buffer register_parameter parameters named_parameters buffers named_buffers children modules "
        "named_children named_modules add_module apply eval train state_dict save_for_backward mark_non_differentiable "
        "set_materialize_grads "
        # Python containers and strings
        "append extend insert pop get items keys values setdefault update copy index count join startswith "
        "endswith lower upper strip replace clear add discard remove sort bit_length "
        # random initialisation of parameters (no input can reach it)
        "normal_ uniform_"
    ).split()
)
# Methods of a kernel or launcher an answer may call (`kernel.run(...)`, `kernel.warmup(...)`).
LAUNCHER_METHODS = frozenset({"run", "warmup"})
# Methods Triton's launcher calls on kernel arguments: defining them runs answer code inside a launch.
ARGUMENT_PROTOCOL = frozenset({"data_ptr", "stride", "size", "numel", "dtype", "shape", "element_size", "dim"})
# Keyword arguments of Triton's decorators, Config and TensorDescriptor that take plain data; the others (hooks,
# prune and bench functions, repr/launch_metadata callables) are Python that Triton runs for the answer, or
# (a descriptor's round_f32_to_tf32) round an fp32 problem's data as the kernel loads it.
DECORATOR_KEYWORDS = {
    "triton.jit": frozenset({"do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline"}),
    "triton.autotune": frozenset(
        {"configs", "key", "reset_to_zero", "restore_value", "warmup", "rep", "use_cuda_graph", "cache_results"}
    ),
    "triton.heuristics": frozenset({"values"}),
    "triton.Config": frozenset({"kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg"}),
    _DESCRIPTOR: frozenset({"base", "shape", "strides", "block_shape", "padding"}),
    f"{_DESCRIPTOR}.from_tensor": frozenset({"tensor", "block_shape", "padding"}),
}
DECORATOR_POSITIONAL = {
    "triton.jit": 1,
    "triton.autotune": 2,
    "triton.heuristics": 1,
    "triton.Config": 5,
    _DESCRIPTOR: 5,
    f"{_DESCRIPTOR}.from_tensor": 3,
}
# Why an option outside those is refused, where it is not Python that Triton runs.
DECORATOR_KEYWORD_RISKS = {
    q: "rounds the fp32 data to TF32 as the kernel loads it, a precision downgrade"
    for q in (_DESCRIPTOR, f"{_DESCRIPTOR}.from_tensor")
}
TRITON_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
# Decorators that wrap without registering the function anywhere: a function they wrap and nothing
# loads is still dead code.
INERT_DECORATORS = frozenset(
    {
        "builtins.staticmethod",
        "builtins.classmethod",
        "builtins.property",
        "torch.no_grad",
        "torch.inference_mode",
        "functools.lru_cache",
        "functools.cache",
    }
)
# Memoising decorators: fine on size/config helpers, never on code that launches (a cached output).
CACHING_DECORATORS = frozenset({"functools.lru_cache", "functools.cache"})
CLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
# Dunder methods an answer may define: construction, calling and printing its own objects. The others
# are called implicitly (iteration, conversion, attribute lookup, pickling) where no check looks.
ALLOWED_DUNDER_METHODS = frozenset({"__init__", "__call__", "__repr__", "__str__"})
ALLOWED_DUNDER_TARGETS = frozenset({"__all__"})
# Attributes host code may read on values, besides the methods above and the file's own attributes.
VALUE_ATTRS = frozenset(
    (
        "shape dtype device ndim T mT H mH data is_cuda is_cpu is_meta layout requires_grad is_leaf itemsize nbytes "
        "type index weight bias running_mean running_var num_batches_tracked in_proj_weight in_proj_bias training "
        "saved_tensors needs_input_grad kwargs num_warps num_stages num_ctas maxnreg "
        "bits eps max min resolution smallest_normal tiny is_floating_point is_complex is_signed "
        "name major minor total_memory multi_processor_count L2_cache_size max_threads_per_multi_processor warp_size "
        "regs_per_multiprocessor shared_memory_per_block shared_memory_per_block_optin shared_memory_per_multiprocessor "
        "gcnArchName is_integrated is_multi_gpu_board "
        # a tensor's in-place write counter: a cache of a weight's repacked copy is checked against it
        "_version"
    ).split()
)
# Names of interpreter and Triton internals, and of the functions of builtins, os, sys and importlib:
# a file that defines them (a method `gi_frame`, an attribute `fn`, a method `exec`) would unlock them
# on every value, so it may not. (A red team reached builtins.exec that way, through a leaked sys.modules.)
RESERVED_ATTRS = frozenset(
    (
        "f_back f_builtins f_code f_globals f_lasti f_lineno f_locals f_trace gi_code gi_frame gi_running "
        "gi_suspended gi_yieldfrom cr_await cr_code cr_frame cr_origin ag_await ag_code ag_frame tb_frame tb_next "
        "tb_lasti co_code co_consts co_names format format_map mro fn get_capture_scope pre_run_hooks "
        "add_pre_run_hook device_caches handle numpy tolist untyped_storage storage item cpu send throw "
        "exec eval compile breakpoint globals locals vars dir getattr setattr delattr open input "
        "system popen fork forkpty execv execve execvp execl spawnv spawnl kill killpg environ getenv putenv unsetenv "
        "remove unlink rmdir removedirs rename renames chmod chown symlink link truncate ftruncate "
        "modules import_module reload settrace setprofile get_referrers get_referents getframe _getframe"
    ).split()
)
# Attributes a kernel body may use on its values (triton.language tensors, dtypes and constexprs);
# `handle` (the interpreter's raw buffer) is left out.
KERNEL_VALUE_ATTRS = frozenset(
    (
        "T abs advance argmax argmin associative_scan atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or "
        "atomic_xchg atomic_xor broadcast_to cast cdiv ceil cos cumprod cumsum erf exp exp2 expand_dims flip floor "
        "gather histogram item log log2 logical_and logical_or max min permute ravel reduce reshape rsqrt sigmoid "
        "sin softmax sort split sqrt sqrt_rn store sum to trans view xor_sum dtype shape type value element_ty "
        "primitive_bitwidth numel is_floating is_int is_fp16 is_fp32 is_bf16 is_ptr is_block scalar "
        # dtype predicates and limits, for kernels generic over their element type
        "is_fp64 is_fp8 is_fp8e4nv is_fp8e5 is_fp8e4b15 is_fp8e4b8 is_fp8e5b16 is_int_signed is_int_unsigned is_bool "
        "is_int1 is_int8 is_int16 is_int32 is_int64 is_uint8 is_uint16 is_uint32 is_uint64 is_standard_floating "
        "get_int_max_value get_int_min_value int_bitwidth fp_mantissa_width exponent_bias "
        # tensor descriptors (tl.make_tensor_descriptor)
        "load block_shape"
    ).split()
)
# Context managers host code may enter.
ALLOWED_CONTEXTS = frozenset(
    {"torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.cuda.device", "torch.device"}
)
# Decorators of host functions and methods.
ALLOWED_DECORATORS = frozenset(
    {"builtins.staticmethod", "builtins.classmethod", "builtins.property", "torch.no_grad", "torch.inference_mode"}
)
# Base classes: parameter holders and autograd wrappers; torch.nn classes (`nn.Linear`) qualify
# by `is_nn_class`. Tensor, tuple, list, dict or numbers subclasses could fake or defer results.
ALLOWED_BASES = frozenset(
    {"builtins.object", "torch.nn.Module", "torch.autograd.Function"}
    | {f"builtins.{e}" for e in "Exception ValueError TypeError RuntimeError NotImplementedError".split()}
)
# What tells host code which device it runs on (device_paths.py): tensor attributes and methods, and qualified names
# whose values depend on the machine. A CPU verdict never sees the other device's side of a decision made on them.
DEVICE_PREDICATES = frozenset({"is_cuda", "is_cpu", "is_meta", "get_device"})
DEVICE_QUERIES = ("torch.cuda.", "torch.version.", "torch.backends.", "triton.runtime.", "os.")
# Calls that name a device (where its data lives, which GPU is current): their arguments may be device facts, and
# what they return is a device, not a fact (torch.cuda.device(...) around a launch).
DEVICE_NAMING = frozenset(
    {
        "torch.device",
        "torch.cuda.device",
        "torch.cuda.set_device",
        "triton.runtime.driver.active.get_active_torch_device",
    }
)
# Tensor methods whose arguments name a device (or a dtype: those must not be chosen by the device).
DEVICE_MOVES = frozenset({"to", "cuda"})
# Builtins that only describe or convert what they are given: a device fact goes through them as one.
DESCRIBING_BUILTINS = frozenset(
    {
        "str",
        "int",
        "float",
        "bool",
        "len",
        "min",
        "max",
        "abs",
        "round",
        "tuple",
        "list",
        "set",
        "frozenset",
        "sorted",
        "reversed",
        "any",
        "all",
        "sum",
        "divmod",
        "pow",
        "range",
        "enumerate",
        "zip",
        "isinstance",
    }
)
# Tensor methods that compute (in-place `_` forms too): named in the message as PyTorch compute.
COMPUTE_METHODS = frozenset(
    (
        "add sub rsub mul div true_divide floor_divide remainder fmod matmul mm bmm mv dot vdot outer ger "
        "addmm addmv addbmm baddbmm addr addcmul addcdiv einsum tensordot kron sum nansum mean nanmean prod "
        "max min amax amin aminmax argmax argmin maximum minimum fmax fmin softmax log_softmax exp exp2 expm1 "
        "log log2 log10 log1p relu sigmoid tanh sin cos tan asin acos atan atan2 sinh cosh erf erfc erfinv "
        "clamp clip clamp_min clamp_max pow float_power sqrt rsqrt square abs neg negative sign sgn "
        "reciprocal floor ceil round trunc frac norm renorm dist var std var_mean std_mean logsumexp cumsum "
        "cumprod cummax cummin logcumsumexp sort argsort topk kthvalue median nanmedian mode quantile where "
        "masked_fill masked_scatter masked_select index_select index_add index_fill index_copy index_put "
        "scatter scatter_add scatter_reduce gather take put lerp hypot logaddexp xlogy lgamma digamma logit "
        "triu tril trace cross flip fliplr flipud roll rot90 logical_and logical_or logical_not logical_xor "
        "bitwise_and bitwise_or bitwise_xor bitwise_not eq ne lt le gt ge equal allclose isclose isnan "
        "isinf isfinite nan_to_num any all count_nonzero nonzero argwhere unique bincount histc det inverse "
        "pinverse cholesky qr svd matrix_power matrix_exp slogdet logdet diff apply_ map_ normal_ uniform_ "
        "bernoulli random_ exponential_ multinomial heaviside sinc repeat repeat_interleave tile forward"
    ).split()
)
HOST_METHODS = frozenset({"cpu", "numpy", "tolist", "item", "__array__", "__float__", "__int__"})
# nn classes that compute nothing themselves when called (Sequential and containers run children).
NN_CONTAINERS = frozenset(
    {
        "Module",
        "ModuleList",
        "ModuleDict",
        "ParameterList",
        "ParameterDict",
        "Parameter",
        "Buffer",
        "Sequential",
        "Identity",
    }
)

# Deny tables: only for naming the reason of a rejection (prefix of a qualified name -> code, why).
_CATEGORIES: list[tuple[R, str, str]] = [
    (
        R.TORCH_COMPILE,
        "compiles PyTorch instead of writing Triton",
        "torch.compile torch.compiler torch.jit torch._dynamo torch._inductor torch.export torch.fx",
    ),
    (
        R.CUDA_EXTENSION,
        "builds or loads native GPU code outside Triton",
        "torch.utils.cpp_extension torch.cuda.jiterator torch.classes triton.runtime triton.backends triton.tools "
        "triton.compiler cupy pycuda numba cffi tvm cuda cutlass ctypes",
    ),
    (
        R.STREAM_OR_THREAD,
        "side streams, graphs, events, threads and processes escape the timing window",
        "torch.cuda.Stream torch.cuda.stream torch.cuda.current_stream torch.cuda.default_stream "
        "torch.cuda.set_stream torch.cuda.ExternalStream torch.cuda.Event torch.cuda.graph torch.cuda.graphs "
        "torch.cuda.CUDAGraph torch.cuda.make_graphed_callables torch.cuda.streams torch.Stream torch.Event "
        "torch.multiprocessing torch.futures threading _thread multiprocessing concurrent asyncio sched",
    ),
    (R.HOST_ROUNDTRIP, "computes on the host instead of in Triton", "numpy scipy torch.from_numpy"),
    (
        R.ENV_OR_NETWORK,
        "reads the environment, files or the network",
        "os socket ssl urllib http requests httpx aiohttp ftplib smtplib pathlib io mmap shutil tempfile glob "
        "builtins.open builtins.input torch.hub torch.utils.model_zoo torch.load torch.save torch.from_file "
        "torch.distributed signal subprocess",
    ),
    (
        R.DYNAMIC_CODE,
        "builds, decodes or reflects on code at run time, which no static check can see",
        "builtins.exec builtins.eval builtins.compile builtins.__import__ builtins.globals builtins.locals "
        "builtins.vars builtins.dir builtins.getattr builtins.setattr builtins.delattr builtins.hasattr "
        "builtins.type builtins.format builtins.repr builtins.breakpoint builtins.memoryview builtins.id "
        "builtins.iter builtins.next builtins.callable builtins.__build_class__ importlib types base64 codecs "
        "zlib bz2 lzma binascii marshal pickle runpy code codeop pydoc operator functools builtins sys",
    ),
    (
        R.REFERENCE_MODEL_USE,
        "reaches the harness's objects (reference model, its outputs, caller frames)",
        "gc inspect traceback __main__ weakref tritonrl",
    ),
    (
        R.MONKEYPATCH,
        "changes PyTorch's global behaviour or intercepts its operations",
        "torch.set_float32_matmul_precision torch.set_default_dtype torch.set_default_tensor_type "
        "torch.set_default_device torch.set_flush_denormal torch.use_deterministic_algorithms torch.overrides "
        "torch.utils._python_dispatch torch.library torch.backends torch.autocast torch.amp",
    ),
    (
        R.FORBIDDEN_TORCH_OP,
        "touches the RNG state (could predict or pin the trial inputs)",
        "torch.manual_seed torch.seed torch.get_rng_state torch.set_rng_state torch.random torch.Generator "
        "torch.cuda.manual_seed torch.cuda.manual_seed_all torch.cuda.get_rng_state torch.cuda.set_rng_state",
    ),
    (
        R.FORBIDDEN_TORCH_OP,
        "reaches PyTorch compute through the dispatcher or private internals",
        "torch.ops torch._C torch._refs torch._prims torch._ops",
    ),
]
CATEGORIES: dict[str, tuple[R, str]] = {p: (code, why) for code, why, names in _CATEGORIES for p in names.split()}
# What to write instead, per reason code: the end of every rejection message.
HINTS: dict[R, str] = {
    R.FORBIDDEN_TORCH_OP: "do this computation in a @triton.jit kernel",
    R.FORBIDDEN_MODULE_CALL: "hold the module for its parameters and compute with them in a kernel",
    R.FORBIDDEN_IMPORT: "import only torch, triton, math and typing",
    R.DYNAMIC_CODE: "write the code out and use attributes by name",
    R.TORCH_COMPILE: "write the kernel in Triton",
    R.CUDA_EXTENSION: "write the kernel in Triton",
    R.MONKEYPATCH: "leave torch, triton and the harness as they are",
    R.STREAM_OR_THREAD: "launch kernels on the current stream from forward",
    R.HOST_ROUNDTRIP: "keep the data on the device and compute in a kernel",
    R.REFERENCE_MODEL_USE: "write ModelNew without the reference",
    R.EXCEPTION_FALLBACK: "let a failing kernel fail",
    R.ENV_OR_NETWORK: "an answer needs no files, environment or network",
    R.NOT_ALLOWED: "host code may only allocate, reshape, compute sizes and launch kernels",
}
