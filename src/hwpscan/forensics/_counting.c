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
                if (is_pua(merged) && count_char(pua, merged) < 0) {
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
            if (count_char(pua, c) < 0) {
                goto fail;
            }
        }
    }
done:;
    PyObject *result = Py_BuildValue("(nnNO)", surrogates, pairs, pua, own_pua ? Py_True : Py_False);
    return result;
fail:
    Py_DECREF(pua);
    return NULL;
}

static PyMethodDef methods[] = {
    {"count_notable", count_notable, METH_O, count_notable_doc},
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
