/* A plain HWP 5 document counted in one call: the optional fast path of
 * hwpscan.formats.hwp5.read_ole(data, count_plain_body=True) for the common case, a
 * well-formed compound file holding a clean document. The Python reader stays the
 * reference and the fallback.
 *
 * read(data, max_stream_bytes, max_document_bytes, max_docinfo_names) returns what the
 * Python reader would put in the Document's info for such a file,
 *
 *     (version word, flags, paragraphs, sections, (chars, units) of the body,
 *      (chars, units) of the preview or None, (chars, units) of the DocInfo names or None)
 *
 * where that reader makes a Document with no segment, no warning and no status: the
 * body, the PrvText preview and the DocInfo names all counted as plain
 * (hwp5._PlainBody, hwp5._count_preview, the docinfo_plain count of _records.c). For
 * anything else it returns None and the caller reads the file the usual way. It
 * declines (fails fast, before inflating anything where it can):
 *
 *  - a compound file cfb_fast would decline (the checks of _cfb_core.h and _cfb.c's
 *    walk, repeated here without a Python object), and more: a directory entry name
 *    that is not ASCII or holds a line feed, a storage inside a storage, more than
 *    MAX_PLAIN_STREAMS streams;
 *  - no FileHeader stream, one without the signature or shorter than 40 bytes, a
 *    version that is not 5.x, an encryption or distribution bit, a ViewText section, no
 *    BodyText section, no DocInfo stream;
 *  - any stream over max_stream_bytes, an inflated stream over its cap, all of them over
 *    max_document_bytes, deflate data that is not valid or ends early (hwp5_text.inflate);
 *  - a PrvText stream of an odd size or one hwp5_text.is_plain rejects;
 *  - DocInfo names the Python reader would warn about, cut at max_docinfo_names or one
 *    of them not plain;
 *  - a section record cut short or running past its stream, a PARA_TEXT record without
 *    its PARA_HEADER or of an odd size, an 8-unit control cut short, a unit the counting
 *    looks at (a surrogate, private use, U+FFFD, the folded symbols' block);
 *  - a document near a per-file budget of hwp5_text.Budget (records, paragraphs, the
 *    code units a plain body may count).
 *
 * The input is hostile: every read is checked before it is made (sector numbers against
 * the sector count, record sizes against the stream, 64-bit positions), every
 * allocation is bounded by len(data) or by the inflate cap the caller gave, and the
 * inflated output never passes that cap. tests/test_hwp5_plain_fast.py holds the
 * Documents equal to the Python reader's over fixtures, generated documents and mutated
 * ones.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "_cfb_core.h"
#include "_hwp5_records.h"

/* hwp5_text.MAX_RECORDS, MAX_PARAGRAPHS, MAX_SEGMENTS (a test holds them equal). */
#define MAX_RECORDS 4000000
#define MAX_PARAGRAPHS 400000
#define MAX_SEGMENTS 1000000
/* More streams than this: the Python reader's turn (the case-blind name check here is
 * quadratic). */
#define MAX_PLAIN_STREAMS 512
#define FLAG_COMPRESSED 0x1u
#define FLAG_DISTRIBUTION 0x4u
/* password, drm, cert_encryption, cert_drm (hwp5_spec.ENCRYPTION_FLAGS) */
#define ENCRYPTION_FLAGS (0x2u | 0x10u | 0x100u | 0x400u)
#define SIGNATURE "HWP Document File"
#define SIGNATURE_LEN 17
#define PROPERTIES_END 40

/* What a code unit's high byte says: NOT_PLAIN for a surrogate or private use (D8-F8,
 * what is_plain rejects), FOLD_OR_FFFD for the folded symbols' block (A0-A8, which the
 * body's counting looks at too) and FF (U+FFFD when the low byte is FD), 0 otherwise. */
#define NOT_PLAIN 1
#define FOLD_OR_FFFD 2
static unsigned char HIGH_KIND[256];

static void
fill_high_kind(void)
{
    for (int hi = 0xD8; hi <= 0xF8; hi++) {
        HIGH_KIND[hi] = NOT_PLAIN;
    }
    for (int hi = 0xA0; hi <= 0xA8; hi++) {
        HIGH_KIND[hi] = FOLD_OR_FFFD;
    }
    HIGH_KIND[0xFF] = FOLD_OR_FFFD;
}

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
    int64_t nministream;
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
 * cfb_fast._entry_name rejects, and here also a name that is not ASCII or holds a line
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

/* cfb_fast.CfbStreams._entry without a Python object: one stream entry checked (its
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
 * pushed or a stream noted (_cfb.c's visit). */
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

/* cfb_fast.CfbStreams._walk: every stream reachable from the root, each chain checked. */
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

/* cfb_fast.CfbStreams._minifat without a Python object: the MiniFAT cut to the mini
 * stream, and the mini stream's sectors kept. */
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
    if (root_size) {
        int64_t need = ((int64_t)root_size + SECTOR - 1) / SECTOR;
        d->ministream = PyMem_Malloc(sizeof(uint32_t) * (size_t)need);
        if (d->ministream == NULL) {
            PyErr_NoMemory();
            return FAILED;
        }
        d->nministream = chain(c->fat, c->nsect, c->used, root_start, need, d->ministream);
        return d->nministream < 0 ? DECLINE : OK;
    }
    return root_start == ENDOFCHAIN ? OK : DECLINE;
}

/* The compound file read and checked as cfb_fast reads it (_cfb.c's layout). */
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

/* One PARA_TEXT payload counted as _records.c's plain_counts counts a paragraph: 1, or
 * 0 where the counting has something to look at or the Python code would warn. */
static int
count_payload(const unsigned char *raw, int64_t n, Body *b)
{
    int64_t i = 0;
    while (i < n) {
        const unsigned char lo = raw[2 * i], hi = raw[2 * i + 1];
        if (HIGH_KIND[hi] && (HIGH_KIND[hi] != FOLD_OR_FFFD || hi != 0xFF || lo == 0xFD)) {
            return 0; /* a surrogate, private use, a folded symbol or U+FFFD */
        }
        if (hi || lo >= 32) {
            b->units++;
            b->chars++;
            i++;
            continue;
        }
        switch (CONTROL_KIND[lo]) {
        case 1:
            b->units++;
            b->chars += lo != LINE_BREAK;
            i++;
            break;
        case 2:
            if (i + CONTROL_UNITS > n) {
                return 0; /* "ends inside an 8-unit control": the Python reader's warning */
            }
            if (lo == TAB) {
                b->units++;
                b->chars++;
            }
            i += CONTROL_UNITS;
            break;
        default:
            i++;
        }
    }
    return 1;
}

/* A section's records walked as hwp5_text._scan_free walks them, each PARA_TEXT payload
 * counted: 1, or 0 where the Python reader would warn (a record cut short or past the
 * end, a PARA_TEXT without its PARA_HEADER or of an odd size) or segment the text. */
static int
count_section(const unsigned char *data, int64_t len, Body *b)
{
    int64_t pos = 0, para = -1;
    int has_text = 1;
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
                if (has_text || size & 1 || !count_payload(data + pos + 4, size / 2, b)) {
                    return 0;
                }
                b->payload_units += size / 2;
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
    return 1;
}

/* hwp5._preview and _count_preview for a plain PrvText: 1 with the counts in *counts*
 * (units 0: no entry), 0 where the Python reader would warn (an odd size) or make
 * segments (is_plain rejects the bytes: a high byte D8-F8, or FD FF anywhere). */
static int
count_preview(const unsigned char *raw, int64_t len, int64_t *counts)
{
    if (len & 1) {
        return 0;
    }
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
        else if (HIGH_KIND[hi] == NOT_PLAIN || (hi == 0xFF && lo == 0xFD) ||
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

/* The DocInfo names counted (hwp5._docinfo with docinfo_plain): 1 with the counts in
 * *counts* (counts[2] 0: no name, no entry), 0 for a decline, -1 on a Python error. */
static int
count_docinfo(Doc *d, const Stream *s, Caps *caps, int64_t *counts)
{
    const unsigned char *bytes = NULL;
    int64_t len = records(d, s, caps->compressed, caps->max_stream, &caps->budget, &bytes);
    if (len < 0) {
        return len == -1 ? -1 : 0;
    }
    PlainNames names = {0, 0, 0, -1, 0, (Py_ssize_t)caps->max_names};
    int64_t stopped = 0;
    if (walk_names(bytes, len, count_name, names_not_plain, &names, &stopped) != 1) {
        return 0; /* a warning, a name to look at or the cap's cut */
    }
    counts[0] = names.units - names.breaks;
    counts[1] = names.units;
    counts[2] = names.names;
    return 1;
}

/* Every BodyText section read and counted; 1, 0 for a decline, -1 on a Python error. */
static int
count_body(Doc *d, Caps *caps, Body *b)
{
    for (int64_t i = 0; i < d->nstreams; i++) {
        const Stream *s = &d->streams[i];
        if (s->storage == NULL || !section_name(s->entry) || !named(s->storage, "bodytext")) {
            continue;
        }
        const unsigned char *bytes = NULL;
        int64_t len = records(d, s, caps->compressed, caps->max_stream, &caps->budget, &bytes);
        if (len < 0) {
            return len == -1 ? -1 : 0;
        }
        if (!count_section(bytes, len, b)) {
            return 0;
        }
        /* the budget (the walk stops past it; units: the plain body's segment cap) */
        if (b->records >= MAX_RECORDS || b->paragraphs >= MAX_PARAGRAPHS ||
            b->payload_units > MAX_SEGMENTS) {
            return 0;
        }
    }
    return 1;
}

static PyObject *
counts_or_none(int64_t chars, int64_t units, int present)
{
    if (!present) {
        return Py_NewRef(Py_None);
    }
    return Py_BuildValue("(LL)", (long long)chars, (long long)units);
}

/* The document read from the open container: its result tuple, Py_None for a decline,
 * NULL on a Python error. */
static PyObject *
read_document(Doc *d, Caps *caps)
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
    if (f.preview != NULL) {
        if ((int64_t)f.preview->size > caps->max_stream || read_stream(d, f.preview) < 0) {
            return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        }
        if (!count_preview(d->raw, f.preview->size, preview)) {
            return Py_NewRef(Py_None);
        }
    }
    /* The body before the DocInfo (the Python reader's order is the other way round):
     * a contaminated section declines sooner, and the caps accept the same either way,
     * every stream under its own cap and all of them under the document's. */
    Body body = {0, 0, 0, 0, 0};
    int done = count_body(d, caps, &body);
    int64_t meta[3] = {0, 0, 0};
    if (done == 1) {
        done = count_docinfo(d, f.docinfo, caps, meta);
    }
    if (done != 1) {
        return done < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *shown = counts_or_none(preview[0], preview[1], preview[1] > 0);
    PyObject *names = counts_or_none(meta[0], meta[1], meta[2] > 0);
    PyObject *result = NULL;
    if (shown != NULL && names != NULL) {
        result = Py_BuildValue("(kkLL(LL)OO)", (unsigned long)word, (unsigned long)flags,
                               (long long)body.paragraphs, (long long)f.sections,
                               (long long)body.chars, (long long)body.units, shown, names);
    }
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

PyDoc_STRVAR(read_doc,
"read(data, max_stream_bytes, max_document_bytes, max_docinfo_names, /)\n--\n\n"
"What read_ole(data, count_plain_body=True) puts in the info of a plain HWP 5\n"
"document: (version word, flags, paragraphs, sections, (chars, units) of the body,\n"
"(chars, units) of the preview or None, of the DocInfo names or None); None for any\n"
"other file (the Python reader's turn).");

static PyObject *
read_plain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "read takes 4 arguments");
        return NULL;
    }
    Caps caps = {0, 0, 0, 0};
    caps.max_stream = PyLong_AsLongLong(args[1]);
    caps.budget = PyLong_AsLongLong(args[2]);
    caps.max_names = PyLong_AsLongLong(args[3]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (caps.max_stream < 0 || caps.budget < 0 || caps.max_names < 0 ||
        caps.max_stream > PY_SSIZE_T_MAX / 2 || caps.max_names > PY_SSIZE_T_MAX) {
        Py_RETURN_NONE; /* not what the reader is called with: its own turn */
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Doc d;
    memset(&d, 0, sizeof(d));
    PyObject *result = NULL;
    int opened = open_container(&d, view.buf, view.len);
    if (opened == OK) {
        result = read_document(&d, &caps);
    }
    else if (opened == DECLINE) {
        result = Py_NewRef(Py_None);
    }
    release(&d);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"read", (PyCFunction)(void (*)(void))read_plain, METH_FASTCALL, read_doc},
    {NULL, NULL, 0, NULL},
};

static int
exec_module(PyObject *module)
{
    fill_high_kind();
    if (PyModule_AddIntConstant(module, "MAX_RECORDS", MAX_RECORDS) < 0 ||
        PyModule_AddIntConstant(module, "MAX_PARAGRAPHS", MAX_PARAGRAPHS) < 0 ||
        PyModule_AddIntConstant(module, "MAX_SEGMENTS", MAX_SEGMENTS) < 0 ||
        PyModule_AddIntConstant(module, "MAX_ENTRIES", MAX_ENTRIES) < 0) {
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
    .m_name = "hwpscan.formats._hwp5plain",
    .m_doc = "A plain HWP 5 document counted in one call (the Python reader is the reference).",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC
PyInit__hwp5plain(void)
{
    return PyModuleDef_Init(&module_def);
}
