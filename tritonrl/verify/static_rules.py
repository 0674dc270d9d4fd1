"""The static layer's rule tables: which names, modules and methods are allowed or forbidden, and why.

Kept apart from the AST machinery in `static.py` so the policy can be read
(and reviewed) on one page. Each entry carries a one-line rationale.
"""

from __future__ import annotations

from tritonrl.verify.result import ReasonCode as R

# Imports an honest Triton solution needs; anything else has no business in a kernel file.
ALLOWED_IMPORT_ROOTS = frozenset(
    "torch triton math typing typing_extensions functools dataclasses itertools collections "
    "operator enum __future__ abc numbers contextlib copy warnings".split()
)
# Qualified-name prefixes banned anywhere in the file, with the code and the rationale.
_BANNED: list[tuple[R, str, str]] = [
    (R.TORCH_COMPILE, "compiles PyTorch instead of writing Triton",
     "torch.compile torch.compiler torch.jit torch._dynamo torch._inductor torch.export torch.fx"),
    (R.CUDA_EXTENSION, "builds or loads native GPU code outside Triton",
     "torch.utils.cpp_extension torch.cuda.jiterator torch.classes triton.runtime.build triton.backends "
     "triton.tools cupy pycuda numba cffi tvm cuda cutlass"),
    (R.FORBIDDEN_TORCH_OP, "reaches PyTorch compute through the dispatcher or private internals",
     "torch.ops torch.library operator.matmul operator.imatmul"),
    (R.FORBIDDEN_TORCH_OP, "touches the RNG state (could predict or pin the trial inputs)",
     "torch.manual_seed torch.seed torch.get_rng_state torch.set_rng_state torch.random "
     "torch.cuda.manual_seed torch.cuda.manual_seed_all torch.cuda.get_rng_state torch.cuda.set_rng_state"),
    (R.STREAM_OR_THREAD, "side streams, graphs, events, threads and processes escape the timing window",
     "torch.cuda.Stream torch.cuda.stream torch.cuda.current_stream torch.cuda.default_stream "
     "torch.cuda.set_stream torch.cuda.ExternalStream torch.cuda.Event torch.cuda.graph torch.cuda.graphs "
     "torch.cuda.CUDAGraph torch.cuda.make_graphed_callables torch.cuda.streams torch.Stream torch.Event "
     "torch.multiprocessing torch.futures threading _thread multiprocessing concurrent asyncio os.fork "
     "os.forkpty os.register_at_fork sched"),
    (R.HOST_ROUNDTRIP, "computes on the host instead of in Triton", "numpy scipy torch.from_numpy"),
    (R.ENV_OR_NETWORK, "reads the environment, files or the network",
     "os.environ os.environb os.getenv os.putenv os.unsetenv socket ssl urllib http requests httpx "
     "aiohttp ftplib smtplib pathlib builtins.open io.open sys.argv torch.hub torch.utils.model_zoo "
     "torch.load torch.save torch.from_file torch.distributed"),
    (R.DYNAMIC_CODE, "builds or decodes code at run time, which no static check can see",
     "builtins.exec builtins.eval builtins.compile builtins.__import__ builtins.globals builtins.locals "
     "builtins.vars builtins.breakpoint importlib types.FunctionType types.CodeType types.LambdaType "
     "types.MethodType base64 codecs zlib bz2 lzma binascii marshal pickle runpy code codeop pydoc "
     "operator.attrgetter operator.methodcaller"),
    (R.REFERENCE_MODEL_USE, "reaches the harness's objects (reference model, its outputs, caller frames)",
     "gc inspect traceback sys._getframe sys._current_frames sys.modules __main__"),
    (R.MONKEYPATCH, "changes PyTorch's global behaviour, which the reference and the checks share",
     "torch.set_float32_matmul_precision torch.set_default_dtype torch.set_default_tensor_type "
     "torch.set_default_device torch.set_flush_denormal torch.use_deterministic_algorithms torch.overrides "
     "torch.utils._python_dispatch torch.nn.modules.module.register_module_forward_hook "
     "torch.nn.modules.module.register_module_forward_pre_hook"),
]
BANNED: dict[str, tuple[R, str]] = {p: (code, why) for code, why, names in _BANNED for p in names.split()}
# Modules that other modules leak as attributes (`torch.os`): reaching them that way is an import.
LEAKED_MODULES = frozenset(
    "os sys ctypes subprocess builtins importlib gc inspect socket threading _thread multiprocessing "
    "pickle marshal io pathlib shutil urllib http types numpy signal tempfile glob traceback __main__".split()
)
# torch calls that only allocate, view, copy or describe tensors: glue, not compute.
ALLOWED_TORCH_CALLS = frozenset("torch." + n for n in (
    "empty empty_like empty_strided zeros zeros_like ones ones_like full full_like arange tensor "
    "as_strided cat concat concatenate stack device dtype Size is_tensor is_floating_point is_complex "
    "get_default_dtype get_default_device finfo iinfo no_grad inference_mode enable_grad "
    "set_grad_enabled is_grad_enabled broadcast_shapes promote_types result_type can_cast reshape "
    "flatten squeeze unsqueeze permute transpose split chunk unbind narrow select broadcast_to "
    "cuda.synchronize cuda.current_device cuda.device cuda.set_device cuda.is_available "
    "cuda.device_count cuda.get_device_properties cuda.get_device_capability nn.Parameter").split())
# Tensor methods that compute (their in-place `_` forms too): these must be Triton kernels.
FORBIDDEN_METHODS = frozenset((
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
    "pinverse cholesky qr svd matrix_power matrix_exp slogdet logdet diff apply_ map_ map2_ normal_ "
    "uniform_ bernoulli random_ exponential_ multinomial sum_to_size heaviside sinc t_"
).split())
# Dunder operators called by name (`x.__matmul__(w)`) are the same compute.
ARITH_DUNDERS = frozenset(f"__{p}{op}__" for p in ("", "r", "i") for op in (
    "matmul mul add sub truediv floordiv pow mod neg and or xor lshift rshift lt le gt ge eq ne".split()))
HOST_METHODS = frozenset({"cpu", "numpy", "tolist", "item"})  # copy device data to the host
# Glue methods that return a tensor (for tracking which names hold tensors).
TENSOR_GLUE = frozenset((
    "contiguous view view_as reshape reshape_as flatten unflatten unsqueeze squeeze permute transpose t "
    "expand expand_as to float half bfloat16 double int long bool type type_as new_empty new_zeros "
    "new_ones new_full clone detach narrow select zero_ fill_ copy_ cuda as_strided movedim swapaxes"
).split())
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
MODULE_TENSOR_ATTRS = frozenset({"weight", "bias", "running_mean", "running_var", "in_proj_weight", "in_proj_bias"})
# nn classes that run no torch compute of their own when called (Sequential runs its children: checked apart).
NN_CONTAINERS = frozenset({"Module", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
                           "Parameter", "Buffer", "Sequential", "Identity"})
ROOT_METHODS = ("forward", "__call__", "_call_impl", "_wrapped_call_impl")  # what model(x) runs
TRITON_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit",
                               "triton.runtime.jit.jit", "triton.runtime.autotune", "triton.runtime.heuristics",
                               "triton.runtime.autotuner.autotune", "triton.runtime.autotuner.heuristics"})
# Attribute names that traverse interpreter internals (globals, code objects, class graphs).
DANGEROUS_DUNDERS = frozenset((
    "__dict__ __globals__ __code__ __closure__ __builtins__ __subclasses__ __bases__ __base__ __mro__ "
    "__loader__ __spec__ __import__ __getattribute__ __setattr__ __delattr__ __reduce__ __reduce_ex__ "
    "__defaults__ __kwdefaults__ f_globals f_locals f_back f_builtins gi_frame cr_frame tb_frame co_code"
).split())
# Hooks run code around forward that the forward rules never see; __torch_*__ rewrites every op.
HOOK_NAMES = frozenset({"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                        "register_backward_hook", "register_full_backward_pre_hook", "_forward_hooks",
                        "_forward_pre_hooks", "_global_forward_hooks", "_global_forward_pre_hooks",
                        "__torch_function__", "__torch_dispatch__"})
# Builtins that run tensor operators when handed tensors: abs(x), sum([x, y]).
TENSOR_BUILTINS = frozenset(f"builtins.{n}" for n in ("abs", "pow", "sum", "max", "min", "round", "divmod"))
TENSOR_MAKERS = frozenset("torch." + n for n in (
    "empty empty_like empty_strided zeros zeros_like ones ones_like full full_like arange tensor cat stack").split())
HOST_BUILTINS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "builtins.complex"})  # .item() in disguise
COMPUTE_NAMESPACES = ("torch.nn.functional.", "torch.special.", "torch.linalg.", "torch.fft.")
