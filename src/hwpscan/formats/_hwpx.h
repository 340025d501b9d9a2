/* What the HWPX package reader (_hwpx_package.c) asks of the XML walk (_hwpx_walk.c). */
#ifndef HWPSCAN_HWPX_H
#define HWPSCAN_HWPX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_ATTRS 64

typedef struct {
    Py_ssize_t at, len;
} Span;

/* A start tag as the walk reads it, spans of the part: its local name, and its
 * attributes' local names and raw values (quotes off), xmlns declarations left out. */
typedef struct {
    Span local;
    int n;
    Span name[MAX_ATTRS], value[MAX_ATTRS];
} Tag;

/* Told each start tag of a part walked for its tags: 0 goes on, 1 declines. */
typedef int (*TagSink)(void *ctx, const unsigned char *s, const Tag *tag);

/* Walk the XML s[0:n] as hwpx_xml.section_text does: 0 with the paragraph texts in *slots (a new
 * list), 1 where the walk declines, -1 on a Python error. With a sink, each start tag is
 * told to it as well (and may decline the walk). */
int hwpscan_hwpx_walk(const unsigned char *s, Py_ssize_t n, int max_depth,
                      Py_ssize_t max_paragraphs, TagSink sink, void *ctx, PyObject **slots);

#endif
