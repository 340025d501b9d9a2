/* Native counting of a text's surrogates, pairs and private-use characters: the optional
 * fast path of hwpscan.forensics.surrogates.analyze, whose Python code (the strict view
 * by the UTF-16 codec, a regex substitution for private use) is the reference.
 * tests/test_native_counting.py holds the two equal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static inline int
is_pua(Py_UCS4 c)
{
    return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) ||
           (c >= 0x100000 && c <= 0x10FFFD);
}

static int
count_char(PyObject *counts, Py_UCS4 c)
{
    PyObject *key = PyUnicode_FromOrdinal((int)c);
    if (key == NULL) {
        return -1;
    }
    PyObject *old = PyDict_GetItemWithError(counts, key);
    long long n = 0;
    if (old != NULL) {
        n = PyLong_AsLongLong(old);
    }
    else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    }
    PyObject *value = PyLong_FromLongLong(n + 1);
    int failed = value == NULL || PyDict_SetItem(counts, key, value) < 0;
    Py_XDECREF(value);
    Py_DECREF(key);
    return failed ? -1 : 0;
}

/* The private-use tally of one text: the first TALLY_SLOTS distinct characters are counted
 * in place, any others in the dict at once (a text holds a handful, so the dict is made
 * once at the end, not looked up and rewritten per occurrence). */
#define TALLY_SLOTS 16

typedef struct {
    Py_UCS4 c[TALLY_SLOTS];
    Py_ssize_t n[TALLY_SLOTS];
    int used;
} Tally;

static int
tally_add(Tally *t, PyObject *counts, Py_UCS4 c)
{
    for (int k = 0; k < t->used; k++) {
        if (t->c[k] == c) {
            t->n[k]++;
            return 0;
        }
    }
    if (t->used < TALLY_SLOTS) {
        t->c[t->used] = c;
        t->n[t->used++] = 1;
        return 0;
    }
    return count_char(counts, c); /* never in a slot: the slots are full and stay so */
}

static int
tally_flush(const Tally *t, PyObject *counts)
{
    for (int k = 0; k < t->used; k++) {
        PyObject *key = PyUnicode_FromOrdinal((int)t->c[k]);
        PyObject *value = key == NULL ? NULL : PyLong_FromSsize_t(t->n[k]);
        int failed = value == NULL || PyDict_SetItem(counts, key, value) < 0;
        Py_XDECREF(value);
        Py_XDECREF(key);
        if (failed) {
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(count_notable_doc,
"count_notable(text, /)\n--\n\n"
"(surrogates, pairs, private use of the strict view by character, whether the text\n"
"itself holds a private-use code point): what analyze counts, pairs merged left to\n"
"right as the UTF-16 decoder merges them.");

static PyObject *
count_notable(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "count_notable: a str is needed");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t surrogates = 0, pairs = 0;
    int own_pua = 0;
    Tally tally = {.used = 0};
    PyObject *pua = PyDict_New();
    if (pua == NULL) {
        return NULL;
    }
    if (kind == PyUnicode_1BYTE_KIND) { /* nothing at or above U+0100 */
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0xD800) {
            continue;
        }
        if (c <= 0xDBFF && i + 1 < n) {
            Py_UCS4 low = PyUnicode_READ(kind, data, i + 1);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                Py_UCS4 merged = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                pairs++;
                surrogates += 2;
                i++;
                if (is_pua(merged) && tally_add(&tally, pua, merged) < 0) {
                    goto fail;
                }
                continue;
            }
        }
        if (c <= 0xDFFF) {
            surrogates++;
        }
        else if (is_pua(c)) {
            own_pua = 1;
            if (tally_add(&tally, pua, c) < 0) {
                goto fail;
            }
        }
    }
    if (tally_flush(&tally, pua) < 0) {
        goto fail;
    }
done:;
    PyObject *result = Py_BuildValue("(nnNO)", surrogates, pairs, pua, own_pua ? Py_True : Py_False);
    return result;
fail:
    Py_DECREF(pua);
    return NULL;
}

/* --- locations: surrogates.py _locations ------------------------------------------------ */

typedef struct {
    Py_ssize_t at, len;
} Match;

#define CONTEXT 12

/* Up to *limit* defects: every surrogate (a high+low pair as one), then private use. */
static Py_ssize_t
find_matches(int kind, const void *data, Py_ssize_t n, int halves, int pua, Py_ssize_t limit,
             Match *out, Py_ssize_t *last)
{
    Py_ssize_t found = 0;
    *last = 0;
    for (Py_ssize_t i = 0; halves && i < n && found < limit; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0xD800 || c > 0xDFFF) {
            continue;
        }
        Py_ssize_t len = 1;
        if (c <= 0xDBFF && i + 1 < n) {
            Py_UCS4 low = PyUnicode_READ(kind, data, i + 1);
            len = (low >= 0xDC00 && low <= 0xDFFF) ? 2 : 1;
        }
        out[found].at = i;
        out[found++].len = len;
        *last = i;
        i += len - 1;
    }
    for (Py_ssize_t i = 0; pua && i < n && found < limit; i++) {
        if (is_pua(PyUnicode_READ(kind, data, i))) {
            out[found].at = i;
            out[found++].len = 1;
            if (i > *last) {
                *last = i;
            }
        }
    }
    return found;
}

/* The arguments as _locations takes them without an error, else 0 (Python's turn). */
static int
locate_arguments_fit(PyObject *segments, PyObject *texts, PyObject *starts, PyObject *blob,
                     PyObject *helpers)
{
    if (!PyList_Check(segments) && !PyTuple_Check(segments)) {
        return 0;
    }
    if (!PyList_Check(texts) || !PyList_Check(starts) || !PyUnicode_Check(blob) ||
        !PyTuple_Check(helpers) || PyTuple_GET_SIZE(helpers) != 5) {
        return 0;
    }
    Py_ssize_t paragraphs = PyList_GET_SIZE(texts), count = PySequence_Fast_GET_SIZE(segments);
    if (PyList_GET_SIZE(starts) != paragraphs + 1) {
        return 0;
    }
    Py_ssize_t before = 0, joined = paragraphs > 0 ? paragraphs - 1 : 0;
    for (Py_ssize_t k = 0; k <= paragraphs; k++) {
        Py_ssize_t v = PyLong_AsSsize_t(PyList_GET_ITEM(starts, k));
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (v < before || v > count || (k < paragraphs && v >= count) ||
            (k < paragraphs && !PyUnicode_Check(PyList_GET_ITEM(texts, k)))) {
            return 0;
        }
        before = v;
        if (k < paragraphs) {
            joined += PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, k));
        }
    }
    if (joined != PyUnicode_GET_LENGTH(blob)) { /* blob is not the texts joined by newlines */
        return 0;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *seg = PySequence_Fast_GET_ITEM(segments, k);
        if (!PyTuple_Check(seg) || PyTuple_GET_SIZE(seg) < 4) {
            return 0;
        }
    }
    return 1;
}

/* One Location (a 7-tuple of the given type); NULL on error. */
static PyObject *
make_location(PyObject *const *fields, PyTypeObject *type)
{
    PyObject *loc = type->tp_alloc(type, 7);
    if (loc == NULL) {
        return NULL;
    }
    for (int f = 0; f < 7; f++) {
        PyTuple_SET_ITEM(loc, f, Py_NewRef(fields[f]));
    }
    return loc;
}

typedef struct {
    PyObject *segments, *texts, *starts, *blob;
    PyObject *info, *info_of, *escape, *run_offset;
    PyTypeObject *location;
    Py_ssize_t *begins;
    Py_ssize_t reach;
} Locate;

/* _escape_context's first two answers in C: a printable context without U+FFFD is its
 * own escape; one whose only unprintable characters are surrogates is what UTF-8's
 * backslashreplace makes of it. Anything else goes to the Python function (*escape*). */
static PyObject *
escaped_context(PyObject *context, PyObject *escape)
{
    const int kind = PyUnicode_KIND(context);
    const void *data = PyUnicode_DATA(context);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(context);
    Py_ssize_t halves = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 0xD800 && c <= 0xDFFF) {
            halves++;
        }
        else if (c == 0xFFFD || !Py_UNICODE_ISPRINTABLE(c)) {
            return PyObject_CallOneArg(escape, context);
        }
    }
    if (halves == 0) {
        return Py_NewRef(context);
    }
    Py_UCS4 top = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if ((c < 0xD800 || c > 0xDFFF) && c > top) {
            top = c;
        }
    }
    PyObject *out = PyUnicode_New(n + 5 * halves, top > 0x7F ? top : 0x7F);
    if (out == NULL) {
        return NULL;
    }
    const int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    static const char hex[] = "0123456789abcdef";
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 0xD800 && c <= 0xDFFF) {
            PyUnicode_WRITE(okind, odata, j++, '\\');
            PyUnicode_WRITE(okind, odata, j++, 'u');
            for (int shift = 12; shift >= 0; shift -= 4) {
                PyUnicode_WRITE(okind, odata, j++, (Py_UCS4)hex[(c >> shift) & 0xF]);
            }
        }
        else {
            PyUnicode_WRITE(okind, odata, j++, c);
        }
    }
    return out;
}

/* The Location of one match. */
static PyObject *
one_location(const Locate *l, Match m)
{
    /* k: the last paragraph beginning at or before the match (bisect_right - 1) */
    Py_ssize_t lo_k = 0, hi_k = l->reach + 1;
    while (lo_k < hi_k) {
        Py_ssize_t mid = (lo_k + hi_k) / 2;
        if (m.at < l->begins[mid]) {
            hi_k = mid;
        }
        else {
            lo_k = mid + 1;
        }
    }
    Py_ssize_t k = lo_k - 1;
    if (k < 0 || k >= PyList_GET_SIZE(l->texts)) { /* cannot be, checked for all the same */
        PyErr_SetString(PyExc_SystemError, "locate: a defect outside every paragraph");
        return NULL;
    }
    Py_ssize_t at = l->begins[k];
    Py_ssize_t lo = PyLong_AsSsize_t(PyList_GET_ITEM(l->starts, k));
    Py_ssize_t hi = PyLong_AsSsize_t(PyList_GET_ITEM(l->starts, k + 1));
    PyObject *seg = PySequence_Fast_GET_ITEM(l->segments, lo);
    PyObject *offset = NULL, *chars = NULL, *info = NULL, *shown = NULL, *loc = NULL;
    if (hi - lo == 1) {
        PyObject *step = PyLong_FromSsize_t(m.at - at);
        offset = step ? PyNumber_Add(PyTuple_GET_ITEM(seg, 2), step) : NULL;
        Py_XDECREF(step);
    }
    else {
        PyObject *runs = PySequence_GetSlice(l->segments, lo, hi);
        offset = runs ? PyObject_CallFunction(l->run_offset, "On", runs, m.at - at) : NULL;
        Py_XDECREF(runs);
    }
    chars = offset ? PyUnicode_Substring(l->blob, m.at, m.at + m.len) : NULL;
    if (chars != NULL) {
        info = PyDict_GetItemWithError(l->info, chars);
        if (info != NULL) {
            Py_INCREF(info);
        }
        else if (!PyErr_Occurred()) {
            info = PyObject_CallOneArg(l->info_of, chars);
        }
    }
    if (info != NULL && (!PyTuple_Check(info) || PyTuple_GET_SIZE(info) != 3)) {
        PyErr_SetString(PyExc_TypeError, "a location's info must be 3 strings");
        Py_CLEAR(info);
    }
    if (info != NULL) {
        Py_ssize_t end = at + PyUnicode_GET_LENGTH(PyList_GET_ITEM(l->texts, k));
        Py_ssize_t left = m.at - CONTEXT, right = m.at + m.len + CONTEXT;
        PyObject *context = PyUnicode_Substring(l->blob, left > at ? left : at,
                                                right < end ? right : end);
        shown = context ? escaped_context(context, l->escape) : NULL;
        Py_XDECREF(context);
    }
    if (shown != NULL) {
        PyObject *fields[7] = {
            PyTuple_GET_ITEM(seg, 0), PyTuple_GET_ITEM(seg, 1), offset,
            PyTuple_GET_ITEM(info, 0), PyTuple_GET_ITEM(info, 1), PyTuple_GET_ITEM(info, 2),
            shown,
        };
        loc = make_location(fields, l->location);
    }
    Py_XDECREF(offset);
    Py_XDECREF(chars);
    Py_XDECREF(info);
    Py_XDECREF(shown);
    return loc;
}

PyDoc_STRVAR(locate_doc,
"locate(segments, texts, starts, blob, halves, pua, limit, helpers, /)\n--\n\n"
"surrogates._locations; helpers is (info, info_of, escape, run_offset, Location).\n"
"None (nothing done) for arguments it would not take.");

static PyObject *
locate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "locate takes 8 arguments");
        return NULL;
    }
    PyObject *segments = args[0], *texts = args[1], *starts = args[2], *blob = args[3];
    PyObject *helpers = args[7];
    int halves = PyObject_IsTrue(args[4]), pua = PyObject_IsTrue(args[5]);
    Py_ssize_t limit = PyLong_AsSsize_t(args[6]);
    if (halves < 0 || pua < 0 || (limit == -1 && PyErr_Occurred())) {
        return NULL;
    }
    if (limit < 0 || limit > 100000 || !locate_arguments_fit(segments, texts, starts, blob, helpers)) {
        Py_RETURN_NONE;
    }
    PyObject *info = PyTuple_GET_ITEM(helpers, 0), *type = PyTuple_GET_ITEM(helpers, 4);
    if (!PyDict_Check(info) || !PyType_Check(type) ||
        !PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type)) {
        Py_RETURN_NONE;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(blob) < 0) {
        return NULL;
    }
#endif
    const int kind = PyUnicode_KIND(blob);
    const void *data = PyUnicode_DATA(blob);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(blob);
    Match *matches = PyMem_New(Match, limit > 0 ? limit : 1);
    Py_ssize_t *begins = NULL;
    PyObject *found = NULL;
    if (matches == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t last, count = find_matches(kind, data, n, halves, pua, limit, matches, &last);
    /* paragraph k begins after the k texts before it and their newlines; only those up
     * to the last defect are needed (no more than the newlines before it) */
    Py_ssize_t reach = 1, paragraphs = PyList_GET_SIZE(texts);
    for (Py_ssize_t i = 0; i < last; i++) {
        reach += PyUnicode_READ(kind, data, i) == '\n';
    }
    if (reach > paragraphs) {
        reach = paragraphs;
    }
    begins = PyMem_New(Py_ssize_t, reach + 1);
    if (begins == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    begins[0] = 0;
    for (Py_ssize_t k = 0; k < reach; k++) {
        begins[k + 1] = begins[k] + PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, k)) + 1;
    }
    Locate l = {
        .segments = segments, .texts = texts, .starts = starts, .blob = blob, .info = info,
        .info_of = PyTuple_GET_ITEM(helpers, 1), .escape = PyTuple_GET_ITEM(helpers, 2),
        .run_offset = PyTuple_GET_ITEM(helpers, 3), .location = (PyTypeObject *)type,
        .begins = begins, .reach = reach,
    };
    found = PyTuple_New(count);
    for (Py_ssize_t j = 0; found != NULL && j < count; j++) {
        PyObject *loc = one_location(&l, matches[j]);
        if (loc == NULL) {
            Py_CLEAR(found);
            break;
        }
        PyTuple_SET_ITEM(found, j, loc);
    }
done:
    PyMem_Free(matches);
    PyMem_Free(begins);
    return found;
}

PyDoc_STRVAR(find_in_ranges_doc,
"find_in_ranges(text, ranges, /)\n--\n\n"
"The index of the first character of *text* whose code point lies in one of *ranges*\n"
"(a tuple of at most 8 (first, last) pairs, both ends included), or -1: a regex\n"
"class's search, a few instructions a character.");

#define MAX_RANGES 8

static PyObject *
find_in_ranges(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "find_in_ranges: a str and a tuple are needed");
        return NULL;
    }
    PyObject *text = args[0], *ranges = args[1];
    const Py_ssize_t count = PyTuple_GET_SIZE(ranges);
    if (count > MAX_RANGES) {
        PyErr_SetString(PyExc_ValueError, "find_in_ranges: at most 8 ranges");
        return NULL;
    }
    Py_UCS4 lo[MAX_RANGES], hi[MAX_RANGES];
    Py_UCS4 least = 0x110000;
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *pair = PyTuple_GET_ITEM(ranges, r);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "find_in_ranges: each range is a (first, last) pair");
            return NULL;
        }
        unsigned long a = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(pair, 0));
        if (a == (unsigned long)-1 && PyErr_Occurred()) {
            return NULL;
        }
        unsigned long b = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(pair, 1));
        if (b == (unsigned long)-1 && PyErr_Occurred()) {
            return NULL;
        }
        if (a > 0x10FFFF || b > 0x10FFFF || a > b) {
            PyErr_SetString(PyExc_ValueError, "find_in_ranges: a range of code points is needed");
            return NULL;
        }
        lo[r] = (Py_UCS4)a;
        hi[r] = (Py_UCS4)b;
        if (lo[r] < least) {
            least = lo[r];
        }
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (count == 0 || PyUnicode_MAX_CHAR_VALUE(text) < least) { /* nothing can match */
        return PyLong_FromLong(-1);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < least) {
            continue;
        }
        for (Py_ssize_t r = 0; r < count; r++) {
            if (c >= lo[r] && c <= hi[r]) {
                return PyLong_FromSsize_t(i);
            }
        }
    }
    return PyLong_FromLong(-1);
}

static PyMethodDef methods[] = {
    {"count_notable", count_notable, METH_O, count_notable_doc},
    {"find_in_ranges", (PyCFunction)(void (*)(void))find_in_ranges, METH_FASTCALL,
     find_in_ranges_doc},
    {"locate", (PyCFunction)(void (*)(void))locate, METH_FASTCALL, locate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hwpscan.forensics._counting",
    .m_doc = "Native counting of surrogates and private use (the Python code is the reference).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__counting(void)
{
    return PyModuleDef_Init(&module_def);
}
