/* An ordinary HWP 5 document read in one call (part of hwpscan.formats._readers): the
 * optional fast path of hwpscan.formats.hwp5.read_ole with count_plain_body or
 * body_only, which stays the reference and reads every file this declines.
 *
 * read_hwp5(data, max_stream_bytes, max_document_bytes, max_docinfo_names, segment,
 * table, body_only) returns (version word, flags, paragraphs, sections, body, preview,
 * meta) for a Document with no warning and no status. Each of the last three is the
 * list of Segments the Python reader makes (of type *segment*, kept controls translated
 * by *table*), or, where that text is plain (no surrogate, private use or U+FFFD, nor in
 * the body a folded symbol A000-A8FF), its (chars, units) as a scan counts them; None
 * for no preview or no name. With *body_only* the body is always segmented and the
 * preview and names are not read. It returns None (declines), before inflating
 * anything where it can, for:
 *
 *  - a compound file _cfb_core.h refuses, an entry name not ASCII or holding a line
 *    feed, a storage in a storage, more than MAX_PLAIN_STREAMS streams;
 *  - no FileHeader (or one without the signature, under 40 bytes, not 5.x, with an
 *    encryption or distribution bit), a ViewText section, no BodyText section, no
 *    DocInfo, a section number of more than 18 digits;
 *  - a stream over its cap or all of them over max_document_bytes, deflate data not
 *    valid or ending early, a PrvText of odd size;
 *  - anything the Python reader would warn about (DocInfo names, records cut short or
 *    past their stream, a PARA_TEXT without PARA_HEADER or of odd size, an 8-unit
 *    control cut short) or cut at a budget (names, records, paragraphs, more than
 *    MAX_SEGMENT_UNITS units to segment).
 *
 * Plain sections are counted; at the first one not plain those before it are read
 * again to be segmented, so a clean document costs a count. The input is hostile: every
 * read is checked before it is made (64-bit positions), every allocation is bounded by
 * len(data) or the inflate cap. tests/formats/test_native_hwp5_reader.py holds the
 * Documents equal to the Python reader's over fixtures, generated files and mutants. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "_cfb_core.h"
#include "_hwp5_records.h"
#include "_hwp5_runs.h"

/* hwp5_text.MAX_RECORDS, MAX_PARAGRAPHS, MAX_SEGMENTS (a test holds them equal). */
#define MAX_RECORDS 4000000
#define MAX_PARAGRAPHS 400000
#define MAX_SEGMENTS 1000000
/* More streams than this: the Python reader's turn (the case-blind name check here is
 * quadratic). */
#define MAX_PLAIN_STREAMS 512
/* read_segments: the code units of PARA_TEXT payloads a document may hold, far below the
 * segment budget (a segment holds at least one unit), so no budget is ever reached. */
#define MAX_SEGMENT_UNITS (MAX_SEGMENTS / 2)
/* A section number of more digits than this: the Python reader's turn. */
#define MAX_NUMBER_DIGITS 18
#define FLAG_COMPRESSED 0x1u
#define FLAG_DISTRIBUTION 0x4u
/* password, drm, cert_encryption, cert_drm (hwp5_spec.ENCRYPTION_FLAGS) */
#define ENCRYPTION_FLAGS (0x2u | 0x10u | 0x100u | 0x400u)
#define SIGNATURE "HWP Document File"
#define SIGNATURE_LEN 17
#define PROPERTIES_END 40

/* A stream of the directory: its storage's entry (NULL at the root) and its own. */
typedef struct {
    const unsigned char *storage;
    const unsigned char *entry;
    uint32_t size, start;
    int mini;
} Stream;

typedef struct {
    uint32_t sid;
    const unsigned char *storage; /* the storage entry of the prefix, NULL for the root */
    int32_t depth;                /* as in olefile's recursion */
} Item;

typedef struct {
    Cfb c;
    uint32_t *ministream; /* the mini stream's sectors of the file */
    Stream *streams;
    int64_t nstreams, room; /* streams noted, room for them */
    unsigned char *raw; /* one stream's bytes as stored */
    size_t raw_room;
    unsigned char *out; /* one stream's bytes inflated */
    size_t out_room;
    z_stream z;
    int z_ready;
} Doc;

/* A name's units (its length field checked), or -1 where the walk declines: what
 * the strict walk rejects (length, terminator, UTF-16, '/'), and also a name that is not ASCII or holds a line
 * feed (hwp5_spec.SECTION_RE's $ would match before one). */
static int
ascii_name(const unsigned char *e)
{
    uint32_t length = u16_at(e + 64);
    if (length & 1 || length <= 2 || length > 64 || e[length - 2] || e[length - 1]) {
        return -1;
    }
    const int units = (int)(length - 2) / 2;
    for (int i = 0; i < units; i++) {
        uint32_t u = u16_at(e + 2 * i);
        if (u == 0 || u == '/' || u == '\n' || u >= 0x80) {
            return -1;
        }
    }
    return units;
}

static inline unsigned char
lower_ascii(unsigned char ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (unsigned char)(ch + 32) : ch;
}

/* Two ASCII entry names equal but for case. */
static int
same_name(const unsigned char *a, const unsigned char *b)
{
    if (u16_at(a + 64) != u16_at(b + 64)) {
        return 0;
    }
    const int units = (int)(u16_at(a + 64) - 2) / 2;
    for (int i = 0; i < units; i++) {
        if (lower_ascii(a[2 * i]) != lower_ascii(b[2 * i])) {
            return 0;
        }
    }
    return 1;
}

/* An ASCII entry name equal to *lower* (lowercase ASCII) but for case. */
static int
named(const unsigned char *e, const char *lower)
{
    const size_t n = strlen(lower);
    if (u16_at(e + 64) != 2 * n + 2) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (lower_ascii(e[2 * i]) != (unsigned char)lower[i]) {
            return 0;
        }
    }
    return 1;
}

/* One stream entry checked without a Python object (its
 * chain too, marking its sectors) and noted. */
static int
note_stream(Doc *d, const unsigned char *e, const unsigned char *storage)
{
    Cfb *c = &d->c;
    uint32_t child = u32_at(e + 76), start = u32_at(e + 116);
    uint32_t low = u32_at(e + 120), high = u32_at(e + 124);
    if (e[66] != STREAM || child != NOSTREAM || high || d->nstreams >= d->room) {
        return DECLINE;
    }
    for (int64_t i = 0; i < d->nstreams; i++) { /* "two names equal but for case" */
        const Stream *s = &d->streams[i];
        if ((s->storage == NULL) == (storage == NULL) && same_name(s->entry, e) &&
            (storage == NULL || same_name(s->storage, storage))) {
            return DECLINE;
        }
    }
    int mini = 0;
    if (low == 0) {
        if (start != ENDOFCHAIN) {
            return DECLINE;
        }
    }
    else if (low < CUTOFF) {
        mini = 1;
        if (chain(c->minifat, c->nmini, c->used_mini, start, (low + MINI - 1) / MINI,
                  c->mini_scratch) < 0) {
            return DECLINE;
        }
    }
    else if (chain(c->fat, c->nsect, c->used, start, ((int64_t)low + SECTOR - 1) / SECTOR,
                   c->scratch) < 0) {
        return DECLINE;
    }
    d->streams[d->nstreams++] = (Stream){storage, e, low, start, mini};
    return OK;
}

/* One reached entry: its siblings pushed, its name checked, then a storage's children
 * pushed or a stream noted. */
static int
visit(Doc *d, const unsigned char *e, Item item, Item **top)
{
    *(*top)++ = (Item){u32_at(e + 68), item.storage, item.depth + 1};
    *(*top)++ = (Item){u32_at(e + 72), item.storage, item.depth + 1};
    if (ascii_name(e) < 0) {
        return DECLINE;
    }
    if (e[66] != STORAGE) {
        return note_stream(d, e, item.storage);
    }
    if (u32_at(e + 120) || u32_at(e + 124) || item.storage != NULL) {
        return DECLINE; /* a storage with a size, or inside another: not read here */
    }
    *(*top)++ = (Item){u32_at(e + 76), e, item.depth + 2};
    return OK;
}

/* Every stream reachable from the root, each chain checked. */
static int
walk(Doc *d)
{
    Cfb *c = &d->c;
    const int64_t count = 4 * c->ndir;
    const int64_t reachable = count < MAX_ENTRIES ? count : MAX_ENTRIES;
    Item *stack = PyMem_Malloc(sizeof(Item) * (size_t)(3 * reachable + 1));
    unsigned char *seen = PyMem_Calloc((size_t)count, 1);
    d->room = reachable < MAX_PLAIN_STREAMS ? reachable : MAX_PLAIN_STREAMS;
    d->streams = PyMem_Malloc(sizeof(Stream) * (size_t)d->room);
    int result = FAILED;
    if (stack == NULL || seen == NULL || d->streams == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    seen[0] = 1;
    Item *top = stack;
    *top++ = (Item){u32_at(entry_at(c, 0) + 76), NULL, 2};
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
        result = visit(d, entry_at(c, item.sid), item, &top);
    }
done:
    PyMem_Free(stack);
    PyMem_Free(seen);
    return result;
}

/* The MiniFAT of a file whose mini stream (the root entry's) is *root_size* bytes from
 * *root_start*: its chain from *start* (*count* sectors) checked and cut to the mini
 * stream's sectors into c->minifat, and the mini stream's own sectors into
 * d->ministream. */
static int
minifat(Doc *d, uint32_t root_size, uint32_t root_start, uint32_t start, uint32_t count)
{
    Cfb *c = &d->c;
    if (root_size % MINI) {
        return DECLINE;
    }
    const int64_t nmini = root_size / MINI;
    if (count) {
        int64_t k = chain(c->fat, c->nsect, c->used, start, count, c->scratch);
        if (k < 0 || nmini > k * PER_SECTOR) {
            return DECLINE;
        }
        /* nmini <= 128 * k entries of k <= nsect sectors: bounded by len(data) */
        c->minifat = PyMem_Malloc(sizeof(uint32_t) * (size_t)(nmini + 1));
        c->used_mini = PyMem_Calloc((size_t)nmini + 1, 1);
        c->mini_scratch = PyMem_Malloc(sizeof(uint32_t) * (size_t)(nmini + 1));
        if (c->minifat == NULL || c->used_mini == NULL || c->mini_scratch == NULL) {
            PyErr_NoMemory();
            return FAILED;
        }
        for (int64_t i = 0; i < nmini; i++) {
            c->minifat[i] = u32_at(sector_at(c, c->scratch[i / PER_SECTOR]) + 4 * (i % PER_SECTOR));
        }
        c->nmini = nmini;
    }
    else if (start != ENDOFCHAIN || root_size) {
        return DECLINE;
    }
    if (root_size == 0) {
        return root_start == ENDOFCHAIN ? OK : DECLINE;
    }
    int64_t need = ((int64_t)root_size + SECTOR - 1) / SECTOR;
    d->ministream = PyMem_Malloc(sizeof(uint32_t) * (size_t)need);
    if (d->ministream == NULL) {
        PyErr_NoMemory();
        return FAILED;
    }
    return chain(c->fat, c->nsect, c->used, root_start, need, d->ministream) < 0 ? DECLINE : OK;
}

/* The compound file read and checked (declined at anything irregular). */
static int
open_container(Doc *d, const unsigned char *data, Py_ssize_t len)
{
    uint32_t h[6];
    int result = header(data, len, h);
    if (result != OK) {
        return result;
    }
    Cfb *c = &d->c;
    c->data = data;
    c->nsect = len / SECTOR - 1;
    c->used = PyMem_Calloc((size_t)c->nsect, 1);
    c->fat = PyMem_Malloc(sizeof(uint32_t) * (size_t)c->nsect);
    c->scratch = PyMem_Malloc(sizeof(uint32_t) * (size_t)c->nsect);
    c->dir = PyMem_Malloc(sizeof(uint32_t) * (size_t)c->nsect);
    if (c->used == NULL || c->fat == NULL || c->scratch == NULL || c->dir == NULL) {
        PyErr_NoMemory();
        return FAILED;
    }
    result = fat(c, h[0], h[4], h[5]);
    if (result != OK) {
        return result;
    }
    c->ndir = chain(c->fat, c->nsect, c->used, h[1], -1, c->dir);
    if (c->ndir <= 0) {
        return DECLINE;
    }
    const unsigned char *root = entry_at(c, 0);
    if (root[66] != ROOT || u32_at(root + 124)) {
        return DECLINE;
    }
    result = minifat(d, u32_at(root + 120), u32_at(root + 116), h[2], h[3]);
    return result == OK ? walk(d) : result;
}

/* A buffer of at least *need* bytes in *buf* (room in *room*); 0 on success. */
static int
room_for(unsigned char **buf, size_t *room, size_t need)
{
    if (need <= *room && *buf != NULL) {
        return 0;
    }
    unsigned char *grown = PyMem_Realloc(*buf, need ? need : 1);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = grown;
    *room = need ? need : 1;
    return 0;
}

/* A stream's bytes as CfbStreams.read gives them, into d->raw (its chain was checked
 * when it was noted: every sector lies in the file or the mini stream). */
static int
read_stream(Doc *d, const Stream *s)
{
    if (room_for(&d->raw, &d->raw_room, s->size) < 0) {
        return -1;
    }
    const Cfb *c = &d->c;
    uint32_t at = s->start;
    size_t done = 0;
    while (done < s->size) {
        size_t left = s->size - done;
        if (s->mini) {
            const int64_t offset = (int64_t)MINI * at; /* inside the mini stream */
            const unsigned char *src = sector_at(c, d->ministream[offset / SECTOR]) + offset % SECTOR;
            memcpy(d->raw + done, src, left < MINI ? left : MINI);
            done += left < MINI ? left : MINI;
            at = c->minifat[at];
        }
        else {
            memcpy(d->raw + done, sector_at(c, at), left < SECTOR ? left : SECTOR);
            done += left < SECTOR ? left : SECTOR;
            at = c->fat[at];
        }
    }
    return 0;
}

/* hwp5_text.inflate of d->raw[0:n] with output cap *cap*, into d->out: the length, -2
 * where the Python reader would warn or raise (not valid, ends early, over the cap), -1
 * on a Python error. Data after the end of the deflate stream is ignored, as there. */
static int64_t
inflate_capped(Doc *d, size_t n, int64_t cap)
{
    if (!d->z_ready) {
        memset(&d->z, 0, sizeof(d->z));
        if (inflateInit2(&d->z, -MAX_WBITS) != Z_OK) {
            PyErr_NoMemory();
            return -1;
        }
        d->z_ready = 1;
    }
    else if (inflateReset(&d->z) != Z_OK) {
        return -2;
    }
    /* room for cap + 1 bytes at most: one more than the cap tells the cap was passed */
    const size_t limit = (size_t)cap + 1;
    size_t want = 4 * n + 4096;
    if (want > limit) {
        want = limit;
    }
    if (d->out_room < want && room_for(&d->out, &d->out_room, want) < 0) {
        return -1;
    }
    d->z.next_in = d->raw;
    size_t fed = 0, have = 0;
    for (;;) {
        size_t room = (d->out_room < limit ? d->out_room : limit) - have;
        if (room == 0) {
            size_t grow = 2 * d->out_room < limit ? 2 * d->out_room : limit;
            if (have >= limit) {
                return -2; /* cap + 1 bytes: over the cap */
            }
            if (room_for(&d->out, &d->out_room, grow) < 0) {
                return -1;
            }
            continue;
        }
        size_t chunk_in = n - fed > UINT_MAX ? UINT_MAX : n - fed;
        size_t chunk_out = room > UINT_MAX ? UINT_MAX : room;
        d->z.next_in = d->raw + fed;
        d->z.avail_in = (uInt)chunk_in;
        d->z.next_out = d->out + have;
        d->z.avail_out = (uInt)chunk_out;
        int r = inflate(&d->z, Z_NO_FLUSH);
        fed += chunk_in - d->z.avail_in;
        have += chunk_out - d->z.avail_out;
        if (r == Z_STREAM_END) {
            return have > (size_t)cap ? -2 : (int64_t)have;
        }
        if (r == Z_BUF_ERROR && d->z.avail_out != 0) {
            return -2; /* no progress with room to write: the input ran out (ends early) */
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            return -2; /* not valid deflate data */
        }
        if (fed == n && d->z.avail_out != 0) {
            return -2; /* all input taken, output room left, no end: ends early */
        }
    }
}

/* What one stream holds, as _Reader.records reads it: d->raw (stored) or d->out
 * (inflated) in *bytes*; its length, -2 for a decline, -1 on a Python error. */
static int64_t
records(Doc *d, const Stream *s, int compressed, int64_t cap, int64_t *budget,
        const unsigned char **bytes)
{
    if ((int64_t)s->size > cap || read_stream(d, s) < 0) {
        return (int64_t)s->size > cap ? -2 : -1;
    }
    if (!compressed) {
        *bytes = d->raw;
        *budget -= s->size;
        return s->size;
    }
    int64_t got = inflate_capped(d, s->size, cap < *budget ? cap : *budget);
    if (got >= 0) {
        *bytes = d->out;
        *budget -= got;
    }
    return got;
}

typedef struct {
    int64_t chars, units; /* the body's counts */
    /* what the document's walk took of the budget, and the code units of its payloads
     * (the plain body's segment cap) */
    int64_t records, paragraphs, payload_units;
} Body;

/* One PARA_TEXT payload counted into *c* (chars, units) as a scan counts its
 * segments: 1, 0 where the counting has something to look at (the text is to be
 * segmented), -1 where the Python code would warn. */
static int
count_payload(const unsigned char *raw, int64_t n, int64_t *c)
{
    int64_t i = 0;
    while (i < n) {
        const unsigned char lo = raw[2 * i], hi = raw[2 * i + 1];
        if (SURROGATE_OR_PUA(hi) || (hi >= 0xA0 && hi <= 0xA8) || (hi == 0xFF && lo == 0xFD)) {
            return 0; /* a surrogate, private use, a folded symbol or U+FFFD */
        }
        if (hi || lo >= 32) {
            c[1]++;
            c[0]++;
            i++;
            continue;
        }
        switch (CONTROL_KIND[lo]) {
        case 1:
            c[1]++;
            c[0] += lo != LINE_BREAK;
            i++;
            break;
        case 2:
            if (i + CONTROL_UNITS > n) {
                return -1; /* "ends inside an 8-unit control": the Python reader's warning */
            }
            if (lo == TAB) {
                c[1]++;
                c[0]++;
            }
            i += CONTROL_UNITS;
            break;
        default:
            i++;
        }
    }
    return 1;
}

/* What read_segments keeps of a section to segment: its non-empty payloads joined, each
 * one's (units, paragraph), and the section's stream and hits. */
typedef struct {
    int64_t units, para;
} Hit;

typedef struct {
    PyTypeObject *segment; /* hwpscan.models.Segment */
    PyObject *table;       /* hwp5_text._TRANSLATE */
    PyObject *body;        /* the body's segments (a list) */
    int segmenting;        /* a section was not plain: each one is segmented as read */
    int overflow;          /* past MAX_SEGMENT_UNITS: nothing more kept */
    int64_t units;         /* the code units kept so far */
    unsigned char *joined;
    size_t joined_len, joined_room;
    Hit *hits;
    int64_t nhits, hits_room;
} Segs;

/* One non-empty payload kept: 0, or -1 on a Python error. The caller bounds the units
 * kept (MAX_SEGMENT_UNITS), so both buffers stay small. */
static int
keep_hit(Segs *s, const unsigned char *payload, int64_t size, int64_t para)
{
    if (s->nhits >= s->hits_room) {
        int64_t room = s->hits_room ? 2 * s->hits_room : 64;
        Hit *grown = PyMem_Realloc(s->hits, sizeof(Hit) * (size_t)room);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->hits = grown;
        s->hits_room = room;
    }
    const size_t need = s->joined_len + (size_t)size;
    if (need > s->joined_room && room_for(&s->joined, &s->joined_room, 2 * need) < 0) {
        return -1;
    }
    memcpy(s->joined + s->joined_len, payload, (size_t)size);
    s->joined_len += (size_t)size;
    s->hits[s->nhits++] = (Hit){size / 2, para};
    return 0;
}

/* A section's records walked as hwp5_text._scan walks them, each PARA_TEXT payload
 * counted into *c* (chars, units) while the text is plain: 1 for a plain section, 2 for
 * a section to segment, 0 where the Python reader would warn (a record cut short or past
 * the end, a PARA_TEXT without its PARA_HEADER or of an odd size, an 8-unit control cut
 * short); its payloads kept once *keep* is segmenting (up to MAX_SEGMENT_UNITS in all);
 * -1 on a Python error. */
static int
count_section(const unsigned char *data, int64_t len, Body *b, Segs *keep, int64_t *c)
{
    int64_t pos = 0, para = -1;
    int has_text = 1, plain = 1;
    while (pos < len) {
        b->records++;
        if (pos + 4 > len) {
            return 0;
        }
        uint32_t head = u32_at(data + pos);
        int64_t size = head >> SIZE_SHIFT;
        if (size == EXTENDED_SIZE) {
            if (pos + 8 > len) {
                return 0;
            }
            size = u32_at(data + pos + 4);
            pos += 4;
        }
        if (pos + 4 + size > len) {
            return 0; /* "rest of the stream skipped" */
        }
        if ((head & (TAG_MASK & ~1u)) == PARA_HEADER) {
            if (head & 1u) { /* PARA_TEXT */
                if (has_text || size & 1) {
                    return 0;
                }
                if (plain) {
                    plain = count_payload(data + pos + 4, size / 2, c);
                    if (plain < 0) {
                        return 0;
                    }
                }
                b->payload_units += size / 2;
                if (keep->segmenting && size > 0 && !keep->overflow) {
                    keep->units += size / 2;
                    keep->overflow = keep->units > MAX_SEGMENT_UNITS;
                    if (!keep->overflow && keep_hit(keep, data + pos + 4, size, para) < 0) {
                        return -1;
                    }
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
    b->paragraphs += para + 1;
    return plain ? 1 : 2;
}

/* The code units *units[0:n]* (UTF-16LE) as one code point each: codeunit_view. */
static PyObject *
unit_text(const unsigned char *units, int64_t n)
{
    Py_UCS4 top = 0;
    for (int64_t i = 0; i < n; i++) {
        Py_UCS4 u = u16_at(units + 2 * i);
        top = u > top ? u : top;
    }
    PyObject *text = PyUnicode_New((Py_ssize_t)n, top);
    if (text == NULL) {
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    void *out = PyUnicode_DATA(text);
    for (int64_t i = 0; i < n; i++) {
        PyUnicode_WRITE(kind, out, (Py_ssize_t)i, u16_at(units + 2 * i));
    }
    return text;
}

/* A stream's path as the container lists it ("Storage/Name"; names are ASCII), into
 * *path* (72 bytes), NUL-terminated; its length. */
static size_t
path_of(const Stream *s, char *path)
{
    size_t n = 0;
    if (s->storage != NULL) {
        for (uint32_t i = 0; i + 2 < u16_at(s->storage + 64); i += 2) {
            path[n++] = (char)s->storage[i];
        }
        path[n++] = '/';
    }
    for (uint32_t i = 0; i + 2 < u16_at(s->entry + 64); i += 2) {
        path[n++] = (char)s->entry[i];
    }
    path[n] = 0;
    return n;
}

static PyObject *
stream_path(const Stream *s)
{
    char path[72];
    const size_t n = path_of(s, path);
    return PyUnicode_FromStringAndSize(path, (Py_ssize_t)n);
}

/* The section *stream*'s kept payloads segmented as hwp5_text.text_segments makes them
 * (no budget can be reached): 1, 0 where it would warn (an 8-unit control cut short),
 * -1 on a Python error. The kept text is then dropped. */
static int
flush_section(Segs *s, const Stream *stream)
{
    int64_t units = 0;
    for (int64_t h = 0; h < s->nhits; h++) {
        units += s->hits[h].units;
    }
    PyObject *path = stream_path(stream);
    PyObject *big = path != NULL ? unit_text(s->joined, units) : NULL;
    if (big == NULL) {
        Py_XDECREF(path);
        return -1;
    }
    Runs r = {
        .big = big, .stream = path, .out = s->body, .table = s->table, .segment = s->segment,
        .units = s->joined,
    };
    int result = 1;
    Py_ssize_t a = 0;
    for (int64_t h = 0; h < s->nhits && result == 1; h++) {
        PyObject *para = PyLong_FromLongLong(s->hits[h].para);
        if (para == NULL) {
            result = -1;
            break;
        }
        const Py_ssize_t b = a + (Py_ssize_t)s->hits[h].units;
        result = paragraph_run(&r, a, b, para);
        Py_DECREF(para);
        a = b;
    }
    Py_DECREF(big);
    Py_DECREF(path);
    s->nhits = 0;
    s->joined_len = 0;
    return result == 2 ? 0 : result;
}

/* A plain PrvText (of even size) counted as a scan counts hwp5._preview's segments: 1
 * with the counts in *counts* (units 0: no entry), 0 where the text is not plain (a
 * high byte D8-F8, or FD FF anywhere). */
static int
count_preview(const unsigned char *raw, int64_t len, int64_t *counts)
{
    const int64_t all = len / 2;
    int64_t n = all;
    while (n > 0 && raw[2 * n - 2] == 0 && raw[2 * n - 1] == 0) {
        n--; /* rstrip("\x00"): the units past n are NUL, no CR or LF among them */
    }
    int64_t pairs = 0, breaks = 0; /* CR LF pairs, taken left to right; CR and LF units */
    for (int64_t i = 0; i < all; i++) {
        const unsigned char lo = raw[2 * i], hi = raw[2 * i + 1];
        if (hi == 0) {
            if (lo == '\r' || lo == '\n') {
                breaks++;
                if (lo == '\r' && i + 1 < all && raw[2 * i + 2] == '\n' && raw[2 * i + 3] == 0) {
                    pairs++;
                    breaks++;
                    i++;
                }
            }
        }
        else if (SURROGATE_OR_PUA(hi) || (hi == 0xFF && lo == 0xFD) ||
                 (hi == 0xFD && i + 1 < all && raw[2 * i + 2] == 0xFF)) {
            return 0; /* (FD FF across two units: unit i's high byte, unit i + 1's low) */
        }
    }
    const int64_t units = n - 2 * pairs;
    counts[0] = units - (breaks - 2 * pairs);
    counts[1] = units;
    return 1;
}

/* The streams the reader takes, found among d->streams. */
typedef struct {
    const Stream *header, *preview, *docinfo;
    int64_t sections;
} Found;

/* A BodyText or ViewText section's name (hwp5_spec.SECTION_RE for an ASCII name). */
static int
section_name(const unsigned char *e)
{
    const int units = (int)(u16_at(e + 64) - 2) / 2;
    static const char word[] = "section";
    if (units <= 7) {
        return 0;
    }
    for (int i = 0; i < 7; i++) {
        if (lower_ascii(e[2 * i]) != (unsigned char)word[i]) {
            return 0;
        }
    }
    for (int i = 7; i < units; i++) {
        if (e[2 * i] < '0' || e[2 * i] > '9') {
            return 0;
        }
    }
    return 1;
}

/* The FileHeader, PrvText and DocInfo streams and the number of BodyText sections; 0
 * for a decline (no FileHeader or DocInfo, no BodyText section, a ViewText one). */
static int
find_streams(const Doc *d, Found *f)
{
    memset(f, 0, sizeof(*f));
    for (int64_t i = 0; i < d->nstreams; i++) {
        const Stream *s = &d->streams[i];
        if (s->storage == NULL) {
            if (named(s->entry, "fileheader")) {
                f->header = s;
            }
            else if (named(s->entry, "prvtext")) {
                f->preview = s;
            }
            else if (named(s->entry, "docinfo")) {
                f->docinfo = s;
            }
        }
        else if (section_name(s->entry)) {
            if (named(s->storage, "viewtext")) {
                return 0;
            }
            f->sections += named(s->storage, "bodytext");
        }
    }
    return f->header != NULL && f->docinfo != NULL && f->sections > 0;
}

typedef struct {
    int64_t max_stream, budget, max_names;
    int compressed;
} Caps;

/* A DocInfo name made a Segment("DocInfo", record, units before it, text) for
 * read_segments, as hwp5._decode_names makes it (the stream's name is the Python
 * reader's spec.DOCINFO_STREAM, whatever the case in the container). */
typedef struct {
    PyObject *list, *stream;
    PyTypeObject *segment;
    Py_ssize_t cap;
} NameSegments;

static int
add_name(void *ctx, int64_t index, int64_t units, int64_t pos, int64_t length,
         const unsigned char *data)
{
    NameSegments *n = ctx;
    PyObject *record = PyLong_FromLongLong(index);
    if (record == NULL) {
        return -1;
    }
    PyObject *seg = new_segment(n->segment, n->stream, record, (Py_ssize_t)units,
                                unit_text(data + pos, length));
    Py_DECREF(record);
    int failed = seg == NULL ? -1 : PyList_Append(n->list, seg);
    Py_XDECREF(seg);
    return failed;
}

static int
names_full(void *ctx)
{
    NameSegments *n = ctx;
    return PyList_GET_SIZE(n->list) > n->cap;
}

/* The DocInfo names counted where plain: 1 with the counts in
 * *counts* (counts[2] 0: no name, no entry), 0 for a decline, -1 on a Python error.
 * With *segs*, names to look at are made segments instead, into *names* (2). */
static int
count_docinfo(Doc *d, const Stream *s, Caps *caps, int64_t *counts, Segs *segs,
              PyObject **names)
{
    const unsigned char *bytes = NULL;
    int64_t len = records(d, s, caps->compressed, caps->max_stream, &caps->budget, &bytes);
    if (len < 0) {
        return len == -1 ? -1 : 0;
    }
    PlainNames plain = {0, 0, 0, -1, 0, (Py_ssize_t)caps->max_names};
    int64_t stopped = 0;
    int walked = walk_names(bytes, len, count_name, names_not_plain, &plain, &stopped);
    if (walked == 1) {
        counts[0] = plain.units - plain.breaks;
        counts[1] = plain.units;
        counts[2] = plain.names;
        return 1;
    }
    if (walked != 2 || plain.names > plain.cap) {
        return walked < 0 ? -1 : 0; /* a warning, the cap's cut, or a name to look at */
    }
    NameSegments made = {PyList_New(0), NULL, segs->segment, plain.cap};
    made.stream = PyUnicode_FromString("DocInfo");
    if (made.list == NULL || made.stream == NULL) {
        Py_XDECREF(made.list);
        Py_XDECREF(made.stream);
        return -1;
    }
    walked = walk_names(bytes, len, add_name, names_full, &made, &stopped);
    Py_DECREF(made.stream);
    if (walked != 1) { /* a warning or the cap's cut (the Python reader's verdict) */
        Py_DECREF(made.list);
        return walked < 0 ? -1 : 0;
    }
    *names = made.list;
    return 2;
}

/* Whether stream *a*'s path sorts after stream *b*'s (ASCII: as Python compares them). */
static int
path_after(const Stream *a, const Stream *b)
{
    char pa[72], pb[72];
    path_of(a, pa);
    path_of(b, pb);
    return strcmp(pa, pb) > 0;
}

/* The BodyText sections in the Python reader's order (hwp5._read_hwp5's sort: by number,
 * then by path), into *order*: how many, or -1 for a decline (a number too long). */
static int64_t
body_sections(const Doc *d, const Stream **order, int64_t *numbers)
{
    int64_t n = 0;
    for (int64_t i = 0; i < d->nstreams; i++) {
        const Stream *s = &d->streams[i];
        if (s->storage == NULL || !section_name(s->entry) || !named(s->storage, "bodytext")) {
            continue;
        }
        const int units = (int)(u16_at(s->entry + 64) - 2) / 2;
        int64_t number = 0;
        int digits = 0;
        for (int k = 7; k < units; k++) {
            digits += number > 0 || s->entry[2 * k] != '0';
            if (digits > MAX_NUMBER_DIGITS) { /* before the product: 19 digits overflow */
                return -1;
            }
            number = 10 * number + (s->entry[2 * k] - '0');
        }
        /* insertion sort: a few sections, MAX_PLAIN_STREAMS at most */
        int64_t at = n++;
        while (at > 0 && (numbers[at - 1] > number ||
                          (numbers[at - 1] == number && path_after(order[at - 1], s)))) {
            order[at] = order[at - 1];
            numbers[at] = numbers[at - 1];
            at--;
        }
        order[at] = s;
        numbers[at] = number;
    }
    return n;
}

/* One section walked again, its payloads kept, and segmented (read_segments); *b* takes
 * the walk's counts (a scratch one: the section was counted already). 1, 0 for a
 * decline (*want* not what the walk says, an 8-unit control cut short, too much text),
 * -1 on a Python error. */
static int
segment_section(Segs *segs, const Stream *s, const unsigned char *bytes, int64_t len,
                int want)
{
    Body scratch = {0, 0, 0, 0, 0};
    int64_t counts[2] = {0, 0};
    int read = count_section(bytes, len, &scratch, segs, counts);
    if (read != want || segs->overflow) {
        return read < 0 ? -1 : 0;
    }
    return flush_section(segs, s);
}

/* The first section not plain met (read_segments): the plain ones before it read again
 * and segmented, in order, then it (its bytes in *bytes*, held apart from the reader's
 * buffers meanwhile). 1, 0, -1 as above. */
static int
segment_from_start(Doc *d, Caps *caps, const Stream **order, int64_t upto, Segs *segs,
                   const unsigned char *bytes, int64_t len)
{
    unsigned char **buffer = bytes == d->out ? &d->out : &d->raw;
    size_t *room = bytes == d->out ? &d->out_room : &d->raw_room;
    unsigned char *held = *buffer;
    *buffer = NULL;
    *room = 0;
    segs->segmenting = 1;
    int result = 1;
    for (int64_t k = 0; k < upto && result == 1; k++) {
        /* read as before: it fitted every cap then, it fits the stream's cap now */
        int64_t budget = caps->max_stream;
        const unsigned char *again = NULL;
        int64_t n = records(d, order[k], caps->compressed, caps->max_stream, &budget, &again);
        result = n < 0 ? (n == -1 ? -1 : 0) : segment_section(segs, order[k], again, n, 1);
    }
    if (result == 1) {
        result = segment_section(segs, order[upto], held, len, 2);
    }
    PyMem_Free(held);
    return result;
}

/* Every BodyText section read and counted; 1, 0 for a decline, -1 on a Python error.
 * A document whose text is not plain is segmented instead: the sections before the
 * first one not plain too. */
static int
count_body(Doc *d, Caps *caps, Body *b, Segs *segs)
{
    const Stream *order[MAX_PLAIN_STREAMS];
    int64_t numbers[MAX_PLAIN_STREAMS];
    const int64_t n = body_sections(d, order, numbers);
    if (n < 0) {
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        const Stream *s = order[i];
        const unsigned char *bytes = NULL;
        int64_t len = records(d, s, caps->compressed, caps->max_stream, &caps->budget, &bytes);
        if (len < 0) {
            return len == -1 ? -1 : 0;
        }
        int64_t counts[2] = {0, 0};
        int read = count_section(bytes, len, b, segs, counts);
        if (read <= 0) {
            return read;
        }
        /* the budget (the walk stops past it; units: the plain body's segment cap) */
        if (b->records >= MAX_RECORDS || b->paragraphs >= MAX_PARAGRAPHS ||
            b->payload_units > MAX_SEGMENTS) {
            return 0;
        }
        b->chars += counts[0];
        b->units += counts[1];
        if (read == 1 && !segs->segmenting) {
            continue; /* counted; segmented later if a section not plain follows */
        }
        if (!segs->segmenting) {
            read = segment_from_start(d, caps, order, i, segs, bytes, len);
        }
        else if (segs->overflow) {
            return 0; /* a big body to segment: the Python reader's turn (its budgets) */
        }
        else {
            read = flush_section(segs, s);
        }
        if (read != 1) {
            return read;
        }
    }
    return 1;
}

/* hwp5._preview's segments of a PrvText not plain (its size even): its code
 * units less the NUL ones at the end, split at CR LF, each non-empty line a
 * Segment(path, line number, 0, line). */
static PyObject *
preview_segments(const Stream *s, const unsigned char *raw, int64_t len, PyTypeObject *type)
{
    int64_t n = len / 2;
    while (n > 0 && raw[2 * n - 2] == 0 && raw[2 * n - 1] == 0) {
        n--;
    }
    PyObject *list = PyList_New(0), *path = stream_path(s);
    if (list == NULL || path == NULL) {
        goto failed;
    }
    int64_t start = 0, line = 0;
    for (int64_t i = 0; i <= n; i++) {
        const int end = i == n;
        if (!end && !(u16_at(raw + 2 * i) == '\r' && i + 1 < n && u16_at(raw + 2 * i + 2) == '\n')) {
            continue;
        }
        if (i > start) {
            PyObject *number = PyLong_FromLongLong(line);
            PyObject *seg = number != NULL
                                ? new_segment(type, path, number, 0, unit_text(raw + 2 * start, i - start))
                                : NULL;
            Py_XDECREF(number);
            int failed = seg == NULL ? -1 : PyList_Append(list, seg);
            Py_XDECREF(seg);
            if (failed < 0) {
                goto failed;
            }
        }
        line++;
        start = i + 2;
        i++; /* past the LF */
    }
    Py_DECREF(path);
    return list;
failed:
    Py_XDECREF(list);
    Py_XDECREF(path);
    return NULL;
}

/* The PrvText stream read: 1 with plain counts in *counts*, 2 with its segments in
 * *shown* (with *segs*), 0 for a decline, -1 on a Python error. */
static int
read_preview(Doc *d, const Stream *s, const Caps *caps, int64_t *counts, Segs *segs,
             PyObject **shown)
{
    if ((int64_t)s->size > caps->max_stream || read_stream(d, s) < 0) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (s->size & 1) {
        return 0; /* "odd byte count": the Python reader's warning */
    }
    if (count_preview(d->raw, s->size, counts)) {
        return 1;
    }
    *shown = preview_segments(s, d->raw, s->size, segs->segment);
    return *shown == NULL ? -1 : 2;
}

/* The part of the result for the body, the preview or the DocInfo names: the list of
 * segments *made* (stolen) where there is one, else (chars, units), or None for
 * nothing. */
static PyObject *
part(PyObject *made, const int64_t *counts, int present)
{
    if (made != NULL || !present) {
        return made != NULL ? made : Py_NewRef(Py_None);
    }
    return Py_BuildValue("(LL)", (long long)counts[0], (long long)counts[1]);
}

/* The document read from the open container: its result tuple, Py_None for a decline,
 * NULL on a Python error. With *segs*, a document whose text is not plain is answered
 * too, with its segments (read_segments). */
static PyObject *
read_document(Doc *d, Caps *caps, Segs *segs)
{
    Found f;
    if (!find_streams(d, &f) || (int64_t)f.header->size > caps->max_stream ||
        f.header->size < PROPERTIES_END || read_stream(d, f.header) < 0) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    if (memcmp(d->raw, SIGNATURE, SIGNATURE_LEN) != 0) {
        return Py_NewRef(Py_None);
    }
    const uint32_t word = u32_at(d->raw + 32), flags = u32_at(d->raw + 36);
    if (word >> 24 != 5 || flags & (ENCRYPTION_FLAGS | FLAG_DISTRIBUTION)) {
        return Py_NewRef(Py_None);
    }
    caps->compressed = (flags & FLAG_COMPRESSED) != 0;
    int64_t preview[2] = {0, 0};
    PyObject *shown = NULL, *names = NULL, *result = NULL;
    const int whole = !segs->segmenting; /* not body_only: the preview and names too */
    int done = whole && f.preview != NULL ? read_preview(d, f.preview, caps, preview, segs, &shown) : 1;
    /* The body before the DocInfo (the Python reader's order is the other way round):
     * a contaminated section declines sooner, and the caps accept the same either way,
     * every stream under its own cap and all of them under the document's. */
    Body body = {0, 0, 0, 0, 0};
    if (done > 0) {
        done = count_body(d, caps, &body, segs);
    }
    int64_t meta[3] = {0, 0, 0};
    if (done > 0 && whole) {
        done = count_docinfo(d, f.docinfo, caps, meta, segs, &names);
    }
    if (done <= 0) {
        Py_XDECREF(shown);
        Py_XDECREF(names);
        return done < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *text = segs->segmenting ? Py_NewRef(segs->body) : NULL;
    text = part(text, (int64_t[]){body.chars, body.units}, 1);
    shown = part(shown, preview, preview[1] > 0);
    names = part(names, meta, meta[2] > 0);
    if (text != NULL && shown != NULL && names != NULL) {
        result = Py_BuildValue("(kkLLOOO)", (unsigned long)word, (unsigned long)flags,
                               (long long)body.paragraphs, (long long)f.sections, text, shown,
                               names);
    }
    Py_XDECREF(text);
    Py_XDECREF(shown);
    Py_XDECREF(names);
    return result;
}

static void
release(Doc *d)
{
    Cfb *c = &d->c;
    PyMem_Free(c->used);
    PyMem_Free(c->fat);
    PyMem_Free(c->scratch);
    PyMem_Free(c->dir);
    PyMem_Free(c->minifat);
    PyMem_Free(c->used_mini);
    PyMem_Free(c->mini_scratch);
    PyMem_Free(d->ministream);
    PyMem_Free(d->streams);
    PyMem_Free(d->raw);
    PyMem_Free(d->out);
    if (d->z_ready) {
        inflateEnd(&d->z);
    }
}

/* The caps taken from args[1:4]: 1, 0 where they are not what the reader is called
 * with (its own turn), -1 on a Python error. */
static int
take_caps(PyObject *const *args, Caps *caps)
{
    caps->max_stream = PyLong_AsLongLong(args[1]);
    caps->budget = PyLong_AsLongLong(args[2]);
    caps->max_names = PyLong_AsLongLong(args[3]);
    if (PyErr_Occurred()) {
        return -1;
    }
    return !(caps->max_stream < 0 || caps->budget < 0 || caps->max_names < 0 ||
             caps->max_stream > PY_SSIZE_T_MAX / 2 || caps->max_names > PY_SSIZE_T_MAX);
}

/* read and read_segments: the file opened and read, with *segs* or not. */
static PyObject *
read_file(PyObject *data, Caps *caps, Segs *segs)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Doc d;
    memset(&d, 0, sizeof(d));
    PyObject *result = NULL;
    int opened = open_container(&d, view.buf, view.len);
    if (opened == OK) {
        result = read_document(&d, caps, segs);
    }
    else if (opened == DECLINE) {
        result = Py_NewRef(Py_None);
    }
    release(&d);
    PyBuffer_Release(&view);
    return result;
}

/* read_hwp5: see the comment at the top. */
PyObject *
hwpscan_read_hwp5(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "read_hwp5 takes 7 arguments");
        return NULL;
    }
    if (!PyType_Check(args[4]) || !PyType_IsSubtype((PyTypeObject *)args[4], &PyTuple_Type) ||
        !PyDict_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "read_hwp5: a tuple type and a dict expected");
        return NULL;
    }
    const int body_only = PyObject_IsTrue(args[6]);
    Caps caps = {0, 0, 0, 0};
    int fit = body_only < 0 ? -1 : take_caps(args, &caps);
    if (fit <= 0) {
        return fit < 0 ? NULL : Py_NewRef(Py_None);
    }
    Segs *segs = PyMem_Calloc(1, sizeof(Segs));
    if (segs == NULL) {
        return PyErr_NoMemory();
    }
    segs->segment = (PyTypeObject *)args[4];
    segs->table = args[5];
    segs->body = PyList_New(0);
    segs->segmenting = body_only; /* the body alone: segmented from the start */
    PyObject *result = segs->body != NULL ? read_file(args[0], &caps, segs) : NULL;
    Py_XDECREF(segs->body);
    PyMem_Free(segs->joined);
    PyMem_Free(segs->hits);
    PyMem_Free(segs);
    return result;
}
