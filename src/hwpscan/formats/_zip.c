/* The ZIP package of an HWPX file in C: the optional fast path of the zipfile reads in
 * hwpscan.formats.hwpx (zipfile stays the reference and the fallback).
 *
 * central(data, max_entries, max_declared) reads the end of central directory record
 * and the central directory of a whole ZIP held in memory and returns one tuple per
 * entry, in directory order: (name, flag_bits, method, crc, compress_size, file_size,
 * data_at), data_at being where the entry's data starts after its local header. It
 * returns None for anything outside the plain form package writers use, so the caller
 * runs zipfile, which then reads the file or says what is wrong with it: an archive
 * comment, a ZIP64 record or field, a multi-disk field, data before the first entry
 * (a self-extractor), a directory that does not fill the space its record gives it
 * exactly or is not where the record says (a stub before the archive that its offsets
 * do not count), no entries or more than max_entries, declared sizes adding up past
 * max_declared, a version needed above 6.3, flag bits other than the deflate options,
 * the data descriptor and UTF-8 names (so no encryption), a method other than stored
 * or deflate, an Info-ZIP Unicode path field, a malformed extra field, a name that is
 * empty, holds a NUL or is not valid UTF-8 under the UTF-8 flag, a name given twice,
 * two entries at one offset, a local header that is missing, names the entry
 * otherwise, or whose data runs into the next entry or the directory.
 *
 * inflate(data, data_at, compress_size, file_size, method, crc) returns the entry's
 * bytes when its data inflates (or, stored, copies) to exactly file_size bytes, ends
 * exactly at compress_size bytes and matches its CRC-32; anything else returns None.
 *
 * The input is hostile: every read is bounded by the buffer's length, the output by the
 * size the caller accepted (it asks only for entries under its byte cap).
 * tests/test_hwpx_fast_zip.py drives both paths over fixtures, generated packages,
 * hand-made damage and a stream of mutated packages.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "_le.h"

#define EOCD_SIZE 22
#define CDIR_SIZE 46
#define LOCAL_SIZE 30
#define LOCATOR_SIZE 20
/* zipfile's MAX_EXTRACT_VERSION: 6.3 */
#define MAX_EXTRACT_VERSION 63
/* flag bits read the same by every reader: deflate options, data descriptor, UTF-8 */
#define PLAIN_FLAGS (0x2u | 0x4u | 0x8u | 0x800u)
#define UTF8_FLAG 0x800u

typedef struct {
    Py_ssize_t header_at; /* local header offset */
    Py_ssize_t name_at, name_len;
    uint32_t flags, csize, usize;
} Entry;

/* The extra field s[0:n]: whole blocks, none that zipfile reads (ZIP64 0x0001, the
 * Unicode path 0x7075). */
static int plain_extra(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t p = 0;
    while (p < n) {
        if (p + 4 > n)
            return 0;
        uint32_t id = u16_at(s + p), len = u16_at(s + p + 2);
        if (id == 0x0001 || id == 0x7075 || p + 4 + (Py_ssize_t)len > n)
            return 0;
        p += 4 + (Py_ssize_t)len;
    }
    return 1;
}

/* The entry name as zipfile decodes it (UTF-8 under the flag, else cp437), or NULL with
 * no error set where it declines. */
static PyObject *entry_name(const unsigned char *s, Py_ssize_t n, uint32_t flags) {
    if (n == 0 || memchr(s, 0, (size_t)n) != NULL)
        return NULL;
    int ascii = 1;
    for (Py_ssize_t i = 0; i < n && ascii; i++)
        ascii = s[i] < 0x80;
    PyObject *name;
    if (ascii)
        name = PyUnicode_DecodeASCII((const char *)s, n, "strict");
    else if (flags & UTF8_FLAG)
        name = PyUnicode_DecodeUTF8((const char *)s, n, "strict");
    else
        name = PyUnicode_Decode((const char *)s, n, "cp437", "strict");
    if (name == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        PyErr_Clear();
    return name;
}

static int by_offset(const void *a, const void *b) {
    Py_ssize_t x = (*(Entry *const *)a)->header_at, y = (*(Entry *const *)b)->header_at;
    return (x > y) - (x < y);
}

/* The local header of e, checked against the directory; where its data starts, or -1.
 * end: where the next entry (or the directory) starts. */
static Py_ssize_t local_data(const unsigned char *s, const Entry *e, Py_ssize_t end) {
    Py_ssize_t at = e->header_at;
    if (at + LOCAL_SIZE > end || memcmp(s + at, "PK\x03\x04", 4) != 0)
        return -1;
    uint32_t flags = u16_at(s + at + 6);
    Py_ssize_t name_len = u16_at(s + at + 26), extra_len = u16_at(s + at + 28);
    if ((flags & UTF8_FLAG) != (e->flags & UTF8_FLAG) || name_len != e->name_len)
        return -1;
    Py_ssize_t data_at = at + LOCAL_SIZE + name_len + extra_len;
    if (data_at > end || (Py_ssize_t)e->csize > end - data_at)
        return -1;
    if (memcmp(s + at + LOCAL_SIZE, s + e->name_at, (size_t)name_len) != 0)
        return -1;
    return data_at;
}

/* The directory's entries into out (count of them); 0 where it declines. */
static int read_directory(const unsigned char *s, Py_ssize_t cd_at, Py_ssize_t cd_end,
                          Entry *out, Py_ssize_t count, unsigned long long max_declared) {
    Py_ssize_t p = cd_at;
    unsigned long long declared = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (p + CDIR_SIZE > cd_end || memcmp(s + p, "PK\x01\x02", 4) != 0)
            return 0;
        const unsigned char *h = s + p;
        uint32_t flags = u16_at(h + 8), method = u16_at(h + 10);
        Entry *e = &out[i];
        e->flags = flags;
        e->csize = u32_at(h + 20);
        e->usize = u32_at(h + 24);
        Py_ssize_t name_len = u16_at(h + 28), extra_len = u16_at(h + 30);
        Py_ssize_t comment_len = u16_at(h + 32);
        e->header_at = u32_at(h + 42);
        e->name_at = p + CDIR_SIZE;
        e->name_len = name_len;
        if (h[6] > MAX_EXTRACT_VERSION || (flags & ~PLAIN_FLAGS) || (method != 0 && method != 8))
            return 0;
        if (e->csize == 0xFFFFFFFFu || e->usize == 0xFFFFFFFFu || u32_at(h + 42) == 0xFFFFFFFFu)
            return 0;
        if (u16_at(h + 34) != 0) /* disk number start */
            return 0;
        if (e->header_at + LOCAL_SIZE > cd_at) /* every local header before the directory */
            return 0;
        if (method == 0 && e->csize != e->usize)
            return 0;
        Py_ssize_t next = p + CDIR_SIZE + name_len + extra_len + comment_len;
        if (next > cd_end || !plain_extra(s + e->name_at + name_len, extra_len))
            return 0;
        declared += e->usize;
        if (declared > max_declared)
            return 0;
        p = next;
    }
    return p == cd_end;
}

/* Every entry's data start into data_at; 0 where an entry's local header declines, or
 * two entries share an offset. */
static int locate(const unsigned char *s, Entry *entries, Py_ssize_t count, Py_ssize_t cd_at,
                  Py_ssize_t *data_at) {
    Entry **order = PyMem_Malloc((size_t)count * sizeof(Entry *));
    if (order == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < count; i++)
        order[i] = &entries[i];
    qsort(order, (size_t)count, sizeof(Entry *), by_offset);
    int ok = 1;
    for (Py_ssize_t k = 0; k < count && ok; k++) {
        Py_ssize_t end = k + 1 < count ? order[k + 1]->header_at : cd_at;
        Py_ssize_t at = local_data(s, order[k], end);
        ok = at >= 0 && order[k]->header_at < end;
        if (ok)
            data_at[order[k] - entries] = at;
    }
    PyMem_Free(order);
    return ok;
}

/* One tuple of central()'s list. */
static PyObject *entry_tuple(const unsigned char *s, const Entry *e, Py_ssize_t data_at,
                             PyObject *seen) {
    PyObject *name = entry_name(s + e->name_at, e->name_len, e->flags);
    if (name == NULL)
        return NULL;
    int dup = PySet_Contains(seen, name);
    if (dup != 0 || PySet_Add(seen, name) < 0) {
        Py_DECREF(name);
        return NULL;
    }
    const unsigned char *h = s + e->name_at - CDIR_SIZE;
    return Py_BuildValue("(NIIkkkn)", name, (unsigned int)e->flags, (unsigned int)u16_at(h + 10),
                         (unsigned long)u32_at(h + 16), (unsigned long)e->csize,
                         (unsigned long)e->usize, data_at);
}

/* The list of central(), from the located entries; NULL (no error set) to decline. */
static PyObject *entry_list(const unsigned char *s, const Entry *entries, Py_ssize_t count,
                            const Py_ssize_t *data_at) {
    PyObject *seen = PySet_New(NULL);
    PyObject *out = seen ? PyList_New(count) : NULL;
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        PyObject *row = entry_tuple(s, &entries[i], data_at[i], seen);
        if (row == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, row);
    }
    Py_XDECREF(seen);
    return out;
}

static PyObject *central_of(const unsigned char *s, Py_ssize_t n, Py_ssize_t max_entries,
                            unsigned long long max_declared) {
    /* zipfile looks for the record at the very end first (with a comment it searches);
     * the 20 bytes before it must not be a ZIP64 locator */
    if (n < EOCD_SIZE + LOCATOR_SIZE)
        Py_RETURN_NONE;
    const unsigned char *r = s + n - EOCD_SIZE;
    if (memcmp(r, "PK\x05\x06", 4) != 0 || u16_at(r + 20) != 0)
        Py_RETURN_NONE;
    if (memcmp(r - LOCATOR_SIZE, "PK\x06\x07", 4) == 0) /* a ZIP64 locator */
        Py_RETURN_NONE;
    Py_ssize_t count = u16_at(r + 10);
    Py_ssize_t cd_size = u32_at(r + 12), cd_at = u32_at(r + 16);
    if (u16_at(r + 4) != 0 || u16_at(r + 6) != 0 || u16_at(r + 8) != (uint32_t)count)
        Py_RETURN_NONE;
    if (count == 0 || count > max_entries || cd_at + cd_size != n - EOCD_SIZE)
        Py_RETURN_NONE;
    Entry *entries = PyMem_Malloc((size_t)count * sizeof(Entry));
    Py_ssize_t *data_at = PyMem_Malloc((size_t)count * sizeof(Py_ssize_t));
    PyObject *result = NULL;
    if (entries == NULL || data_at == NULL) {
        PyErr_NoMemory();
    } else if (read_directory(s, cd_at, cd_at + cd_size, entries, count, max_declared)) {
        int ok = locate(s, entries, count, cd_at, data_at);
        if (ok < 0)
            PyErr_NoMemory();
        else if (ok)
            result = entry_list(s, entries, count, data_at);
    }
    PyMem_Free(entries);
    PyMem_Free(data_at);
    if (result == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return result;
}

static PyObject *central(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_entries;
    unsigned long long max_declared;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nK", &view, &max_entries, &max_declared))
        return NULL;
    PyObject *result = central_of(view.buf, view.len, max_entries, max_declared);
    PyBuffer_Release(&view);
    return result;
}

/* Raw deflate of s[0:csize] into out[0:usize]: 1 when it ends exactly there. */
static int inflate_exact(const unsigned char *s, Py_ssize_t csize, unsigned char *out,
                         Py_ssize_t usize) {
    z_stream z;
    unsigned char spare; /* one byte past usize shows a stream that runs on */
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)s;
    z.avail_in = (uInt)csize;
    z.next_out = out;
    z.avail_out = (uInt)usize;
    int r = inflate(&z, Z_FINISH);
    if (r != Z_STREAM_END && z.avail_out == 0) {
        z.next_out = &spare;
        z.avail_out = 1;
        r = inflate(&z, Z_FINISH);
    }
    int ok = r == Z_STREAM_END && z.avail_in == 0 && (Py_ssize_t)z.total_out == usize;
    inflateEnd(&z);
    return ok;
}

static PyObject *inflate_entry(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t data_at, csize, usize;
    unsigned int method;
    unsigned long crc;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnnIk", &view, &data_at, &csize, &usize, &method, &crc))
        return NULL;
    const unsigned char *s = view.buf;
    PyObject *out = NULL;
    int ok = data_at >= 0 && csize >= 0 && usize >= 0 && data_at <= view.len &&
             csize <= view.len - data_at && csize <= (Py_ssize_t)UINT32_MAX &&
             usize <= (Py_ssize_t)UINT32_MAX && (method == 0 || method == 8);
    if (ok && method == 0)
        ok = csize == usize;
    if (ok)
        out = PyBytes_FromStringAndSize(NULL, usize);
    if (out != NULL) {
        unsigned char *buf = (unsigned char *)PyBytes_AS_STRING(out);
        if (method == 0)
            memcpy(buf, s + data_at, (size_t)usize);
        else
            ok = inflate_exact(s + data_at, csize, buf, usize);
        if (ok)
            ok = crc32(0, buf, (uInt)usize) == crc;
        if (!ok)
            Py_CLEAR(out);
    }
    PyBuffer_Release(&view);
    if (out == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return out;
}

static PyMethodDef methods[] = {
    {"central", central, METH_VARARGS,
     "central(data, max_entries, max_declared) -> list of (name, flag_bits, method, crc, "
     "compress_size, file_size, data_at), or None where zipfile must read it (see the "
     "module comment)."},
    {"inflate", inflate_entry, METH_VARARGS,
     "inflate(data, data_at, compress_size, file_size, method, crc) -> the entry's bytes, "
     "or None where they are not exactly what the directory says."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_zip",
                                    "The ZIP package of an HWPX file in C.", -1, methods};

PyMODINIT_FUNC PyInit__zip(void) { return PyModule_Create(&module); }
