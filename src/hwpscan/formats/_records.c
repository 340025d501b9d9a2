/* Native record walks of an HWP 5 stream: the optional fast path of two loops that
 * hwpscan.formats.hwp5_text and hwpscan.formats.hwp5 also hold in Python.
 *
 * The Python functions are the reference: every function here returns exactly what its
 * Python twin returns for the same arguments (tests/test_native_records.py drives both
 * over fixtures, mutated and random streams), or None where the Python twin would write
 * a warning, so that the caller runs the Python code for that stream and the warning is
 * the same text as ever. Without a compiler the package installs without this module
 * and the Python code runs alone.
 *
 * Every read is bounds-checked against the buffer's length before it is made; positions
 * are 64-bit, so a record size near 4 GB cannot wrap.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "_hwp5_records.h"
#include "_hwp5_runs.h"

/* Append a tuple of 3 or 4 Python ints built from *values*; 0 on success. */
static int
append_ints(PyObject *list, int n, const int64_t *values)
{
    PyObject *item = PyTuple_New(n);
    if (item == NULL) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_DECREF(item);
            return -1;
        }
        PyTuple_SET_ITEM(item, i, v);
    }
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

static int
append_int(PyObject *list, int64_t value)
{
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, v);
    Py_DECREF(v);
    return failed;
}

/* The argument count checked (a TypeError naming *name* otherwise) and the first
 * argument's bytes taken into *view*: 0, or -1 with a Python error set. */
static int
take_buffer(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *name,
            Py_buffer *view)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd argument%s", name, want,
                     want == 1 ? "" : "s");
        return -1;
    }
    return PyObject_GetBuffer(args[0], view, PyBUF_SIMPLE);
}

PyDoc_STRVAR(scan_free_doc,
"scan_free(data, end, counted, /)\n--\n\n"
"hwpscan.formats.hwp5_text._scan_free: (hits, paragraphs, lone, pos, walked).");

static PyObject *
scan_free(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_buffer view;
    if (take_buffer(args, nargs, 3, "scan_free", &view) < 0) {
        return NULL;
    }
    Py_ssize_t end_arg = PyLong_AsSsize_t(args[1]);
    int counted = PyObject_IsTrue(args[2]);
    PyObject *hits = NULL, *lone = NULL, *result = NULL;
    if ((end_arg == -1 && PyErr_Occurred()) || counted < 0) {
        goto done;
    }
    hits = PyList_New(0);
    lone = PyList_New(0);
    if (hits == NULL || lone == NULL) {
        goto done;
    }
    const unsigned char *data = view.buf;
    const int64_t len = view.len, end = end_arg;
    int64_t pos = 0, walked = 0, para = -1;
    int has_text = 1;
    while (pos < end) {
        walked++;
        if (pos + 4 > len) { /* struct.error in the Python walk */
            pos = end + 1;
            break;
        }
        uint32_t head = u32_at(data + pos);
        int64_t size = head >> SIZE_SHIFT;
        if (size == EXTENDED_SIZE) {
            if (pos + 8 > len) {
                pos = end + 1;
                break;
            }
            size = u32_at(data + pos + 4);
            pos += 4;
        }
        if ((head & (TAG_MASK & ~1u)) == PARA_HEADER) {
            if (head & 1u) { /* PARA_TEXT */
                if (has_text) {
                    para++;
                    if (append_int(lone, para) < 0) {
                        goto done;
                    }
                }
                int64_t hit[3] = {pos + 4, pos + 4 + size, para};
                if (append_ints(hits, 3, hit) < 0) {
                    goto done;
                }
                has_text = 1;
            }
            else {
                para++;
                has_text = 0;
            }
        }
        pos += 4 + size;
    }
    result = Py_BuildValue("(OLOLL)", hits, (long long)(para + 1), lone, (long long)pos,
                           (long long)(counted ? walked : 0));
done:
    Py_XDECREF(hits);
    Py_XDECREF(lone);
    PyBuffer_Release(&view);
    return result;
}


typedef struct {
    PyObject *spans;
    Py_ssize_t cap;
} Spans;

static int
add_span(void *ctx, int64_t index, int64_t units, int64_t pos, int64_t length,
         const unsigned char *data)
{
    (void)data;
    int64_t span[4] = {index, units, pos, pos + 2 * length};
    return append_ints(((Spans *)ctx)->spans, 4, span);
}

static int
spans_full(void *ctx)
{
    Spans *s = ctx;
    return PyList_GET_SIZE(s->spans) > s->cap;
}

PyDoc_STRVAR(docinfo_spans_doc,
"docinfo_spans(data, cap, /)\n--\n\n"
"hwpscan.formats.hwp5._docinfo_spans: (spans, cut), or None where it would warn.");

static PyObject *
docinfo_spans(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_buffer view;
    if (take_buffer(args, nargs, 2, "docinfo_spans", &view) < 0) {
        return NULL;
    }
    Py_ssize_t cap = PyLong_AsSsize_t(args[1]);
    PyObject *spans = NULL, *result = NULL;
    if (cap == -1 && PyErr_Occurred()) {
        goto done;
    }
    if (cap < 0) {
        /* the Python reader's del spans[cap:] counts from the end: not this path */
        result = Py_NewRef(Py_None);
        goto done;
    }
    spans = PyList_New(0);
    if (spans == NULL) {
        goto done;
    }
    Spans ctx = {spans, cap};
    int64_t cut = 0;
    int walked = walk_names(view.buf, view.len, add_span, spans_full, &ctx, &cut);
    if (walked < 0) {
        goto done;
    }
    if (walked == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (walked == 2) {
        if (PyList_SetSlice(spans, cap, PyList_GET_SIZE(spans), NULL) < 0) {
            goto done;
        }
        result = Py_BuildValue("(OL)", spans, (long long)cut);
        goto done;
    }
    result = Py_BuildValue("(OO)", spans, Py_None);
done:
    Py_XDECREF(spans);
    PyBuffer_Release(&view);
    return result;
}



PyDoc_STRVAR(docinfo_plain_doc,
"docinfo_plain(data, cap, /)\n--\n\n"
"What hwpscan.formats.hwp5._docinfo counts for a plain DocInfo, (chars, units) of its\n"
"FACE_NAME and STYLE names, with no span list made: None where that code would not\n"
"count (no name, more than cap names, a name is_plain rejects) or would warn.");

static PyObject *
docinfo_plain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_buffer view;
    if (take_buffer(args, nargs, 2, "docinfo_plain", &view) < 0) {
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t cap = PyLong_AsSsize_t(args[1]);
    if (cap == -1 && PyErr_Occurred()) {
        goto done;
    }
    if (cap < 0) { /* not docinfo_spans' path either */
        goto not_here;
    }
    PlainNames names = {0, 0, 0, -1, 0, cap};
    int64_t stopped = 0;
    int walked = walk_names(view.buf, view.len, count_name, names_not_plain, &names, &stopped);
    if (walked < 0) {
        goto done;
    }
    if (walked != 1 || names.names == 0) {
        goto not_here; /* a warning, a name to look at, the cap's cut, or no name */
    }
    result = Py_BuildValue("(LL)", (long long)(names.units - names.breaks),
                           (long long)names.units);
    goto done;
not_here:
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}


PyDoc_STRVAR(plain_counts_doc,
"plain_counts(raw, sizes, /)\n--\n\n"
"hwpscan.formats.hwp5_text.plain_counts: (chars, units); False where it answers None\n"
"for a surrogate, private-use unit or U+FFFD in the text proper (the sizes covering\n"
"the text); None where the Python code is to decide (it may warn, or the sizes are\n"
"not what section_text makes).");

static PyObject *
plain_counts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "plain_counts takes 2 arguments");
        return NULL;
    }
    if (!PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "plain_counts: sizes must be a list");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *sizes = args[1];
    const unsigned char *raw = view.buf;
    const int64_t len = view.len;
    PyObject *result = NULL;
    int64_t chars = 0, units = 0, at = 0; /* at: the paragraph's first unit */
    int64_t units_seen = 0;                /* the sizes' total, checked at a notable unit */
    for (Py_ssize_t p = 0; p < PyList_GET_SIZE(sizes); p++) {
        int64_t n = PyLong_AsLongLong(PyList_GET_ITEM(sizes, p));
        if (n == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (n < 0 || n > len / 2 - at) {
            goto not_here; /* not what section_text makes: the Python code decides */
        }
        const int64_t end = at + n;
        int64_t i = at;
        while (i < end) {
            const unsigned char lo = raw[2 * i], hi = raw[2 * i + 1];
            if ((hi >= 0xD8 && hi <= 0xF8) || (hi >= 0xA0 && hi <= 0xA8) ||
                (hi == 0xFF && lo == 0xFD)) {
                /* a surrogate, private use, U+FFFD or a unit of the folded symbols'
                 * block U+A000-U+A8FF in the text */
                goto notable;
            }
            if (hi || lo >= 32) {
                units++;
                chars++;
                i++;
                continue;
            }
            switch (CONTROL_KIND[lo]) {
            case 1:
                units++;
                chars += lo != LINE_BREAK;
                i++;
                break;
            case 2:
                if (i + CONTROL_UNITS > end) {
                    goto not_here; /* "ends inside an 8-unit control": Python's warning */
                }
                /* its parameter units are no text, whatever they hold */
                if (lo == TAB) {
                    units++;
                    chars++;
                }
                i += CONTROL_UNITS;
                break;
            default:
                i++;
            }
        }
        at = end;
    }
    if (2 * at != len) {
        goto not_here;
    }
    result = Py_BuildValue("(LL)", (long long)chars, (long long)units);
    goto done;
notable:
    /* Every control before the unit was whole, so the unit is text proper and the Python
     * code answers None too: False says so, sparing it the search. Only where the sizes
     * are what section_text makes (they cover the text exactly); else it decides. */
    for (Py_ssize_t p = 0, left = PyList_GET_SIZE(sizes); p < left; p++) {
        int64_t n = PyLong_AsLongLong(PyList_GET_ITEM(sizes, p));
        if (n == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (n < 0 || n > len / 2 - units_seen) {
            goto not_here;
        }
        units_seen += n;
    }
    if (2 * units_seen != len) {
        goto not_here;
    }
    result = Py_NewRef(Py_False);
    goto done;
not_here:
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}

/* The Python arguments checked as _paragraph_runs would take them without an error;
 * 0 when they are not (the caller then runs the Python code). */
static int
runs_arguments_fit(PyObject *big, PyObject *hits, PyObject *sizes)
{
    if (!PyUnicode_Check(big) || !PyList_Check(hits) || !PyList_Check(sizes) ||
        PyList_GET_SIZE(hits) != PyList_GET_SIZE(sizes)) {
        return 0;
    }
    Py_ssize_t total = 0, length = PyUnicode_GET_LENGTH(big);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(sizes); k++) {
        PyObject *hit = PyList_GET_ITEM(hits, k), *size = PyList_GET_ITEM(sizes, k);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 3 || !PyLong_CheckExact(size)) {
            return 0;
        }
        Py_ssize_t n = PyLong_AsSsize_t(size);
        if (n < 0 || n > length - total) {
            PyErr_Clear();
            return 0;
        }
        total += n;
    }
    return 1;
}

PyDoc_STRVAR(paragraph_runs_doc,
"paragraph_runs(big, hits, sizes, stream, out, warnings, limit, segment, table, /)\n--\n\n"
"hwpscan.formats.hwp5_text._paragraph_runs; None (nothing done) for arguments it\n"
"would not take.");

static PyObject *
paragraph_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "paragraph_runs takes 9 arguments");
        return NULL;
    }
    PyObject *big = args[0], *hits = args[1], *sizes = args[2];
    if (!PyList_Check(args[4]) || !PyList_Check(args[5]) || !PyType_Check(args[7]) ||
        !PyType_IsSubtype((PyTypeObject *)args[7], &PyTuple_Type) || !PyUnicode_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "paragraph_runs: wrong argument types");
        return NULL;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[6]);
    if (limit == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!PyList_CheckExact(args[4]) || !runs_arguments_fit(big, hits, sizes)) {
        Py_RETURN_NONE; /* a list of another kind appends in its own way: Python's turn */
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(big) < 0) {
        return NULL;
    }
#endif
    Runs r = {
        .big = big, .stream = args[3], .out = args[4], .warnings = args[5], .table = args[8],
        .segment = (PyTypeObject *)args[7], .limit = limit,
        .kind = PyUnicode_KIND(big), .data = PyUnicode_DATA(big),
    };
    Py_ssize_t a = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(sizes); k++) {
        if (at_limit(&r)) {
            break;
        }
        PyObject *para = PyTuple_GET_ITEM(PyList_GET_ITEM(hits, k), 2);
        Py_ssize_t b = a + PyLong_AsSsize_t(PyList_GET_ITEM(sizes, k));
        int done = paragraph_run(&r, a, b, para);
        if (done < 0) {
            return NULL;
        }
        if (done == 0) {
            break;
        }
        a = b;
    }
    return PyLong_FromSsize_t(a);
}

PyDoc_STRVAR(codeunit_view_doc,
"codeunit_view(raw, /)\n--\n\n"
"hwpscan.formats.hwp5_text.codeunit_view of an even number of bytes: one code point\n"
"per UTF-16LE code unit.");

static PyObject *
codeunit_view(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_buffer view;
    if (take_buffer(args, nargs, 1, "codeunit_view", &view) < 0) {
        return NULL;
    }
    if (view.len & 1) { /* the decoder's error, which the Python code gives */
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "codeunit_view: an odd number of bytes");
        return NULL;
    }
    const unsigned char *raw = view.buf;
    const Py_ssize_t n = view.len / 2;
    Py_UCS4 top = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 u = (Py_UCS4)raw[2 * i] | (Py_UCS4)raw[2 * i + 1] << 8;
        if (u > top) {
            top = u;
        }
    }
    PyObject *text = PyUnicode_New(n, top);
    if (text != NULL) {
        int kind = PyUnicode_KIND(text);
        void *data = PyUnicode_DATA(text);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyUnicode_WRITE(kind, data, i, (Py_UCS4)raw[2 * i] | (Py_UCS4)raw[2 * i + 1] << 8);
        }
    }
    PyBuffer_Release(&view);
    return text;
}

PyDoc_STRVAR(join_payloads_doc,
"join_payloads(data, hits, /)\n--\n\n"
"(raw, sizes, total) as section_text joins the PARA_TEXT payloads of *hits* (an odd\n"
"last byte left out), or None for a hit that does not lie whole inside *data*.");

static PyObject *
join_payloads(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "join_payloads takes bytes and a list");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *hits = args[1], *sizes = NULL, *raw = NULL, *result = NULL;
    const Py_ssize_t count = PyList_GET_SIZE(hits);
    Py_ssize_t total = 0, kept = 0;
    /* first pass: every hit whole inside the data, and the joined length */
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *hit = PyList_GET_ITEM(hits, k);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 3) {
            goto hand_back;
        }
        Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 0));
        Py_ssize_t b = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 1));
        if ((a == -1 || b == -1) && PyErr_Occurred()) {
            PyErr_Clear();
            goto hand_back;
        }
        if (a < 0 || b < a || b > view.len) {
            goto hand_back;
        }
        total += b - a;
        kept += (b - a) & ~(Py_ssize_t)1;
    }
    sizes = PyList_New(count);
    raw = PyBytes_FromStringAndSize(NULL, kept);
    if (sizes == NULL || raw == NULL) {
        goto done;
    }
    char *out = PyBytes_AS_STRING(raw);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *hit = PyList_GET_ITEM(hits, k);
        Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 0));
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 1)) - a;
        PyObject *units = PyLong_FromSsize_t(n >> 1);
        if (units == NULL) {
            goto done;
        }
        PyList_SET_ITEM(sizes, k, units);
        memcpy(out, (const char *)view.buf + a, (size_t)(n & ~(Py_ssize_t)1));
        out += n & ~(Py_ssize_t)1;
    }
    result = Py_BuildValue("(OOn)", raw, sizes, total);
    goto done;
hand_back:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(sizes);
    Py_XDECREF(raw);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_free", (PyCFunction)(void (*)(void))scan_free, METH_FASTCALL, scan_free_doc},
    {"docinfo_spans", (PyCFunction)(void (*)(void))docinfo_spans, METH_FASTCALL,
     docinfo_spans_doc},
    {"docinfo_plain", (PyCFunction)(void (*)(void))docinfo_plain, METH_FASTCALL,
     docinfo_plain_doc},
    {"plain_counts", (PyCFunction)(void (*)(void))plain_counts, METH_FASTCALL, plain_counts_doc},
    {"paragraph_runs", (PyCFunction)(void (*)(void))paragraph_runs, METH_FASTCALL,
     paragraph_runs_doc},
    {"codeunit_view", (PyCFunction)(void (*)(void))codeunit_view, METH_FASTCALL,
     codeunit_view_doc},
    {"join_payloads", (PyCFunction)(void (*)(void))join_payloads, METH_FASTCALL,
     join_payloads_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hwpscan.formats._records",
    .m_doc = "Native record walks of HWP 5 streams (the Python code is the reference).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__records(void)
{
    return PyModuleDef_Init(&module_def);
}
