/* The layout of a well-formed compound file (CFB / OLE2) in C: the optional fast path of
 * hwpscan.formats.cfb_fast.CfbStreams' constructor, which stays the reference.
 *
 * layout(data) reads the header, the DIFAT, the FAT, the MiniFAT and the directory with
 * the same checks as the Python constructor and returns what that constructor computes:
 * (streams, ministream_runs, paths), streams mapping each stream's lowercased path to
 * (path as written, size, sector runs, mini flag). Wherever the Python constructor would
 * decline it returns None (so the caller runs the Python constructor, which then counts
 * the decline with its reason); it may return None in a few more cases too, never the
 * other way round. tests/test_native_cfb.py drives both over fixtures, generated files
 * and a stream of mutated ones.
 *
 * The input is hostile: every read is checked against the buffer's length before it is
 * made (a sector number is used only once it is below the file's sector count), sector
 * offsets are 64-bit, the directory tree is walked with an explicit stack bounded by
 * the same entry and depth limits as the Python walk, and every allocation is bounded by
 * len(data).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_cfb_core.h"

static PyObject *
pair(int64_t a, int64_t b)
{
    PyObject *item = PyTuple_New(2);
    if (item == NULL) {
        return NULL;
    }
    PyObject *x = PyLong_FromLongLong(a);
    if (x == NULL) {
        Py_DECREF(item);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 0, x);
    PyObject *y = PyLong_FromLongLong(b);
    if (y == NULL) {
        Py_DECREF(item);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 1, y);
    return item;
}

/* cfb_fast._runs: consecutive sector numbers merged, [(first, count), ...]. */
static PyObject *
runs_list(const uint32_t *sectors, int64_t k)
{
    PyObject *list = PyList_New(0);
    if (list == NULL) {
        return NULL;
    }
    int64_t i = 0;
    while (i < k) {
        int64_t j = i + 1;
        while (j < k && (int64_t)sectors[j] == (int64_t)sectors[j - 1] + 1) {
            j++;
        }
        PyObject *run = pair(sectors[i], j - i);
        if (run == NULL || PyList_Append(list, run) < 0) {
            Py_XDECREF(run);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(run);
        i = j;
    }
    return list;
}

/* cfb_fast.CfbStreams._minifat: the MiniFAT cut to the mini stream, and the mini
 * stream's runs in *ministream* (a new list). */
static int
minifat(Cfb *c, uint32_t root_size, uint32_t root_start, uint32_t start, uint32_t count,
        PyObject **ministream)
{
    int status = cfb_minifat(c, root_size, start, count);
    if (status != OK) {
        return status;
    }
    if (root_size) {
        int64_t need = ((int64_t)root_size + SECTOR - 1) / SECTOR;
        int64_t k = chain(c->fat, c->nsect, c->used, root_start, need, c->scratch);
        if (k < 0) {
            return DECLINE;
        }
        *ministream = runs_list(c->scratch, k);
    }
    else if (root_start != ENDOFCHAIN) {
        return DECLINE;
    }
    else {
        *ministream = PyList_New(0);
    }
    return *ministream == NULL ? FAILED : OK;
}

/* cfb_fast._entry_name: the checked name of a directory entry in *name* (new ref). */
static int
entry_name(const unsigned char *raw, PyObject **name)
{
    uint32_t length = u16_at(raw + 64);
    if (length & 1 || length <= 2 || length > 64 || raw[length - 2] || raw[length - 1]) {
        return DECLINE;
    }
    const uint32_t units = (length - 2) / 2;
    int ascii = 1;
    for (uint32_t i = 0; i < units; i++) {
        uint32_t u = u16_at(raw + 2 * i);
        if (u == 0 || u == '/') {
            return DECLINE;
        }
        if (u >= 0xD800 && u < 0xDC00) { /* a high surrogate needs a low one next */
            if (i + 1 >= units) {
                return DECLINE;
            }
            uint32_t v = u16_at(raw + 2 * (i + 1));
            if (v < 0xDC00 || v > 0xDFFF) {
                return DECLINE;
            }
            i++;
            ascii = 0;
        }
        else if (u >= 0xDC00 && u <= 0xDFFF) {
            return DECLINE;
        }
        else if (u >= 0x80) {
            ascii = 0;
        }
    }
    if (ascii) {
        *name = PyUnicode_New(units, 127);
        if (*name == NULL) {
            return FAILED;
        }
        Py_UCS1 *out = PyUnicode_1BYTE_DATA(*name);
        for (uint32_t i = 0; i < units; i++) {
            out[i] = raw[2 * i];
        }
        return OK;
    }
    int order = -1; /* little-endian, a byte order mark kept as a character */
    *name = PyUnicode_DecodeUTF16((const char *)raw, 2 * units, "strict", &order);
    if (*name == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        /* not reached (the units were checked above); the Python constructor decides */
        PyErr_Clear();
        return DECLINE;
    }
    return *name == NULL ? FAILED : OK;
}

/* path.lower() (new ref), without the method call for an ASCII path. */
static PyObject *
lower(PyObject *path)
{
    if (!PyUnicode_IS_ASCII(path)) {
        return PyObject_CallMethod(path, "lower", NULL);
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(path);
    PyObject *key = PyUnicode_New(n, 127);
    if (key == NULL) {
        return NULL;
    }
    const Py_UCS1 *in = PyUnicode_1BYTE_DATA(path);
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = (in[i] >= 'A' && in[i] <= 'Z') ? in[i] + 32 : in[i];
    }
    return key;
}

/* cfb_fast.CfbStreams._entry: one stream entry checked and noted in *streams*. */
static int
stream_entry(Cfb *c, const unsigned char *e, PyObject *path, PyObject *streams)
{
    uint32_t child = u32_at(e + 76), start = u32_at(e + 116);
    uint32_t low = u32_at(e + 120), high = u32_at(e + 124);
    if (e[66] != STREAM || child != NOSTREAM || high) {
        return DECLINE;
    }
    PyObject *key = lower(path);
    if (key == NULL) {
        return FAILED;
    }
    int result = FAILED;
    PyObject *runs = NULL, *value = NULL;
    int known = PyDict_Contains(streams, key);
    if (known != 0) {
        result = known < 0 ? FAILED : DECLINE;
        goto done;
    }
    int mini = 0;
    if (low == 0) {
        if (start != ENDOFCHAIN) {
            result = DECLINE;
            goto done;
        }
        runs = PyList_New(0);
    }
    else {
        int64_t k;
        if (low < CUTOFF) {
            mini = 1;
            k = chain(c->minifat, c->nmini, c->used_mini, start, (low + MINI - 1) / MINI,
                      c->mini_scratch);
        }
        else {
            k = chain(c->fat, c->nsect, c->used, start, ((int64_t)low + SECTOR - 1) / SECTOR,
                      c->scratch);
        }
        if (k < 0) {
            result = DECLINE;
            goto done;
        }
        runs = runs_list(mini ? c->mini_scratch : c->scratch, k);
    }
    if (runs == NULL) {
        goto done;
    }
    value = Py_BuildValue("(OkOO)", path, (unsigned long)low, runs, mini ? Py_True : Py_False);
    if (value != NULL && PyDict_SetItem(streams, key, value) == 0) {
        result = OK;
    }
done:
    Py_DECREF(key);
    Py_XDECREF(runs);
    Py_XDECREF(value);
    return result;
}

typedef struct {
    uint32_t sid;
    int32_t prefix; /* index in the walk's prefixes, -1 for the root's "" */
    int32_t depth;  /* as in olefile's recursion */
} Item;

/* One reached entry: its siblings pushed, its name checked, then a storage's children
 * pushed or a stream noted. */
static int
visit(Cfb *c, const unsigned char *e, Item item, Item **top, PyObject *prefixes,
      PyObject *streams)
{
    *(*top)++ = (Item){u32_at(e + 68), item.prefix, item.depth + 1};
    *(*top)++ = (Item){u32_at(e + 72), item.prefix, item.depth + 1};
    PyObject *name = NULL, *path;
    int result = entry_name(e, &name);
    if (result != OK) {
        return result;
    }
    if (item.prefix < 0) {
        path = name;
    }
    else {
        path = PyUnicode_Concat(PyList_GET_ITEM(prefixes, item.prefix), name);
        Py_DECREF(name);
        if (path == NULL) {
            return FAILED;
        }
    }
    if (e[66] != STORAGE) {
        result = stream_entry(c, e, path, streams);
        Py_DECREF(path);
        return result;
    }
    if (u32_at(e + 120) || u32_at(e + 124)) {
        Py_DECREF(path);
        return DECLINE;
    }
    PyObject *slash = PyUnicode_FromString("/");
    PyObject *prefix = slash == NULL ? NULL : PyUnicode_Concat(path, slash);
    Py_XDECREF(slash);
    Py_DECREF(path);
    if (prefix == NULL) {
        return FAILED;
    }
    Py_ssize_t index = PyList_GET_SIZE(prefixes);
    int failed = PyList_Append(prefixes, prefix);
    Py_DECREF(prefix);
    if (failed < 0) {
        return FAILED;
    }
    *(*top)++ = (Item){u32_at(e + 76), (int32_t)index, item.depth + 2};
    return OK;
}

/* cfb_fast.CfbStreams._walk: every stream reachable from the root, each chain checked. */
static int
walk(Cfb *c, PyObject *streams)
{
    const int64_t count = 4 * c->ndir;
    const int64_t reachable = count < MAX_ENTRIES ? count : MAX_ENTRIES;
    /* each reached entry pushes at most 3 items; at most `reachable` are reached */
    Item *stack = PyMem_Malloc(sizeof(Item) * (size_t)(3 * reachable + 1));
    unsigned char *seen = PyMem_Calloc((size_t)count, 1);
    PyObject *prefixes = PyList_New(0);
    int result = FAILED;
    if (stack == NULL || seen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (prefixes == NULL) {
        goto done;
    }
    seen[0] = 1;
    Item *top = stack;
    *top++ = (Item){u32_at(entry_at(c, 0) + 76), -1, 2};
    int64_t reached = 0;
    result = OK;
    while (top > stack && result == OK) {
        Item item = *--top;
        if (item.sid == NOSTREAM) {
            continue;
        }
        if ((int64_t)item.sid >= count || seen[item.sid] || item.depth > MAX_TREE_DEPTH ||
            ++reached > MAX_ENTRIES) {
            result = DECLINE;
            break;
        }
        seen[item.sid] = 1;
        result = visit(c, entry_at(c, item.sid), item, &top, prefixes, streams);
    }
done:
    PyMem_Free(stack);
    PyMem_Free(seen);
    Py_XDECREF(prefixes);
    return result;
}

/* Everything after the header: FAT, directory, root entry, MiniFAT, streams. */
static int
read_layout(Cfb *c, const uint32_t *h, PyObject **ministream, PyObject *streams)
{
    int result = fat(c, h[0], h[4], h[5]);
    if (result != OK) {
        return result;
    }
    c->ndir = chain(c->fat, c->nsect, c->used, h[1], -1, c->dir);
    if (c->ndir <= 0) { /* a decline, or a directory without its root entry */
        return DECLINE;
    }
    const unsigned char *root = entry_at(c, 0);
    if (root[66] != ROOT || u32_at(root + 124)) {
        return DECLINE;
    }
    result = minifat(c, u32_at(root + 120), u32_at(root + 116), h[2], h[3], ministream);
    if (result != OK) {
        return result;
    }
    return walk(c, streams);
}

/* The result tuple: (streams, ministream runs, paths sorted by their lowercased keys). */
static PyObject *
result_tuple(PyObject *streams, PyObject *ministream)
{
    PyObject *keys = PyDict_Keys(streams), *result = NULL;
    if (keys == NULL || PyList_Sort(keys) < 0) {
        goto done;
    }
    /* the keys are unique, so sorting them is sorting the paths by str.lower */
    Py_ssize_t n = PyList_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        PyObject *value = PyDict_GetItemWithError(streams, key);
        if (value == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_RuntimeError, "stream key vanished");
            }
            goto done;
        }
        /* the list's reference moves from the key (which the dict still holds) to the
         * path (which the dict's value holds) */
        PyList_SET_ITEM(keys, i, Py_NewRef(PyTuple_GET_ITEM(value, 0)));
        Py_DECREF(key);
    }
    result = Py_BuildValue("(OOO)", streams, ministream, keys);
done:
    Py_XDECREF(keys);
    return result;
}

PyDoc_STRVAR(layout_doc,
"layout(data, /)\n--\n\n"
"The layout CfbStreams(data) computes: (streams, ministream_runs, paths), streams\n"
"mapping lowercased path -> (path, size, runs, mini); None where it would decline.");

static PyObject *
layout(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Cfb c = {0};
    PyObject *streams = NULL, *ministream = NULL, *result = NULL;
    uint32_t h[6];
    int read = header(view.buf, view.len, h);
    if (read != OK) {
        goto done;
    }
    c.data = view.buf;
    c.nsect = view.len / SECTOR - 1;
    c.used = PyMem_Calloc((size_t)c.nsect, 1);
    c.fat = PyMem_Malloc(sizeof(uint32_t) * (size_t)c.nsect);
    c.scratch = PyMem_Malloc(sizeof(uint32_t) * (size_t)c.nsect);
    c.dir = PyMem_Malloc(sizeof(uint32_t) * (size_t)c.nsect);
    if (c.used == NULL || c.fat == NULL || c.scratch == NULL || c.dir == NULL) {
        PyErr_NoMemory();
        read = FAILED;
        goto done;
    }
    streams = PyDict_New();
    if (streams == NULL) {
        read = FAILED;
        goto done;
    }
    read = read_layout(&c, h, &ministream, streams);
    if (read == OK) {
        result = result_tuple(streams, ministream);
        read = result == NULL ? FAILED : OK;
    }
done:
    if (read == DECLINE) {
        result = Py_NewRef(Py_None);
    }
    Py_XDECREF(streams);
    Py_XDECREF(ministream);
    PyMem_Free(c.used);
    PyMem_Free(c.fat);
    PyMem_Free(c.scratch);
    PyMem_Free(c.dir);
    PyMem_Free(c.minifat);
    PyMem_Free(c.used_mini);
    PyMem_Free(c.mini_scratch);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"layout", layout, METH_O, layout_doc},
    {NULL, NULL, 0, NULL},
};

static int
exec_module(PyObject *module)
{
    if (PyModule_AddIntConstant(module, "MAX_ENTRIES", MAX_ENTRIES) < 0) {
        return -1;
    }
    return PyModule_AddIntConstant(module, "MAX_TREE_DEPTH", MAX_TREE_DEPTH);
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hwpscan.formats._cfb",
    .m_doc = "The layout of a well-formed compound file (the Python reader is the reference).",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC
PyInit__cfb(void)
{
    return PyModuleDef_Init(&module_def);
}
