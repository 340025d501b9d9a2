/* The JSON of a result's locations in C: the optional fast path of
 * hwpscan.report.export._locations, whose Python code (an f-string per location, strings
 * through json's own C string encoder) is the reference. A contaminated file's line holds
 * twenty-odd locations of seven fields; written here they cost a fraction of what the
 * f-strings did. tests/test_native_lines.py holds the two equal.
 *
 * Strings are escaped exactly as json.encoder.encode_basestring (ensure_ascii=False)
 * escapes them: '"' and '\\' by a backslash, \b \f \n \r \t by their short escapes, any
 * other code point below 0x20 as \u00xx in lowercase hex, everything else as it is.
 * Anything not of the expected shape (a field that is not exactly a str or an int, an
 * int past 64 bits, a location that is not a 7-tuple) gets None back: the Python code
 * then writes it, so the answer is always the reference's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define FIELDS 7

/* What is written before each field of a location, and after the last one. */
static const char *const PREFIX[FIELDS] = {
    "{\"stream\": ", ", \"paragraph\": ", ", \"offset\": ", ", \"codepoint\": ",
    ", \"kind\": ", ", \"units\": ", ", \"context\": ",
};
static const char CLOSE[] = "}";
static const char SEPARATOR[] = ", ";
/* Which fields are ints (the others are str). */
static const int IS_INT[FIELDS] = {0, 1, 1, 0, 0, 0, 0};

/* The escaped length of one code point (its quotes not counted). */
static inline Py_ssize_t
escaped_len(Py_UCS4 c)
{
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' ||
        c == '\t') {
        return 2;
    }
    return c < 0x20 ? 6 : 1;
}

#define EXTRA(T, DATA)                                                                  \
    do {                                                                                \
        const T *p = (const T *)(DATA);                                                 \
        for (Py_ssize_t i = 0; i < n; i++) {                                            \
            if (p[i] < 0x20 || p[i] == '"' || p[i] == '\\') {                           \
                extra += escaped_len(p[i]) - 1;                                         \
            }                                                                           \
        }                                                                               \
    } while (0)

/* The escaped length of a str, quotes included (at most 6 per code point plus 2). */
static Py_ssize_t
quoted_len(PyObject *s)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    Py_ssize_t extra = 0;
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND: EXTRA(Py_UCS1, PyUnicode_1BYTE_DATA(s)); break;
    case PyUnicode_2BYTE_KIND: EXTRA(Py_UCS2, PyUnicode_2BYTE_DATA(s)); break;
    default: EXTRA(Py_UCS4, PyUnicode_4BYTE_DATA(s));
    }
    return 2 + n + extra;
}

/* The decimal text of v into buf (at least 21 bytes), NUL-terminated; its length. */
static int
decimal(long long v, char *buf)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int len = 0;
    if (v < 0) {
        buf[len++] = '-';
    }
    while (n) {
        buf[len++] = tmp[--n];
    }
    buf[len] = '\0';
    return len;
}

/* One writer per string kind: T is the code unit type of the text being written. */
#define WRITERS(T, SUFFIX)                                                              \
    static inline T *put_ascii_##SUFFIX(T *out, const char *text)                       \
    {                                                                                   \
        for (; *text; text++) {                                                         \
            *out++ = (T)(unsigned char)*text;                                           \
        }                                                                               \
        return out;                                                                     \
    }                                                                                   \
    static T *put_quoted_##SUFFIX(T *out, PyObject *s)                                  \
    {                                                                                   \
        static const char hex[] = "0123456789abcdef";                                   \
        const int kind = PyUnicode_KIND(s);                                             \
        const void *data = PyUnicode_DATA(s);                                           \
        const Py_ssize_t n = PyUnicode_GET_LENGTH(s);                                   \
        *out++ = '"';                                                                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                            \
            Py_UCS4 c = PyUnicode_READ(kind, data, i);                                  \
            if (c >= 0x20 && c != '"' && c != '\\') {                                   \
                *out++ = (T)c;                                                          \
                continue;                                                               \
            }                                                                           \
            *out++ = '\\';                                                              \
            switch (c) {                                                                \
            case '"': *out++ = '"'; break;                                              \
            case '\\': *out++ = '\\'; break;                                            \
            case '\b': *out++ = 'b'; break;                                             \
            case '\f': *out++ = 'f'; break;                                             \
            case '\n': *out++ = 'n'; break;                                             \
            case '\r': *out++ = 'r'; break;                                             \
            case '\t': *out++ = 't'; break;                                             \
            default:                                                                    \
                *out++ = 'u';                                                           \
                *out++ = '0';                                                           \
                *out++ = '0';                                                           \
                *out++ = (T)hex[c >> 4];                                                \
                *out++ = (T)hex[c & 0xF];                                               \
            }                                                                           \
        }                                                                               \
        *out++ = '"';                                                                   \
        return out;                                                                     \
    }                                                                                   \
    static Py_ssize_t write_##SUFFIX(T *start, PyObject **items, Py_ssize_t count,      \
                                     char (*digits)[2][24])                             \
    {                                                                                   \
        T *out = start;                                                                 \
        *out++ = '[';                                                                   \
        for (Py_ssize_t i = 0; i < count; i++) {                                        \
            if (i) {                                                                    \
                out = put_ascii_##SUFFIX(out, SEPARATOR);                               \
            }                                                                           \
            int ints = 0;                                                               \
            for (int f = 0; f < FIELDS; f++) {                                          \
                out = put_ascii_##SUFFIX(out, PREFIX[f]);                               \
                if (IS_INT[f]) {                                                        \
                    out = put_ascii_##SUFFIX(out, digits[i][ints++]);                   \
                }                                                                       \
                else {                                                                  \
                    out = put_quoted_##SUFFIX(out, PyTuple_GET_ITEM(items[i], f));      \
                }                                                                       \
            }                                                                           \
            out = put_ascii_##SUFFIX(out, CLOSE);                                       \
        }                                                                               \
        *out++ = ']';                                                                   \
        return out - start;                                                             \
    }

WRITERS(Py_UCS1, 1)
WRITERS(Py_UCS2, 2)
WRITERS(Py_UCS4, 4)

PyDoc_STRVAR(locations_doc,
"locations(found, /)\n--\n\n"
"The JSON array of *found* (a sequence of Location 7-tuples) exactly as\n"
"export._locations writes it, or None where a field is not of the shape that code\n"
"expects (the Python code then writes it).");

static PyObject *
locations(PyObject *module, PyObject *found)
{
    (void)module;
    PyObject *seq = PySequence_Fast(found, "locations: a sequence is needed");
    if (seq == NULL) {
        return NULL;
    }
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *result = NULL;
    /* the decimal text of each location's two ints, made in the first pass */
    char (*digits)[2][24] = NULL;
    if (count == 0) {
        result = PyUnicode_FromString("[]");
        goto done;
    }
    digits = PyMem_Malloc(sizeof(*digits) * (size_t)count);
    if (digits == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* pass 1: check every field, and add up the length and the widest kind */
    Py_ssize_t total = 2 + (Py_ssize_t)(sizeof(SEPARATOR) - 1) * (count - 1);
    Py_UCS4 widest = 0x7F;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *loc = items[i];
        if (!PyTuple_Check(loc) || PyTuple_GET_SIZE(loc) != FIELDS) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        int ints = 0;
        for (int f = 0; f < FIELDS; f++) {
            PyObject *value = PyTuple_GET_ITEM(loc, f);
            total += (Py_ssize_t)strlen(PREFIX[f]);
            if (IS_INT[f]) {
                if (!PyLong_CheckExact(value)) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                int overflow = 0;
                long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
                if (overflow || (v == -1 && PyErr_Occurred())) {
                    PyErr_Clear();
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                total += decimal(v, digits[i][ints]);
                ints++;
            }
            else {
                if (!PyUnicode_CheckExact(value)) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
#if PY_VERSION_HEX < 0x030C0000
                if (PyUnicode_READY(value) < 0) {
                    goto done;
                }
#endif
                /* a str is at most PY_SSIZE_T_MAX / 8 code points: no overflow here */
                Py_ssize_t len = quoted_len(value);
                if (len > PY_SSIZE_T_MAX / 8 || total > PY_SSIZE_T_MAX / 8) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                total += len;
                Py_UCS4 top = PyUnicode_MAX_CHAR_VALUE(value);
                if (top > widest) {
                    widest = top;
                }
            }
        }
        total += (Py_ssize_t)(sizeof(CLOSE) - 1);
    }
    /* every str is canonical, so the widest kind among them is the kind the text needs */
    result = PyUnicode_New(total, widest);
    if (result == NULL) {
        goto done;
    }
    Py_ssize_t written;
    switch (PyUnicode_KIND(result)) {
    case PyUnicode_1BYTE_KIND:
        written = write_1(PyUnicode_1BYTE_DATA(result), items, count, digits);
        break;
    case PyUnicode_2BYTE_KIND:
        written = write_2(PyUnicode_2BYTE_DATA(result), items, count, digits);
        break;
    default:
        written = write_4(PyUnicode_4BYTE_DATA(result), items, count, digits);
    }
    if (written != total) { /* cannot happen: both passes count the same */
        Py_CLEAR(result);
        PyErr_SetString(PyExc_SystemError, "locations: length miscounted");
    }
done:
    PyMem_Free(digits);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef methods[] = {
    {"locations", locations, METH_O, locations_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hwpscan.report._lines",
    .m_doc = "The JSON of a result's locations in C (the Python code is the reference).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__lines(void)
{
    return PyModuleDef_Init(&module_def);
}
