/* The segments of a section's decoded payloads, as hwpscan.formats.hwp5_text's
 * _paragraph_runs and text_runs make them (their Python code is the reference), for the
 * native HWP 5 reader (_hwp5_reader.c). The
 * caller includes Python.h and _hwp5_records.h first.
 */
#ifndef HWPSCAN_HWP5_RUNS_H
#define HWPSCAN_HWP5_RUNS_H

#define PARA_BREAK 13u

static inline int
is_kept(Py_UCS4 c)
{
    return c < 32 && CONTROL_KIND[c] == 1;
}

/* A Segment (a tuple subclass) of (stream, para, offset, text); steals *text*. */
static PyObject *
new_segment(PyTypeObject *type, PyObject *stream, PyObject *para, Py_ssize_t offset,
            PyObject *text)
{
    if (text == NULL) {
        return NULL;
    }
    PyObject *at = PyLong_FromSsize_t(offset);
    PyObject *seg = at != NULL ? type->tp_alloc(type, 4) : NULL;
    if (seg == NULL) {
        Py_XDECREF(at);
        Py_DECREF(text);
        return NULL;
    }
    PyTuple_SET_ITEM(seg, 0, Py_NewRef(stream));
    PyTuple_SET_ITEM(seg, 1, Py_NewRef(para));
    PyTuple_SET_ITEM(seg, 2, at);
    PyTuple_SET_ITEM(seg, 3, text);
    return seg;
}

static int
append_segment(PyObject *out, PyTypeObject *type, PyObject *stream, PyObject *para,
               Py_ssize_t offset, PyObject *text)
{
    PyObject *seg = new_segment(type, stream, para, offset, text);
    if (seg == NULL) {
        return -1;
    }
    int failed = PyList_Append(out, seg);
    Py_DECREF(seg);
    return failed;
}

/* A section's kept payloads: *big* one code point per unit of *units* (UTF-16LE). */
typedef struct {
    PyObject *big, *stream, *out, *table;
    PyTypeObject *segment;
    const unsigned char *units;
} Runs;

/* big[a:b], translated by the table when *kept* (as text_runs does). */
static PyObject *
run_text(const Runs *r, Py_ssize_t a, Py_ssize_t b, int kept)
{
    PyObject *run = PyUnicode_Substring(r->big, a, b);
    if (run == NULL || !kept) {
        return run;
    }
    PyObject *done = PyObject_CallMethod(run, "translate", "O", r->table);
    Py_DECREF(run);
    return done;
}

/* hwpscan.formats.hwp5_text.text_runs over big[a:b] (no segment limit): 1 done, -1 on
 * a Python error, 2 where it would warn (an 8-unit control cut short: the caller
 * declines). */
static int
text_runs_c(const Runs *r, Py_ssize_t a, Py_ssize_t b, PyObject *para)
{
    const Py_ssize_t end = b - a;
    Py_ssize_t start = 0, skip = 0;
    int kept = 0;
    for (Py_ssize_t i = 0; i < end; i++) {
        Py_UCS4 c = u16_at(r->units + 2 * (a + i));
        if (c >= 32 || i < skip) {
            continue;
        }
        if (is_kept(c)) {
            kept = 1;
            continue;
        }
        if (i > start && append_segment(r->out, r->segment, r->stream, para, start,
                                        run_text(r, a + start, a + i, kept)) < 0) {
            return -1;
        }
        kept = 0;
        if (CONTROL_KIND[c] == 2) {
            if (i + CONTROL_UNITS > end) {
                return 2;
            }
            if (c == TAB && append_segment(r->out, r->segment, r->stream, para, i,
                                           PyUnicode_FromOrdinal(TAB)) < 0) {
                return -1;
            }
            start = skip = i + CONTROL_UNITS;
        }
        else {
            start = skip = i + 1;
        }
    }
    if (start < end && append_segment(r->out, r->segment, r->stream, para, start,
                                      run_text(r, a + start, b, kept)) < 0) {
        return -1;
    }
    return 1;
}

/* Whether big[a:b] holds a control (a unit below 32). */
static int
has_control(const Runs *r, Py_ssize_t a, Py_ssize_t b)
{
    for (Py_ssize_t i = a; i < b; i++) {
        if (u16_at(r->units + 2 * i) < 32) {
            return 1;
        }
    }
    return 0;
}

/* One paragraph big[a:b] of hwpscan.formats.hwp5_text._paragraph_runs: the common
 * paragraph (text, then its paragraph end and no other control, or no control at all)
 * one segment, any other through text_runs_c. 1, 2 and -1 as text_runs_c. */
static int
paragraph_run(const Runs *r, Py_ssize_t a, Py_ssize_t b, PyObject *para)
{
    if (b <= a) {
        return 1;
    }
    const Py_ssize_t end = u16_at(r->units + 2 * (b - 1)) == PARA_BREAK ? b - 1 : b;
    if (has_control(r, a, end)) {
        return text_runs_c(r, a, b, para);
    }
    if (end > a) {
        PyObject *text = PyUnicode_Substring(r->big, a, end); /* append_segment takes it */
        if (append_segment(r->out, r->segment, r->stream, para, 0, text) < 0) {
            return -1;
        }
    }
    return 1;
}

#endif
