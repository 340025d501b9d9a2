/* The record and control constants and the DocInfo name walk of the native HWP 5
 * reader (_hwp5_reader.c, which includes Python.h first), as hwpscan.formats.hwp5 and
 * hwp5_text read them. Every read is checked against the buffer's length before it is
 * made; positions are 64-bit, so a record size near 4 GB cannot wrap. */
#ifndef HWPSCAN_HWP5_RECORDS_H
#define HWPSCAN_HWP5_RECORDS_H

#include <stdint.h>

#include "_le.h"

#define TAG_MASK 0x3FFu
#define SIZE_SHIFT 20
#define EXTENDED_SIZE 0xFFFu
#define PARA_HEADER 66u /* PARA_TEXT is 67: PARA_HEADER | 1 */
#define FACE_NAME 19u
#define STYLE 26u
#define FACE_HAS_ALTERNATIVE 0x80u
#define FACE_HAS_TYPE_INFO 0x40u
#define FACE_HAS_DEFAULT 0x20u
#define FACE_TYPE_INFO_BYTES 10

/* Controls (code units below 32) as hwpscan.formats.hwp5_text.text_runs reads them:
 * 1 kept (one character of text), 2 an 8-unit control, 0 dropped. */
static const unsigned char CONTROL_KIND[32] = {
    /* 0 */ 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 10: line break */ 1, 2, 2, 0, 2, 2,
    /* 16 */ 2, 2, 2, 2, 2, 2, 2, 2, /* 24: hyphen */ 1, 0, 0, 0, 0, 0, 1, 1,
};
#define LINE_BREAK 10u
/* A UTF-16 unit's high byte of a surrogate or private use (D800-F8FF): not plain text. */
#define SURROGATE_OR_PUA(hi) ((hi) >= 0xD8 && (hi) <= 0xF8)
#define TAB 9u
#define CONTROL_UNITS 8

/* What is done with each non-empty name of the DocInfo walk: its record index, its unit
 * offset among the names of its record, and its bytes data[pos:pos + 2 * length].
 * Returns 0, or -1 on a Python error. */
typedef int (*NameVisit)(void *ctx, int64_t index, int64_t units, int64_t pos, int64_t length,
                         const unsigned char *data);
/* After each FACE_NAME or STYLE record: 1 to stop the walk there (the name cap), else 0. */
typedef int (*RecordDone)(void *ctx);

/* The names of one FACE_NAME or STYLE record spanning data[start:stop], as
 * hwpscan.formats.hwp5._name_spans reads them: 1 when read, 0 when the Python reader
 * would write a warning (the caller gives up), -1 on a Python error. */
static int
record_names(const unsigned char *data, int64_t start, int64_t stop, uint32_t tag,
             int64_t index, NameVisit visit, void *ctx)
{
    int skips[3];
    int nskips;
    if (tag == STYLE) {
        skips[0] = skips[1] = 0;
        nskips = 2;
    }
    else if (stop > start) {
        unsigned char prop = data[start];
        skips[0] = 1; /* the property byte */
        nskips = 1;
        if (prop & FACE_HAS_ALTERNATIVE) {
            skips[nskips++] = 1; /* the alternative font's type byte */
        }
        if (prop & FACE_HAS_DEFAULT) {
            skips[nskips++] = (prop & FACE_HAS_TYPE_INFO) ? FACE_TYPE_INFO_BYTES : 0;
        }
    }
    else {
        return 1; /* an empty FACE_NAME: nothing, and no warning */
    }
    int64_t pos = start, units = 0;
    for (int n = 0; n < nskips; n++) {
        pos += skips[n];
        if (pos + 2 > stop) {
            return 0;
        }
        int64_t length = u16_at(data + pos);
        pos += 2;
        if (pos + 2 * length > stop) {
            return 0;
        }
        if (length && visit(ctx, index, units, pos, length, data) < 0) {
            return -1;
        }
        pos += 2 * length;
        units += length;
    }
    return 1;
}

/* The DocInfo records of data[0:end], each FACE_NAME and STYLE record's names given to
 * *visit* and then *done* asked whether to stop: 1 when walked to the end, 2 when *done*
 * stopped it (at the record *stopped_at*), 0 where the Python reader would warn, -1 on
 * a Python error. */
static int
walk_names(const unsigned char *data, int64_t end, NameVisit visit, RecordDone done,
           void *ctx, int64_t *stopped_at)
{
    int64_t pos = 0, index = 0;
    while (pos + 4 <= end) {
        uint32_t head = u32_at(data + pos);
        pos += 4;
        int64_t size = head >> SIZE_SHIFT;
        if (size == EXTENDED_SIZE && pos + 4 <= end) {
            size = u32_at(data + pos);
            pos += 4;
        }
        int64_t stop = pos + size;
        if (stop > end) { /* "runs past the end of the stream": the Python reader's */
            return 0;
        }
        uint32_t tag = head & TAG_MASK;
        if (tag == STYLE || tag == FACE_NAME) {
            int read = record_names(data, pos, stop, tag, index, visit, ctx);
            if (read <= 0) {
                return read;
            }
            if (done(ctx)) {
                *stopped_at = index;
                return 2;
            }
        }
        pos = stop;
        index++;
    }
    return 1;
}

/* What the counting of plain names adds up, in the order the spans would list them. */
typedef struct {
    int64_t names, units, breaks; /* breaks: \n and \r units (no characters) */
    int prev_high;                /* the high byte of the unit before (-1: none yet) */
    int notable;                  /* a unit that is not plain (or its FD FF bytes) */
    Py_ssize_t cap;
} PlainNames;

/* One name's UTF-16LE bytes, judged plain as the joined names: no high byte D8-F8,
 * and no bytes FD FF anywhere in the join (aligned: U+FFFD; else across two units). */
static int
count_name(void *ctx, int64_t index, int64_t units, int64_t pos, int64_t length,
           const unsigned char *data)
{
    (void)index;
    (void)units;
    PlainNames *out = ctx;
    const unsigned char *p = data + pos;
    out->names++;
    out->units += length;
    for (int64_t i = 0; i < length; i++) {
        const unsigned char lo = p[2 * i], hi = p[2 * i + 1];
        if (SURROGATE_OR_PUA(hi) || (lo == 0xFD && hi == 0xFF) ||
            (out->prev_high == 0xFD && lo == 0xFF)) {
            out->notable = 1;
        }
        if (!hi && (lo == '\n' || lo == '\r')) {
            out->breaks++;
        }
        out->prev_high = hi;
    }
    return 0;
}

/* Stop at a name to look at, or past the cap: either way the counts are not given. */
static int
names_not_plain(void *ctx)
{
    PlainNames *n = ctx;
    return n->notable || n->names > n->cap;
}

#endif
