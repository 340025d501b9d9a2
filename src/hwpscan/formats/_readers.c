/* hwpscan.formats._readers: the one optional native module, whole-document readers
 * whose Python code is the reference (hwpscan.formats.fast_readers loads it):
 * read_hwp5 (_hwp5_reader.c) and hwpx_package (_hwpx_package.c, with the XML walk of
 * _hwpx_walk.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *hwpscan_read_hwp5(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *hwpscan_hwpx_package(PyObject *module, PyObject *args);
void hwpscan_hwpx_init(void);

static PyMethodDef methods[] = {
    {"read_hwp5", (PyCFunction)(void (*)(void))hwpscan_read_hwp5, METH_FASTCALL,
     "read_hwp5(data, max_stream_bytes, max_document_bytes, max_docinfo_names, segment, "
     "table, body_only, /)\n--\n\nWhat hwp5.read_ole(data, count_plain_body=True) (or "
     "body_only=True) makes of an ordinary HWP 5 document, or None where the Python reader "
     "must read it."},
    {"hwpx_package", hwpscan_hwpx_package, METH_VARARGS,
     "hwpx_package(data, max_entries, max_uncompressed, small_cap, part_cap, max_depth, "
     "max_paragraphs) -> (sections, paragraph texts) of an ordinary HWPX package, or None "
     "where hwpx.read_zip must read it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hwpscan.formats._readers",
    .m_doc = "Whole-document readers in C; the Python readers are the reference.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__readers(void)
{
    hwpscan_hwpx_init();
    return PyModule_Create(&module_def);
}
