/* The checks of a compound file (CFB / OLE2, [MS-CFB] section 2) for the native HWP 5
 * reader (_hwp5_reader.c, which includes Python.h first): the header, the DIFAT and the
 * FAT, and a sector chain. Strict: anything irregular is declined, and the Python
 * reader (olefile) reads that file. Every read is checked against the file's sector
 * count before it is made; an allocation that fails sets MemoryError (FAILED). */
#ifndef HWPSCAN_CFB_CORE_H
#define HWPSCAN_CFB_CORE_H

#include <stdint.h>
#include <string.h>

#include "_le.h"

#define SECTOR 512
#define MINI 64
#define CUTOFF 4096u
#define PER_SECTOR (SECTOR / 4)
#define HEADER_DIFAT 109
#define DIFSECT 0xFFFFFFFCu
#define FATSECT 0xFFFFFFFDu
#define ENDOFCHAIN 0xFFFFFFFEu
#define FREESECT 0xFFFFFFFFu
#define NOSTREAM 0xFFFFFFFFu
#define STORAGE 1
#define STREAM 2
#define ROOT 5
#define ENTRY 128
/* More reachable directory entries, or a deeper tree: declined. */
#define MAX_ENTRIES 10000
#define MAX_TREE_DEPTH 300

/* What the helpers answer: read, irregular (the Python constructor's turn), or a
 * Python error (set). */
#define OK 1
#define DECLINE 0
#define FAILED (-1)

typedef struct {
    const unsigned char *data;
    int64_t nsect;           /* sectors after the header */
    unsigned char *used;     /* nsect: sector already in a chain (or a FAT/DIFAT sector) */
    uint32_t *fat;           /* nsect entries */
    uint32_t *scratch;       /* nsect: the sectors of the chain being walked */
    uint32_t *dir;           /* the directory's sectors */
    int64_t ndir;
    uint32_t *minifat;       /* nmini entries */
    unsigned char *used_mini;
    uint32_t *mini_scratch;
    int64_t nmini;
} Cfb;

static const unsigned char *
sector_at(const Cfb *c, uint32_t s)
{
    /* s < nsect, checked by every caller: the sector lies inside the buffer */
    return c->data + (int64_t)SECTOR * ((int64_t)s + 1);
}

/* The chain from *start* in *table* (n entries): exactly *count* sectors ending in
 * ENDOFCHAIN, or (count < 0) however many there are up to ENDOFCHAIN, written to *out*
 * (room for n). Every sector must lie in the table and not be in *used*, which it is then
 * added to, so the walk is at most n steps. The length, or -1 for a decline. */
static int64_t
chain(const uint32_t *table, int64_t n, unsigned char *used, uint32_t start, int64_t count,
      uint32_t *out)
{
    int64_t limit = count < 0 ? n : count;
    int64_t k = 0;
    uint32_t s = start;
    while (k < limit) {
        if (s == ENDOFCHAIN && count < 0) {
            return k;
        }
        if ((int64_t)s >= n || used[s]) {
            return -1;
        }
        used[s] = 1;
        out[k++] = s;
        s = table[s];
    }
    return s == ENDOFCHAIN ? k : -1;
}

/* The header's checks; the fields the rest needs in *fields*: FAT count, directory
 * start, MiniFAT start and count, DIFAT start and count. */
static int
header(const unsigned char *data, int64_t len, uint32_t *fields)
{
    static const unsigned char magic[8] = {0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1};
    static const unsigned char zeros[16] = {0};
    if (len < 3 * SECTOR || memcmp(data, magic, 8) != 0 || len % SECTOR) {
        return DECLINE;
    }
    if (u16_at(data + 26) != 3 || u16_at(data + 28) != 0xFFFE || u16_at(data + 30) != 9) {
        return DECLINE;
    }
    if (u16_at(data + 32) != 6 || u32_at(data + 56) != CUTOFF) {
        return DECLINE;
    }
    if (memcmp(data + 8, zeros, 16) != 0 || u16_at(data + 34) || u32_at(data + 36) ||
        u32_at(data + 40) || u32_at(data + 52)) {
        return DECLINE;
    }
    fields[0] = u32_at(data + 44); /* FAT count */
    fields[1] = u32_at(data + 48); /* directory start */
    fields[2] = u32_at(data + 60); /* MiniFAT start */
    fields[3] = u32_at(data + 64); /* MiniFAT count */
    fields[4] = u32_at(data + 68); /* DIFAT start */
    fields[5] = u32_at(data + 72); /* DIFAT count */
    return OK;
}

static int
all_free(const unsigned char *words, int64_t from, int64_t to)
{
    for (int64_t i = from; i < to; i++) {
        if (u32_at(words + 4 * i) != FREESECT) {
            return 0;
        }
    }
    return 1;
}

/* The FAT's sectors, then the FAT itself cut to the file and its FAT and
 * DIFAT sectors checked for their marks. */
static int
fat(Cfb *c, uint32_t count, uint32_t difat_start, uint32_t difat_count)
{
    const int64_t nsect = c->nsect;
    if (count == 0 || (int64_t)count > nsect) {
        return DECLINE;
    }
    const int64_t head = count < HEADER_DIFAT ? count : HEADER_DIFAT;
    if (!all_free(c->data + 76, head, HEADER_DIFAT)) {
        return DECLINE;
    }
    const int64_t per = PER_SECTOR - 1; /* the last slot of a DIFAT sector links on */
    const int64_t need = ((int64_t)count - head + per - 1) / per;
    if ((int64_t)difat_count != need) {
        return DECLINE;
    }
    /* count <= nsect FAT sectors and need <= count DIFAT sectors: both bounded */
    uint32_t *sectors = PyMem_Malloc(sizeof(uint32_t) * ((size_t)count + (size_t)need + 1));
    if (sectors == NULL) {
        PyErr_NoMemory();
        return FAILED;
    }
    uint32_t *difat = sectors + count;
    int result = DECLINE;
    int64_t have = 0;
    for (int64_t i = 0; i < head; i++) {
        sectors[have++] = u32_at(c->data + 76 + 4 * i);
    }
    uint32_t s = difat_start;
    for (int64_t d = 0; d < need; d++) {
        if ((int64_t)s >= nsect || c->used[s]) {
            goto done;
        }
        c->used[s] = 1;
        difat[d] = s;
        const unsigned char *entries = sector_at(c, s);
        int64_t take = (int64_t)count - have;
        if (take > per) {
            take = per;
        }
        if (!all_free(entries, take, per)) {
            goto done;
        }
        for (int64_t i = 0; i < take; i++) {
            sectors[have++] = u32_at(entries + 4 * i);
        }
        s = u32_at(entries + 4 * per);
    }
    if (s != ENDOFCHAIN && s != FREESECT) {
        goto done;
    }
    for (int64_t i = 0; i < have; i++) {
        if ((int64_t)sectors[i] >= nsect || c->used[sectors[i]]) {
            goto done;
        }
        c->used[sectors[i]] = 1;
    }
    /* 128 entries per FAT sector; those past the file's last sector name none */
    if ((int64_t)count * PER_SECTOR < nsect) {
        goto done;
    }
    for (int64_t i = 0; i < nsect; i++) {
        c->fat[i] = u32_at(sector_at(c, sectors[i / PER_SECTOR]) + 4 * (i % PER_SECTOR));
    }
    for (int64_t i = 0; i < have; i++) {
        if (c->fat[sectors[i]] != FATSECT) {
            goto done;
        }
    }
    for (int64_t d = 0; d < need; d++) {
        if (c->fat[difat[d]] != DIFSECT) {
            goto done;
        }
    }
    result = OK;
done:
    PyMem_Free(sectors);
    return result;
}

static const unsigned char *
entry_at(const Cfb *c, uint32_t sid)
{
    /* sid < 4 * ndir, checked by the caller */
    return sector_at(c, c->dir[sid / 4]) + ENTRY * (sid % 4);
}

#endif
