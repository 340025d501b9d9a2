/* An ordinary HWPX package in one call (part of hwpscan.formats._readers): the optional
 * fast path of hwpscan.formats.hwpx.read_zip, the reference.
 *
 * hwpx_package(data, max_entries, max_uncompressed, small_cap, part_cap, max_depth,
 * max_paragraphs) returns (sections, texts): how many section parts the manifest's spine
 * names and the paragraph texts read_zip's walk holds after reading them all (its slots,
 * empty ones kept). It answers only for a package read_zip reads without a word to say,
 * and returns None for anything else, so that read_zip reads it: a ZIP with a comment,
 * bytes before it or Zip64 records; a central extra field; an entry name that is not
 * printable ASCII or not as hwpx._normal writes it; an encrypted entry; a part to read
 * that is not a plain stored or deflated entry whose local header, sizes and CRC agree
 * with its directory entry, or that is over its cap; no "mimetype" holding exactly
 * application/hwp+zip; a manifest naming encryption-data; a name found only in another
 * case; no container, rootfile or content.hpf spine naming section parts that are all
 * there; an id, href or path that is not plain ASCII; and whatever the XML walk
 * declines. It never reads past data.
 * tests/formats/test_native_hwpx_package.py drives both over fixtures and mutants. */
#include "_hwpx.h"
#include "_le.h"
#include <string.h>
#include <zlib.h>

#define PATH_MAX_LEN 1024
#define MAX_LISTED 1024
#define MAIN_ROOTFILE "application/hwpml-package+xml"

typedef struct {
    const unsigned char *name;
    Py_ssize_t name_len;
    uint32_t flags, method, crc;
    Py_ssize_t csize, usize, offset;
} Entry;

typedef struct {
    const unsigned char *s;
    Py_ssize_t n, count;
    Entry *entries;
} Pkg;

/* A listed tag: which of the sink's elements, and the values of its attributes (an empty
 * span where it has no such attribute). */
typedef struct {
    int kind;
    Span v[3];
} Listed;

typedef struct {
    const char *elements[2], *attrs[2][3]; /* the local names listed (NULL: none) */
    Listed *tags;
    int n;
} Sink;

/* hwpx._normal of s[0:n] (plain ASCII) into out: its length, or -1 (declined). */
static Py_ssize_t normal(const unsigned char *s, Py_ssize_t n, char *out) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t j = i;
        while (j < n && s[j] != '/' && s[j] != '\\')
            j++;
        if (j > i && !(j - i == 1 && s[i] == '.')) {
            if (k + (k > 0) + (j - i) > PATH_MAX_LEN)
                return -1;
            if (k > 0)
                out[k++] = '/';
            memcpy(out + k, s + i, (size_t)(j - i));
            k += j - i;
        }
        i = j + 1;
    }
    return k;
}

/* The central directory into p->entries: 0 read, 1 declined, -1 on a Python error. */
static int central(Pkg *p, Py_ssize_t max_entries, Py_ssize_t max_uncompressed) {
    if (p->n < 22)
        return 1;
    const unsigned char *s = p->s, *end = p->s + p->n - 22;
    if (memcmp(end, "PK\5\6", 4) != 0 || u16_at(end + 20) != 0)
        return 1; /* no end record last: a comment, or no ZIP */
    if (p->n >= 42 && memcmp(end - 20, "PK\6\7", 4) == 0)
        return 1; /* Zip64 */
    Py_ssize_t size = u32_at(end + 12), at = u32_at(end + 16), total = 0;
    if (at + size != p->n - 22)
        return 1; /* bytes before the ZIP, or a directory zipfile reads elsewhere */
    p->entries = PyMem_Malloc((size_t)(size / 46 + 1) * sizeof(Entry));
    if (p->entries == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t q = at; q < at + size;) {
        const unsigned char *h = s + q;
        if (q + 46 > at + size || memcmp(h, "PK\1\2", 4) != 0 || h[6] > 63)
            return 1;
        Py_ssize_t named = u16_at(h + 28), extra = u16_at(h + 30), note = u16_at(h + 32);
        if (extra != 0 || q + 46 + named + note > at + size || ++p->count > max_entries)
            return 1;
        Entry *e = &p->entries[p->count - 1];
        *e = (Entry){h + 46, named, u16_at(h + 8), u16_at(h + 10), u32_at(h + 16),
                     u32_at(h + 20), u32_at(h + 24), u32_at(h + 42)};
        if (named == 0 || (e->flags & 1) || (total += e->usize) > max_uncompressed)
            return 1;
        char same[PATH_MAX_LEN];
        for (Py_ssize_t i = 0; i < named; i++) {
            if (e->name[i] < 0x20 || e->name[i] > 0x7e || e->name[i] == '\\')
                return 1;
        }
        if (e->name[named - 1] != '/' && normal(e->name, named, same) != named)
            return 1; /* a name hwpx._normal would change */
        q += 46 + named + note;
    }
    return 0;
}

/* The first entry named s[0:n] that is not a folder: its index, -1 for none, -2 where
 * only a name in another case matches (hwpx._find's second look: declined). */
static Py_ssize_t find(const Pkg *p, const char *name, Py_ssize_t n) {
    Py_ssize_t folded = -1;
    for (Py_ssize_t i = 0; i < p->count; i++) {
        const Entry *e = &p->entries[i];
        if (e->name_len != n || e->name[n - 1] == '/')
            continue;
        if (memcmp(e->name, name, (size_t)n) == 0)
            return i;
        Py_ssize_t k = 0;
        while (k < n && (e->name[k] | 0x20) == (name[k] | 0x20))
            k++;
        if (k == n)
            folded = -2;
    }
    return folded;
}

/* Entry e's bytes into *out (PyMem), what zipfile reads of a plain entry: 0 read, 1
 * declined, -1 on a Python error. */
static int part(const Pkg *p, const Entry *e, Py_ssize_t cap, unsigned char **out) {
    if ((e->flags & 0x61) || e->usize > cap || e->usize >= UINT32_MAX ||
        (e->method != 0 && e->method != 8) || e->offset + 30 > p->n)
        return 1;
    const unsigned char *h = p->s + e->offset;
    if (memcmp(h, "PK\3\4", 4) != 0)
        return 1;
    Py_ssize_t named = u16_at(h + 26), start = e->offset + 30 + named + u16_at(h + 28);
    if (named != e->name_len || e->offset + 30 + named > p->n ||
        memcmp(h + 30, e->name, (size_t)named) != 0 || start + e->csize > p->n)
        return 1;
    if (e->method == 0 && e->csize != e->usize)
        return 1;
    *out = PyMem_Malloc((size_t)e->usize + 1);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int ok = 1;
    if (e->method == 0) {
        memcpy(*out, p->s + start, (size_t)e->usize);
    } else {
        z_stream z = {0};
        z.next_in = (unsigned char *)p->s + start;
        z.avail_in = (uInt)e->csize;
        z.next_out = *out;
        z.avail_out = (uInt)e->usize + 1;
        ok = inflateInit2(&z, -MAX_WBITS) == Z_OK;
        ok = ok && inflate(&z, Z_FINISH) == Z_STREAM_END && (Py_ssize_t)z.total_out == e->usize;
        inflateEnd(&z);
    }
    if (ok && crc32(0, *out, (uInt)e->usize) == e->crc)
        return 0;
    PyMem_Free(*out);
    *out = NULL;
    return 1;
}

static int plain(const unsigned char *s, Span v) {
    for (Py_ssize_t i = 0; i < v.len; i++) {
        if (s[v.at + i] < 0x20 || s[v.at + i] > 0x7e || s[v.at + i] == '&')
            return 0; /* a reference, a character expat turns into a space, or not ASCII */
    }
    return 1;
}

static int same(const unsigned char *s, Span v, const char *lit) {
    return (size_t)v.len == strlen(lit) && memcmp(s + v.at, lit, (size_t)v.len) == 0;
}

/* The sink listing the tags one part is read for, with the values of their attributes
 * (hwpx._attr: the first of each local name). */
static int listed(void *ctx, const unsigned char *s, const Tag *tag) {
    Sink *k = ctx;
    for (int kind = 0; kind < 2 && k->elements[kind] != NULL; kind++) {
        if (!same(s, tag->local, k->elements[kind]))
            continue;
        if (k->n >= MAX_LISTED)
            return 1;
        Listed *l = &k->tags[k->n++];
        l->kind = kind;
        for (int a = 0; a < 3; a++) {
            l->v[a] = (Span){0, 0};
            for (int i = 0; k->attrs[kind][a] != NULL && i < tag->n; i++) {
                if (same(s, tag->name[i], k->attrs[kind][a])) {
                    l->v[a] = tag->value[i];
                    break;
                }
            }
            if (!plain(s, l->v[a]))
                return 1;
        }
    }
    return 0;
}

/* The tags of the part at entry index i, listed into k: 0, 1 declined, -1. */
static int list_part(const Pkg *p, Py_ssize_t i, Py_ssize_t cap, int max_depth, Sink *k,
                     unsigned char **data) {
    if (i < 0)
        return 1;
    int r = part(p, &p->entries[i], cap, data);
    PyObject *slots = NULL;
    if (r == 0)
        r = hwpscan_hwpx_walk(*data, p->entries[i].usize, max_depth, PY_SSIZE_T_MAX, listed, k,
                              &slots);
    Py_XDECREF(slots);
    return r;
}

/* The sections the spine names, read into texts: 0, 1 declined, -1 on a Python error. */
static int read_spine(const Pkg *p, Py_ssize_t small_cap, Py_ssize_t part_cap, int max_depth,
                      Py_ssize_t max_paragraphs, PyObject *texts, Py_ssize_t *sections) {
    Listed *found = PyMem_Malloc(MAX_LISTED * sizeof(Listed));
    if (found == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Sink roots = {{"rootfile", NULL}, {{"full-path", "fullPath", "media-type"}}, found, 0};
    unsigned char *container = NULL, *hpf = NULL;
    char chosen[PATH_MAX_LEN], path[PATH_MAX_LEN], under[2 * PATH_MAX_LEN + 1];
    Py_ssize_t chosen_len = -1;
    int r = list_part(p, find(p, "META-INF/container.xml", 22), small_cap, max_depth, &roots,
                      &container);
    Span first = {0, 0}, main = {0, 0}; /* paths: the first rootfile's, the first main one's */
    for (int i = 0; r == 0 && i < roots.n; i++) {
        Span v = roots.tags[i].v[0].len ? roots.tags[i].v[0] : roots.tags[i].v[1];
        first = first.len ? first : v;
        if (v.len && !main.len && same(container, roots.tags[i].v[2], MAIN_ROOTFILE))
            main = v;
    }
    Span v = main.len ? main : first;
    if (r == 0 && (v.len == 0 || (chosen_len = normal(container + v.at, v.len, chosen)) <= 0))
        r = 1; /* no rootfile: read_zip looks for section*.xml */
    Sink hpf_tags = {{"item", "itemref"}, {{"id", "href"}, {"idref"}}, found, 0};
    if (r == 0)
        r = list_part(p, find(p, chosen, chosen_len), small_cap, max_depth, &hpf_tags, &hpf);
    Py_ssize_t base = chosen_len;
    while (base > 0 && chosen[base - 1] != '/')
        base--;
    base = base > 0 ? base - 1 : 0; /* chosen.rpartition("/")[0] */
    for (int i = 0; r == 0 && i < hpf_tags.n; i++) {
        Span href = {0, 0}, ref = found[i].v[0];
        /* an itemref's href: the last item's of that id */
        for (int j = hpf_tags.n - 1; found[i].kind == 1 && j >= 0; j--) {
            Span id = found[j].v[0];
            if (found[j].kind == 0 && id.len == ref.len &&
                memcmp(hpf + id.at, hpf + ref.at, (size_t)id.len) == 0) {
                href = found[j].v[1];
                break;
            }
        }
        if (href.len == 0)
            continue;
        Py_ssize_t len = normal(hpf + href.at, href.len, path), at, last = len;
        if (len < 0 || href.len > PATH_MAX_LEN) {
            r = 1;
            break;
        }
        while (last > 0 && path[last - 1] != '/')
            last--;
        if (len - last < 7 || PyOS_strnicmp(path + last, "section", 7) != 0)
            continue; /* not a section part */
        if ((at = find(p, path, len)) == -1 && hpf[href.at] != '/' && base > 0) {
            memcpy(under, chosen, (size_t)base);
            under[base] = '/';
            memcpy(under + base + 1, hpf + href.at, (size_t)href.len);
            at = (len = normal((unsigned char *)under, base + 1 + href.len, path)) < 0
                     ? -1 : find(p, path, len);
        }
        unsigned char *xml = NULL;
        PyObject *slots = NULL;
        r = at < 0 ? 1 : part(p, &p->entries[at], part_cap, &xml);
        if (r == 0)
            r = hwpscan_hwpx_walk(xml, p->entries[at].usize, max_depth,
                                  max_paragraphs - PyList_GET_SIZE(texts), NULL, NULL, &slots);
        if (r == 0 && PyList_SetSlice(texts, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, slots) < 0)
            r = -1;
        Py_XDECREF(slots);
        PyMem_Free(xml);
        ++*sections;
    }
    if (r == 0 && *sections == 0)
        r = 1; /* no section named: read_zip looks for section*.xml */
    PyMem_Free(container);
    PyMem_Free(hpf);
    PyMem_Free(found);
    return r;
}

PyObject *hwpscan_hwpx_package(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_entries, max_uncompressed, small_cap, part_cap, max_paragraphs;
    int max_depth;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnnnin", &view, &max_entries, &max_uncompressed, &small_cap,
                          &part_cap, &max_depth, &max_paragraphs))
        return NULL;
    Pkg p = {view.buf, view.len, 0, NULL};
    PyObject *texts = PyList_New(0), *result = NULL;
    unsigned char *mime = NULL, *manifest = NULL;
    Py_ssize_t sections = 0, at;
    int r = texts == NULL ? -1 : central(&p, max_entries, max_uncompressed);
    if (r == 0 && (at = find(&p, "mimetype", 8)) < 0)
        r = 1;
    if (r == 0 && (r = part(&p, &p.entries[at], 4096, &mime)) == 0) /* as written, no space */
        r = p.entries[at].usize != 19 || memcmp(mime, "application/hwp+zip", 19) != 0;
    if (r == 0 && (at = find(&p, "META-INF/manifest.xml", 21)) != -1) {
        r = at < 0 ? 1 : part(&p, &p.entries[at], small_cap, &manifest);
        for (Py_ssize_t i = 0; r == 0 && i + 15 <= p.entries[at].usize; i++)
            r = memcmp(manifest + i, "encryption-data", 15) == 0;
    }
    if (r == 0)
        r = read_spine(&p, small_cap, part_cap, max_depth, max_paragraphs, texts, &sections);
    if (r == 0)
        result = Py_BuildValue("nO", sections, texts);
    else if (r == 1)
        result = Py_NewRef(Py_None);
    Py_XDECREF(texts);
    PyMem_Free(mime);
    PyMem_Free(manifest);
    PyMem_Free(p.entries);
    PyBuffer_Release(&view);
    return result;
}
