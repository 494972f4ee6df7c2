"""Exercises libgraphc from Python through ctypes. Usage: capi_test.py LIBGRAPHC.so MODEL.onnx
Prints "ok" when every check holds."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
model = sys.argv[2]

P = ctypes.c_void_p
lib.graphc_compile_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.POINTER(P)]
lib.graphc_compile_file.restype = ctypes.c_int
lib.graphc_compile_bytes.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.POINTER(P)]
lib.graphc_compile_bytes.restype = ctypes.c_int
for name in ["graphc_result_module", "graphc_result_header", "graphc_result_diagnostics", "graphc_result_dead_report"]:
    f = getattr(lib, name)
    f.argtypes = [P, ctypes.POINTER(ctypes.c_size_t)]
    f.restype = ctypes.POINTER(ctypes.c_char)
lib.graphc_result_error.argtypes = [P]
lib.graphc_result_error.restype = ctypes.c_char_p
lib.graphc_result_status.argtypes = [P]
lib.graphc_result_free.argtypes = [P]
lib.graphc_version.restype = ctypes.c_char_p


def options(**kw):
    keys = (ctypes.c_char_p * len(kw))(*[k.replace("_", "-").encode() for k in kw])
    vals = (ctypes.c_char_p * len(kw))(*[str(v).encode() for v in kw.values()])
    return keys, vals, len(kw)


def buffer(f, r):
    n = ctypes.c_size_t()
    p = f(r, ctypes.byref(n))
    return ctypes.string_at(p, n.value) if p else None


def compile_file(path, **kw):
    r = P()
    st = lib.graphc_compile_file(path.encode(), *options(**kw), ctypes.byref(r))
    out = (st, lib.graphc_result_error(r).decode(), buffer(lib.graphc_result_module, r),
           buffer(lib.graphc_result_header, r), buffer(lib.graphc_result_dead_report, r))
    lib.graphc_result_free(r)
    return out


assert lib.graphc_version().startswith(b"graphc"), lib.graphc_version()
st, err, mod, hdr, dead = compile_file(model, require="Y[i, j] : i = 15", no_zero_skip=1)
assert st == 0, (st, err)
assert b"define i32 @main_graph(" in mod
assert b"MAIN_GRAPH_OUT0_ELEMENTS" in hdr
assert b"dead iterations" in dead, dead
st, err, mod, _, _ = compile_file(model, target="hexagon")
assert st == 0 and b"hexagon" in mod, err
st, err, mod, _, _ = compile_file(model, dim="Q=3")
assert st == 2 and "Q" in err and mod is None, (st, err)
st, err, _, _, _ = compile_file(model, pipeline="die,nosuchpass")
assert st == 2 and "nosuchpass" in err, (st, err)
data = open(model, "rb").read()
r = P()
st = lib.graphc_compile_bytes(data[: len(data) // 2], len(data) // 2, b"onnx", None, None, 0, ctypes.byref(r))
assert st == 1 and lib.graphc_result_error(r), st
lib.graphc_result_free(r)
st = lib.graphc_compile_bytes(data, len(data), b"onnx", None, None, 0, ctypes.byref(r))
assert st == 0, lib.graphc_result_error(r)
lib.graphc_result_free(r)
print("ok")
